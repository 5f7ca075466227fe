package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/model"
)

// completionCommand is `react-agent completion SHELL`: a script that asks
// react-agent itself what may come next (`react-agent __complete WORD…`),
// so that each command's flags and their values are completed as the
// command reads them, and never fall behind.
func completionCommand() *command {
	return &command{
		name: "completion", args: "bash|zsh|fish", does: "a script that completes react-agent in your shell",
		synopsis: "completion bash|zsh|fish",
		examples: `  source <(react-agent completion bash)           # in ~/.bashrc
  react-agent completion zsh > "${fpath[1]}/_react-agent"
  react-agent completion fish > ~/.config/fish/completions/react-agent.fish
`,
		define: func(*pflag.FlagSet) func(*call) error { return runCompletion },
		check: func(args []string) error {
			if len(args) != 1 {
				return usagef("completion takes the name of a shell: bash, zsh or fish")
			}
			return nil
		},
		complete: func(_ *env, args []string) ([]candidate, bool) {
			if len(args) > 0 {
				return nil, false
			}
			return []candidate{{"bash", ""}, {"zsh", ""}, {"fish", ""}}, false
		},
	}
}

// runCompletion prints the completion script of a shell.
func runCompletion(c *call) error {
	script, ok := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}[c.args[0]]
	if !ok {
		return usagef("completion: unknown shell %q; use bash, zsh or fish", c.args[0])
	}
	_, err := io.WriteString(c.stdout, script)
	return err
}

// The completion scripts pass the words of the command line up to the
// cursor to `react-agent __complete`, which prints one candidate a line
// (with a description after a tab) and "::files" when file names fit.
const (
	bashCompletion = `# bash completion for react-agent
# _react_agent_split splits $1 as the shell would: at white space that is
# neither quoted nor escaped, with the quotes and backslashes taken away.
# It sets words (the last is the word at the end, empty after a space)
# and start (where that last word starts in $1).
_react_agent_split() {
	local s=$1 c q= w= i in=0 escaped='"\$'$'\x60' # what a backslash escapes in double quotes
	words=() start=0
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		if [[ $q == "'" ]]; then
			[[ $c == "'" ]] && q= || w+=$c
		elif [[ $q == '"' ]]; then
			if [[ $c == '"' ]]; then
				q=
			elif [[ $c == '\' && -n ${s:i+1:1} && $escaped == *"${s:i+1:1}"* ]]; then
				w+=${s:i+1:1} i=$((i + 1))
			else
				w+=$c
			fi
		elif [[ $c == [[:space:]] ]]; then
			((in)) && words+=("$w")
			w= in=0
		else
			((in)) || start=$i
			in=1
			case $c in
			\\) w+=${s:i+1:1} i=$((i + 1)) ;;
			[\'\"]) q=$c ;;
			*) w+=$c ;;
			esac
		fi
	done
	((in)) || start=${#s}
	words+=("$w")
}
_react_agent() {
	local line=${COMP_LINE:0:COMP_POINT} IFS=$' \t\n' start
	local -a words
	_react_agent_split "$line"
	local -a all=("${words[@]}")
	# bash's own word at the cursor may start after a = or a : of it, as
	# in --model=qwen2.5:7b: what comes before it stays as it is.
	local raw=${line:start} bcur=${COMP_WORDS[COMP_CWORD]} prefix=
	[[ -n $bcur && $raw == *"$bcur" ]] && { _react_agent_split "${raw:0:${#raw}-${#bcur}}"; prefix=${words[0]}; }
	local cur=${all[${#all[@]}-1]} out cand
	out=$(command react-agent __complete "${all[@]:1}" 2>/dev/null) || return
	COMPREPLY=()
	while IFS= read -r cand; do
		case $cand in
		::files)
			compopt -o filenames 2>/dev/null
			while IFS= read -r cand; do COMPREPLY+=("$cand"); done < <(compgen -f -- "${cur:${#prefix}}")
			;;
		?*) cand=${cand%%$'\t'*} COMPREPLY+=("${cand#"$prefix"}") ;;
		esac
	done <<< "$out"
	[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
	return 0
}
complete -o default -F _react_agent react-agent
`
	zshCompletion = `#compdef react-agent
# zsh completion for react-agent
_react_agent() {
	local -a words_ cands descs
	local out line
	words_=("${(@Q)words[2,CURRENT]}")
	out=$(command react-agent __complete "${words_[@]}" 2>/dev/null) || return 1
	for line in "${(@f)out}"; do
		if [[ $line == ::files ]]; then
			_files
		elif [[ -n $line ]]; then
			cands+=("${line%%$'\t'*}")
		fi
	done
	(( ${#cands} )) && compadd -Q -- "${cands[@]}"
}
compdef _react_agent react-agent
`
	fishCompletion = `# fish completion for react-agent
function __react_agent_complete
	set -l words (commandline -opc)[2..-1] (commandline -ct)
	set -l out (command react-agent __complete $words 2>/dev/null)
	for line in $out
		if test "$line" = "::files"
			__fish_complete_path (commandline -ct)
		else
			echo $line
		end
	end
end
complete -c react-agent -f -a '(__react_agent_complete)'
`
)

// candidate is one completion: a word, and what it means.
type candidate struct{ word, about string }

// complete implements `react-agent __complete WORD…`: what may come at
// the last word, which the cursor is at (empty after a space).
func (e *env) complete(words []string) error {
	if len(words) == 0 {
		words = []string{""}
	}
	cands, files := e.completions(words)
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	for _, c := range cands {
		if c.about != "" {
			fmt.Fprintf(w, "%s\t%s\n", c.word, c.about)
		} else {
			fmt.Fprintln(w, c.word)
		}
	}
	if files {
		fmt.Fprintln(w, "::files")
	}
	return nil
}

// commandCandidates are the commands that do something of their own, as
// completion offers them.
func commandCandidates() []candidate {
	var all []candidate
	for _, c := range commands() {
		if c.name != "help" && c.name != "version" && !c.hidden {
			all = append(all, candidate{c.name, c.does})
		}
	}
	return all
}

// completions returns what may come at the last of words: the commands,
// a command's flags, a flag's values or a command's arguments, those
// that start with what is typed; files is true when a file's name fits.
func (e *env) completions(words []string) (cands []candidate, files bool) {
	cur, before := words[len(words)-1], words[:len(words)-1]
	if len(before) > 0 && before[len(before)-1] == "=" && len(before) > 1 {
		// bash cut "--flag=value" at the "=": put it together again.
		cur, before = before[len(before)-2]+"="+cur, before[:len(before)-2]
	}
	cmd, fs, args := "", flagsOf("ask"), before
	if _, i := leadingFlags(fs, before); i < len(before) {
		cmd = "ask"
		if c := lookup(before[i]); c != nil && !c.hidden {
			cmd, fs = before[i], flagsOf(before[i])
			args = append(append([]string{}, before[:i]...), before[i+1:]...)
		}
	}
	if fs == nil {
		fs = pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	}
	// A flag's value: after the flag, or after its "=".
	if name, value, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(name, "--") {
		if f := fs.Lookup(name[2:]); f != nil {
			vals, fl := e.flagValues(f, args)
			for _, v := range vals {
				if strings.HasPrefix(v.word, value) {
					cands = append(cands, candidate{name + "=" + v.word, v.about})
				}
			}
			return cands, fl
		}
	}
	if len(before) > 0 {
		if f := flagBefore(fs, before[len(before)-1]); f != nil {
			vals, fl := e.flagValues(f, args)
			return matching(vals, cur), fl
		}
	}
	if strings.HasPrefix(cur, "-") {
		var all []candidate
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				all = append(all, candidate{"--" + f.Name, firstLine(f.Usage)})
			}
		})
		return matching(all, cur), false
	}
	_, i := leadingFlags(fs, args)
	var positional []string
	for _, a := range args[i:] {
		if !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
		}
	}
	if cmd == "" {
		return matching(commandCandidates(), cur), false
	}
	if c := lookup(cmd); c != nil && c.complete != nil {
		all, files := c.complete(e, positional)
		return matching(all, cur), files
	}
	return nil, false
}

// flagBefore returns the flag of fs that word is, when it takes a value
// that has not been given with it.
func flagBefore(fs *pflag.FlagSet, word string) *pflag.Flag {
	var f *pflag.Flag
	switch {
	case strings.HasPrefix(word, "--") && !strings.Contains(word, "="):
		f = fs.Lookup(word[2:])
	case strings.HasPrefix(word, "-") && len(word) == 2:
		f = fs.ShorthandLookup(word[1:])
	}
	if f == nil || f.NoOptDefVal != "" {
		return nil
	}
	return f
}

// flagValues returns the values the flag f may take, given the other
// arguments of the command line: those its value lists, the providers,
// or the models the server serves; files is true when it takes a file.
func (e *env) flagValues(f *pflag.Flag, args []string) (vals []candidate, files bool) {
	var words []string
	switch c, ok := f.Value.(completedValue); {
	case f.Name == "tool":
		words = e.toolNamesOf(args) // the plugins' too
	case ok:
		words = c.completions()
	case f.Name == "provider":
		words = model.Names()
	case f.Name == "model":
		words = e.servedModels(args)
	default:
		return nil, takesFile(f)
	}
	for _, w := range words {
		vals = append(vals, candidate{w, ""})
	}
	return vals, false
}

// servedModels returns the models the server that args name serves, or
// none when it does not answer within a second: completion must not hang.
func (e *env) servedModels(args []string) []string {
	fs := pflag.NewFlagSet("ask", pflag.ContinueOnError)
	f, _ := addAskFlags(fs)
	fs.Parse(args) // what is wrong in a line being written is no matter here
	cf, err := e.applySettings(fs)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if f.cassette.replay != "" && !fs.Changed("provider") {
		f.model.Provider = "replay" // as ask reads it
	}
	if e.findProvider(ctx, fs, &f.model) != nil {
		return nil
	}
	f.model.DefaultModel = cf.defaultModel
	names, _ := model.List(ctx, e.withEnv(f.model))
	var ok []string
	for _, n := range names {
		if completable(n) {
			ok = append(ok, n)
		}
	}
	return ok
}

// maxCompletedName bounds a name from a server that completion offers.
const maxCompletedName = 128

// completable reports whether a name a server gave may be offered for
// completion: plain text of letters, digits and . _ - : / @ +, at most
// maxCompletedName bytes, not starting with - or :, so that every shell
// inserts it as it is, with no quoting. Anything else (a newline, which
// would split it in two, a tab, which would start a description,
// "::files", which would switch to file names, $( or ; which the shell
// would run once the line is entered, an escape sequence) is left out.
func completable(name string) bool {
	if name == "" || len(name) > maxCompletedName || name[0] == '-' || name[0] == ':' {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("._-:/@+", r):
		default:
			return false
		}
	}
	return true
}

// matching returns the candidates that start with prefix.
func matching(all []candidate, prefix string) []candidate {
	var out []candidate
	for _, c := range all {
		if strings.HasPrefix(c.word, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// firstLine returns the first line of text, cut at 70 characters.
func firstLine(text string) string {
	text, _, _ = strings.Cut(text, "\n")
	if r := []rune(text); len(r) > 70 {
		text = string(r[:69]) + "…"
	}
	return text
}
