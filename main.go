// Command react-agent answers questions with a ReAct agent (Reason + Act)
// that speaks the classic Thought / Action / Action Input / Observation /
// Final Answer protocol, on models served by Ollama, any OpenAI-compatible
// server, llamafile or hosted APIs.
//
// Usage:
//
//	react-agent [ask] [flags] QUESTION   answer one question (QUESTION "-" or none: read it from stdin)
//	react-agent chat [flags]             a conversation with memory; /tools, /reset, /exit
//	react-agent logs [flags]             the conversations logged; logs show ID, logs delete ID, logs path
//	react-agent parse [flags]            parse a model reply from stdin, print the step as JSON
//	react-agent tools [flags]            list the enabled tools
//	react-agent tool [flags] NAME INPUT  call one tool directly
//	react-agent models [flags]           list the models the provider serves
//	react-agent settings [flags]         show each setting, its value and where it came from
//	react-agent completion bash|zsh|fish a script that completes commands and flags in your shell
//	react-agent --version
//
// The answer goes to stdout and the trace to stderr. Exit status: 0 with
// an answer, 1 on a runtime failure, 2 on a usage error, 3 when the run
// ended without a real final answer, 130 when interrupted.
//
// Settings come from flags, then REACT_AGENT_* environment variables and
// the provider's own (OLLAMA_HOST, OPENAI_API_KEY, …), then a YAML config
// file (--config, default react-agent/config.yaml under the user's config
// directory). Run "react-agent COMMAND --help" for a command's flags.
package main

import (
	"github.com/peterh/liner"
	evalpkg "github.com/react-agent/react-agent/agent/eval"
	"github.com/react-agent/react-agent/agent/event"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"
	"gopkg.in/yaml.v3"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/trace"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/parser/score"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/mcp"
)

// overview lists the commands for the top-level help and for completion:
// each command's name, its form after the name, and what it does.
var overview = []struct{ name, form, does string }{
	{"ask", "[flags] QUESTION", `answer a question ("ask" may be left out; "-": from stdin)`},
	{"chat", "[flags]", "a conversation with memory; /tools, /reset, /exit"},
	{"logs", "[flags]", "the conversations logged; also logs show, delete and path"},
	{"parse", "[flags]", "parse a model reply from stdin, print the step as JSON"},
	{"tools", "[flags]", "list the enabled tools"},
	{"tool", "[flags] NAME [INPUT]", "call one tool directly"},
	{"models", "[flags]", "list the models the provider serves"},
	{"eval", "[flags] SET.jsonl", "compare models and protocols on a question set"},
	{"settings", "[flags]", "show each setting, its value and where it came from"},
	{"completion", "bash|zsh|fish", "a script that completes commands and flags in your shell"},
	{"help", "[COMMAND]", "this help, or a command's"},
	{"version", "", "print the version"},
}

// usage is the top-level help.
func usage() string {
	var b strings.Builder
	b.WriteString("react-agent answers questions with a ReAct agent on the models you run.\n\nUsage:\n")
	for _, c := range overview {
		fmt.Fprintf(&b, "  react-agent %-26s %s\n", c.name+" "+c.form, c.does)
	}
	b.WriteString(`
Examples:
  react-agent ask --provider replay --replay testdata/agent/demo.jsonl "What is 17 * 23 + 4?"
  react-agent "What is the population of Tokyo divided by 1000?"
  react-agent --provider openai --base-url http://127.0.0.1:8080 "Who wrote Dune?"
  react-agent tool calculator "2**10 / 4"
  react-agent -c "And divided by 5?"   (continue the latest conversation)
  react-agent logs -q tokyo

The answer goes to stdout, the trace to stderr. Exit status: 0 answered,
1 failed, 2 usage error, 3 no real final answer, 130 interrupted.
Run "react-agent help COMMAND" for the flags of a command.
`)
	return b.String()
}

// Exit statuses.
const (
	exitFailure     = 1
	exitUsage       = 2
	exitNoAnswer    = 3
	exitInterrupted = 130
)

// errUsage marks an error in the command line: exit status 2.
var errUsage = errors.New("usage")

// errInterrupted is the error of a command stopped by Ctrl-C or SIGTERM.
var errInterrupted = errors.New("interrupted")

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if isTerminal(stdin) {
			fmt.Fprint(stderr, usage())
			return exitUsage
		}
		args = []string{"ask"} // The question comes from stdin.
	}
	cmd, rest, err := route(optionPairs(args))
	if err == nil {
		err = dispatch(cmd, rest, stdin, stdout, stderr)
	}
	var exit exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, pflag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		if cmd == "" {
			fmt.Fprintf(stderr, "react-agent: %s\n", trace.Visible(strings.TrimPrefix(err.Error(), errUsage.Error()+": ")))
		} else {
			fmt.Fprintf(stderr, "react-agent %s: %s\n", cmd, trace.Visible(strings.TrimPrefix(err.Error(), errUsage.Error()+": ")))
		}
		return exitUsage
	case errors.As(err, &exit):
		return int(exit)
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "react-agent: interrupted")
		return exitInterrupted
	default:
		fmt.Fprintf(stderr, "react-agent: %s\n", trace.Visible(advise(err)))
		return exitFailure
	}
}

// dispatch runs the command cmd with its arguments.
func dispatch(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch cmd {
	case "help":
		return cmdHelp(args, stdin, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version())
		return nil
	case "parse":
		return cmdParse(args, stdin, stdout, stderr)
	case "tools":
		return cmdTools(args, stdout, stderr)
	case "tool":
		return cmdTool(args, stdin, stdout, stderr)
	case "chat":
		return cmdChat(args, stdin, stdout, stderr)
	case "settings":
		return cmdSettings(args, stdout, stderr)
	case "models":
		return cmdModels(args, stdout, stderr)
	case "eval":
		return cmdEval(args, stdout, stderr)
	case "completion":
		return cmdCompletion(args, stdout, stderr)
	case "__complete":
		return cmdComplete(args, stdout)
	case "logs":
		return cmdLogs(args, stdout, stderr)
	}
	return cmdAsk(args, stdin, stdout, stderr)
}

// cmdHelp implements `react-agent help [COMMAND]`.
func cmdHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage())
		return nil
	case len(args) == 1 && slices.Contains(commandNames(), args[0]):
		return dispatch(args[0], []string{"--help"}, stdin, stdout, stderr)
	}
	return fmt.Errorf("%w: help takes the name of a command: %s", errUsage, strings.Join(commandNames(), ", "))
}

// isCommand reports whether name is one of the commands.
func isCommand(name string) bool {
	return slices.ContainsFunc(overview, func(c struct{ name, form, does string }) bool { return c.name == name })
}

// commandNames returns the names of the commands that do something of
// their own: all but help and version.
func commandNames() []string {
	var names []string
	for _, c := range overview {
		if c.name != "help" && c.name != "version" {
			names = append(names, c.name)
		}
	}
	return names
}

// route finds the command of a command line and the arguments it gets.
// Flags may come before the command (`react-agent -q chat`): they are read
// as settings, as ask reads them, and the command gets those it takes,
// ignoring the others as it ignores the same settings in the
// environment. A command line with no command asks a question, unless
// its first word is a command mistyped or one of another tool's.
func route(args []string) (cmd string, rest []string, err error) {
	switch args[0] {
	case "-h", "--help":
		return "help", args[1:], nil
	case "--version":
		return "version", args[1:], nil
	}
	ask := flagsOf("ask")
	lead, i := leadingFlags(ask, args)
	if i == len(args) {
		return "ask", args, nil // flags alone: the question comes from stdin
	}
	if word := args[i]; isCommand(word) || word == "__complete" {
		cfs := flagsOf(word)
		for _, f := range lead {
			if cfs != nil && cfs.Lookup(f.name) != nil {
				rest = append(rest, f.form())
			}
		}
		return word, append(rest, args[i+1:]...), nil
	}
	var words []string
	for _, a := range args[i:] {
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, a)
		}
	}
	if err := notAQuestion(words); err != nil {
		return "", nil, err
	}
	return "ask", args, nil
}

// otherTools are commands of tools people use beside this one (simonw/llm,
// aichat), with what to do here instead: typed out of habit they are a
// usage error, not a question sent to a model, perhaps a paid one.
var otherTools = map[string]string{
	"keys":        "keys are not kept by react-agent: set the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY), write api-key: in the config file, or pass --api-key",
	"templates":   "your own prompt is a template given with --prompt-file, and extra context is --system",
	"aliases":     "a model is named with --model, and settings are kept in the config file (see: react-agent settings)",
	"plugins":     "tools are added with --tools-config and --mcp-config (see: react-agent tools --help)",
	"embed":       "it answers questions and keeps no embeddings",
	"collections": "it answers questions and keeps no embeddings",
	"schemas":     "the tools' argument schemas are listed by: react-agent tools",
	"fragments":   "files are attached with -a FILE",
}

// notAQuestion returns a usage error for the words of a command line
// without a command that look like a command line rather than a question:
// a command one slip away ("tols", "lgos show 3f"), or a command of
// another tool ("keys set openai"). Questions have more words, a question
// mark, or come after ask.
func notAQuestion(words []string) error {
	if len(words) == 0 || len(words) > 3 {
		return nil
	}
	for _, w := range words {
		if strings.ContainsAny(w, "?？") {
			return nil
		}
	}
	w := words[0]
	if strings.IndexFunc(w, func(r rune) bool { return (r < 'a' || r > 'z') && r != '-' }) >= 0 {
		return nil
	}
	asQuestion := "react-agent ask " + strings.Join(words, " ")
	if advice, ok := otherTools[w]; ok {
		return fmt.Errorf("%w: react-agent has no %q command; %s. To ask it as a question, write: %s", errUsage, w, advice, asQuestion)
	}
	if len(w) < 3 {
		return nil
	}
	for _, c := range overview {
		if d := editDistance(w, c.name); d == 1 || d == 2 && len(w) >= 7 {
			return fmt.Errorf("%w: unknown command %q; did you mean %q? To ask it as a question, write: %s", errUsage, w, c.name, asQuestion)
		}
	}
	return nil
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// flagsOf returns the flags of the command called name, as the command
// defines them, for completion and for flags written before it; nil for
// a command without flags of its own to share.
func flagsOf(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	switch name {
	case "ask":
		addAskFlags(fs)
	case "chat", "settings":
		addAgentFlags(fs)
	case "models":
		addModelsFlags(fs)
	case "tools":
		addToolsFlags(fs, false)
	case "tool":
		addToolsFlags(fs, true)
	case "eval":
		addEvalFlags(fs)
	case "logs":
		addLogsFlags(fs)
	case "parse":
		addParseFlags(fs)
	default:
		return nil
	}
	return fs
}

// leadingFlag is one flag written before the command, with its value.
type leadingFlag struct {
	name  string
	value *string
}

// form is the flag as the command reads it.
func (f leadingFlag) form() string {
	if f.value == nil {
		return "--" + f.name
	}
	return "--" + f.name + "=" + *f.value
}

// leadingFlags reads the flags of fs at the start of args, and returns
// them with the index of the first argument that is neither a flag nor a
// flag's value. A flag fs does not know is taken to have no value.
func leadingFlags(fs *pflag.FlagSet, args []string) ([]leadingFlag, int) {
	var flags []leadingFlag
	takesValue := func(f *pflag.Flag) bool { return f != nil && f.NoOptDefVal == "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, i
		case strings.HasPrefix(a, "--"):
			name, value, inline := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			lf := leadingFlag{name: name}
			switch {
			case inline:
				lf.value = &value
			case takesValue(f) && i+1 < len(args):
				i++
				lf.value = &args[i]
			}
			flags = append(flags, lf)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// Shorthands, perhaps several (-qv), the last perhaps with
			// its value (-m qwen, -mqwen, -m=qwen).
			for k := 1; k < len(a); k++ {
				f := fs.ShorthandLookup(a[k : k+1])
				lf := leadingFlag{name: a[k : k+1]}
				if f != nil {
					lf.name = f.Name
				}
				if takesValue(f) {
					switch v := strings.TrimPrefix(a[k+1:], "="); {
					case v != "":
						lf.value = &v
					case i+1 < len(args):
						i++
						lf.value = &args[i]
					}
					flags = append(flags, lf)
					break
				}
				flags = append(flags, lf)
			}
		default:
			return flags, i
		}
	}
	return flags, len(args)
}

// exitError is an exit status whose message was already printed.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// version describes the build: the module version and, when the binary
// was built from a checkout, its commit.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "react-agent (unknown version)"
	}
	v := "react-agent " + info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + modified
	}
	return v + " " + info.GoVersion
}

// terminalWidth returns the columns of the terminal w is, or 0 when it is
// none or does not say.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return cols
		}
	}
	return 0
}

// helpWidth is the width help is wrapped at: a terminal's, up to 100
// columns.
func helpWidth(w io.Writer) int {
	if cols := terminalWidth(w); cols > 20 {
		return min(cols, 100) - 1
	}
	return 99
}

// newFlags returns a flag set for a command that reports errors as usage
// errors and prints help, with examples, on --help: its flags under the
// headings they were added with, wrapped to fit 100 columns.
// Asked-for help goes to stdout, so that it can be paged or searched.
func newFlags(name, synopsis, examples string, stdout, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, in words of ours
	fs.SortFlags = false
	fs.Usage = func() { // called for --help only: parse errors are returned
		fmt.Fprintf(stdout, "Usage: react-agent %s\n\nExamples:\n%s", synopsis, examples)
		writeFlags(stdout, fs, helpWidth(stdout))
	}
	return fs
}

// writeFlags writes the flags of fs under their headings, as help lists
// them.
func writeFlags(w io.Writer, fs *pflag.FlagSet, width int) {
	var headings []string
	sets := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		h := "Flags"
		if g := f.Annotations[groupAnnotation]; len(g) > 0 {
			h = g[0]
		}
		if sets[h] == nil {
			headings = append(headings, h)
			sets[h] = pflag.NewFlagSet(h, pflag.ContinueOnError)
			sets[h].SortFlags = false
		}
		sets[h].AddFlag(f)
	})
	for _, h := range headings {
		fmt.Fprintf(w, "\n%s:\n%s", h, sets[h].FlagUsagesWrapped(width))
	}
}

// parseFlags parses args into fs, turning flag errors into usage errors
// in people's words.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %s (see --help)", errUsage, flagProblem(fs, err))
	}
	return nil
}

// flagProblem says what is wrong with a flag, from pflag's error.
func flagProblem(fs *pflag.FlagSet, err error) string {
	var invalid *pflag.InvalidValueError
	var missing *pflag.ValueRequiredError
	var unknown *pflag.NotExistError
	switch {
	case errors.As(err, &invalid):
		return fmt.Sprintf("--%s takes %s; got %q", invalid.GetFlag().Name, valueKind(invalid.GetFlag()), invalid.GetValue())
	case errors.As(err, &missing):
		return fmt.Sprintf("--%s needs a value: %s", missing.GetFlag().Name, valueKind(missing.GetFlag()))
	case errors.As(err, &unknown):
		name := unknown.GetSpecifiedName()
		if name == "" {
			return fmt.Sprintf("unknown flag -%s", unknown.GetSpecifiedShortnames())
		}
		msg := fmt.Sprintf("unknown flag --%s", name)
		if near := nearestFlag(fs, name); near != "" {
			return msg + fmt.Sprintf("; did you mean --%s?", near)
		}
		if cmds := commandsWithFlag(name); len(cmds) > 0 {
			return msg + fmt.Sprintf("; it is a flag of %s", strings.Join(cmds, ", "))
		}
		return msg
	}
	return err.Error()
}

// valueKind says in words what a flag's value is.
func valueKind(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "int", "int64":
		return "a whole number, like " + map[bool]string{true: f.DefValue, false: "10"}[f.DefValue != "0" && f.DefValue != ""]
	case "duration":
		return "a time with its unit, like 30s, 5m or 1h30m"
	case "float64":
		return "a number, like 0.7"
	case "bool":
		return "true or false"
	case "KEY=VALUE":
		return "KEY=VALUE, or KEY VALUE"
	}
	return "a value"
}

// setFlag sets the flag name of fs to a value from a setting, with an
// error in people's words.
func setFlag(fs *pflag.FlagSet, name, value string) error {
	if err := fs.Set(name, value); err != nil {
		return fmt.Errorf("%s takes %s; got %q", name, valueKind(fs.Lookup(name)), value)
	}
	return nil
}

// nearestFlag returns the flag of fs one or two slips from name, or "".
func nearestFlag(fs *pflag.FlagSet, name string) string {
	best, bestD := "", 3
	fs.VisitAll(func(f *pflag.Flag) {
		if d := editDistance(name, f.Name); d < bestD && (d == 1 || len(name) >= 6) {
			best, bestD = f.Name, d
		}
	})
	return best
}

// commandsWithFlag lists the commands that take the flag called name.
func commandsWithFlag(name string) []string {
	var cmds []string
	for _, c := range commandNames() {
		if fs := flagsOf(c); fs != nil && fs.Lookup(name) != nil {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// parseOutput is one line of `react-agent parse` output.
type parseOutput struct {
	ID          json.RawMessage `json:"id,omitempty"`
	Kind        string          `json:"kind"`
	Thought     *string         `json:"thought,omitempty"`
	Action      string          `json:"action,omitempty"`
	Args        map[string]any  `json:"args,omitempty"`
	FinalAnswer *string         `json:"final_answer,omitempty"`
	Error       string          `json:"error,omitempty"`
	ParseNS     *int64          `json:"parse_ns,omitempty"`
}

func newParseOutput(st parser.Step, err error) parseOutput {
	if err != nil {
		return parseOutput{Kind: "error", Error: err.Error()}
	}
	out := parseOutput{Kind: string(st.Kind), Thought: &st.Thought}
	if st.Kind == parser.KindFinal {
		out.FinalAnswer = &st.FinalAnswer
	} else {
		out.Action, out.Args = st.Action, st.Args
	}
	return out
}

// parseCmdFlags are the flags of parse.
type parseCmdFlags struct {
	jsonl, timing, json  bool
	repeat               int
	toolNames            []string
	toolsFile, scoreFile string
}

// addParseFlags adds the flags of parse to fs.
func addParseFlags(fs *pflag.FlagSet) *parseCmdFlags {
	f := &parseCmdFlags{}
	grouped(fs, "Tool flags", func() {
		fs.StringArrayVar(&f.toolNames, "tool", nil, "a tool the replies may call, by name (repeatable); with --tool or --tools the parser knows these tools instead of the built-in ones")
		fs.StringVar(&f.toolsFile, "tools", "", `a JSON list of the tools the replies may call: {"name", "description", "input_schema"} items, as MCP and Anthropic list them (and react-agent tools --json prints them), or OpenAI's {"type": "function", "function": {...}}`)
	})
	grouped(fs, "Input and output flags", func() {
		fs.BoolVar(&f.jsonl, "jsonl", false, `read many replies, one JSON object {"id":..,"text":..} a line; print one result a line`)
		fs.BoolVar(&f.timing, "timing", false, `add "parse_ns": the median time of --repeat parses of each input (the parse call alone)`)
		fs.IntVar(&f.repeat, "repeat", 11, "with --timing, how many times to parse each input")
	})
	grouped(fs, "Scoring flags", func() {
		fs.StringVar(&f.scoreFile, "score", "", `score the parser on a labelled corpus, JSON lines {"id", "text", "expect"} ("-" for stdin); prints the accuracy and each failure; exit status 1 when a reply is not read as labelled or a line is malformed`)
		fs.BoolVar(&f.json, "json", false, "with --score, print the report as one JSON object")
	})
	return f
}

// cmdParse implements `react-agent parse`.
func cmdParse(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("parse", "parse [--tool NAME]... [--tools FILE] [--jsonl] [--timing] < reply.txt\n       react-agent parse [--tool NAME]... [--tools FILE] --score CORPUS.jsonl [--json]",
		`  printf 'Thought: add\nAction: Calculator\nAction Input: 2+2' | react-agent parse
  printf '%s\n' '{"id":1,"text":"Final Answer: 4"}' | react-agent parse --jsonl --timing
  printf 'Action: Search\nAction Input: zig' | react-agent parse --tool Search
  react-agent parse --tools testdata/parser/tools.json --score testdata/parser/score.jsonl
`, stdout, stderr)
	pf := addParseFlags(fs)
	jsonl, timing, repeat, toolNames, toolsFile, scoreFile, jsonOut := &pf.jsonl, &pf.timing, &pf.repeat, &pf.toolNames, &pf.toolsFile, &pf.scoreFile, &pf.json
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: parse reads the reply from stdin and takes no arguments, got %q", errUsage, fs.Args())
	}
	if *repeat < 1 {
		return fmt.Errorf("%w: --repeat must be at least 1, got %d", errUsage, *repeat)
	}
	if *scoreFile != "" && (*jsonl || *timing) {
		return fmt.Errorf("%w: --score reads its own corpus; leave out --jsonl and --timing", errUsage)
	}
	if *jsonOut && *scoreFile == "" {
		return fmt.Errorf("%w: --json is for the report of --score; parse prints JSON already", errUsage)
	}
	var known parser.Tools = tools.Catalog()
	if len(*toolNames) > 0 || *toolsFile != "" {
		t, err := parseTools(*toolNames, *toolsFile)
		if err != nil {
			return err
		}
		known = t
	}
	if *scoreFile != "" {
		return scoreCorpus(*scoreFile, known, *jsonOut, stdin, stdout)
	}
	p := parser.New(known)
	parse := func(text string) parseOutput {
		out := newParseOutput(p.Parse(text))
		if *timing {
			ns := medianParse(p, text, *repeat)
			out.ParseNS = &ns
		}
		return out
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if !*jsonl {
		text, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("parse: reading stdin: %w", err)
		}
		out := parse(string(text))
		if err := enc.Encode(out); err != nil {
			return err
		}
		if out.Kind == "error" {
			w.Flush()
			return exitError(exitFailure)
		}
		return nil
	}
	r := bufio.NewReaderSize(stdin, 1<<16)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var in struct {
				ID   json.RawMessage `json:"id"`
				Text *string         `json:"text"`
			}
			var out parseOutput
			switch jerr := json.Unmarshal(line, &in); {
			case jerr != nil:
				out = parseOutput{Kind: "error", Error: fmt.Sprintf("input line %d is not a JSON object: %v; write one object a line, like {\"id\": 1, \"text\": \"Thought: ...\"}", n, jerr)}
			case in.Text == nil:
				out = parseOutput{Kind: "error", Error: fmt.Sprintf(`input line %d has no "text" field; write one object a line, like {"id": 1, "text": "Thought: ..."}`, n)}
			default:
				out = parse(*in.Text)
			}
			out.ID = in.ID
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse: reading stdin line %d: %w", n, err)
		}
	}
}

// parseTools returns the tools that parse --tool and --tools name.
func parseTools(names []string, file string) (parser.Tools, error) {
	var list []score.Tool
	for _, n := range names {
		list = append(list, score.Tool{Name: n})
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%w: --tools: %v", errUsage, err)
		}
		fromFile, err := score.ReadTools(data)
		if err != nil {
			return nil, fmt.Errorf("%w: --tools %s: %v", errUsage, file, err)
		}
		list = append(list, fromFile...)
	}
	t, err := score.NewTools(list...)
	if err != nil {
		return nil, fmt.Errorf("%w: --tool and --tools: %v", errUsage, err)
	}
	return t, nil
}

// scoreCorpus implements parse --score: it reads the corpus at path ("-"
// for stdin), scores the parser of known on it and prints the report.
// The exit status is 1 when a reply was not read as labelled or a line
// was malformed.
func scoreCorpus(path string, known parser.Tools, asJSON bool, stdin io.Reader, stdout io.Writer) error {
	in := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%w: --score: %v", errUsage, err)
		}
		defer f.Close()
		in = f
	}
	corpus, err := score.Read(in)
	if err != nil {
		return fmt.Errorf("parse --score %s: %w", path, err)
	}
	rep := corpus.Score(known)
	w := bufio.NewWriter(stdout)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printScore(w, rep)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(rep.Failures) > 0 || len(rep.Malformed) > 0 {
		return exitError(exitFailure)
	}
	return nil
}

// printScore writes a score report for people: each failure with what
// was wanted and what the parser read, each malformed line, then the
// accuracy. Text from the corpus is quoted, so that no byte of it acts on
// the terminal.
func printScore(w io.Writer, rep score.Report) {
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "line %d%s: %s\n", f.Line, caseID(f.ID), trace.Visible(f.Reason))
		fmt.Fprintf(w, "  want: %s\n", describeExpect(f.Expect))
		if f.Got == nil {
			fmt.Fprintf(w, "  got:  a parse error: %s\n", quoteClip(f.Error))
		} else {
			fmt.Fprintf(w, "  got:  %s\n", describeStep(*f.Got))
		}
	}
	for _, m := range rep.Malformed {
		fmt.Fprintf(w, "line %d: not scored: %s\n", m.Line, trace.Visible(m.Err.Error()))
	}
	fmt.Fprintf(w, "%d of %d replies read as labelled (%.1f%%)", rep.Passed, rep.Total, 100*rep.Accuracy())
	switch n := len(rep.Malformed); {
	case n == 1:
		fmt.Fprint(w, "; 1 malformed line not scored")
	case n > 1:
		fmt.Fprintf(w, "; %d malformed lines not scored", n)
	}
	fmt.Fprintln(w)
}

// caseID is a case's id for a line of the report, or "".
func caseID(id json.RawMessage) string {
	if len(id) == 0 || string(id) == "null" {
		return ""
	}
	return " (id " + trace.Visible(clip(string(id), 60)) + ")"
}

// describeExpect says what a corpus label asks for.
func describeExpect(e score.Expect) string {
	switch {
	case e.Unparseable:
		return "a parse error"
	case e.FinalAnswer != nil:
		return "the final answer " + quoteClip(*e.FinalAnswer)
	case e.FinalAnswerPrefix != nil:
		return "a final answer starting " + quoteClip(*e.FinalAnswerPrefix)
	}
	s := "the action " + quoteClip(*e.Action)
	if e.Input != nil {
		s += " with the input " + trace.Visible(clip(string(e.Input), 200))
	}
	return s
}

// describeStep says what the parser read.
func describeStep(st parser.Step) string {
	if st.Kind == parser.KindFinal {
		return "the final answer " + quoteClip(st.FinalAnswer)
	}
	return "the action " + quoteClip(st.Action) + " with " + trace.Visible(clip(prompt.FormatArgs(st.Args), 200))
}

// quoteClip quotes a text from outside, shortened, with its line breaks
// and control characters escaped.
func quoteClip(s string) string { return strconv.Quote(clip(s, 200)) }

// clip shortens s to at most n bytes, at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// medianParse returns the median wall time, in nanoseconds, of n parses
// of text: the parse call alone.
func medianParse(p *parser.Parser, text string, n int) int64 {
	times := make([]int64, n)
	for i := range times {
		start := time.Now()
		p.Parse(text)
		times[i] = int64(time.Since(start))
	}
	slices.Sort(times)
	return times[n/2]
}

// notSettings are the flags that neither a REACT_AGENT_* variable nor the
// config file may set: each is a choice for one run (--yes never runs a
// command unasked by surprise), or names where settings come from.
var notSettings = []string{"yes", "json", "record", "replay", "config", "continue", "cid", "attach", "help"}

// pathAnnotation marks a flag whose value is a file's path: a relative path
// in the config file is taken from the file's folder.
const pathAnnotation = "react-agent/path"

// pathFlag marks the flag called name as a file's path.
func pathFlag(fs *pflag.FlagSet, name string) {
	if err := fs.SetAnnotation(name, pathAnnotation, []string{"true"}); err != nil {
		panic(err) // a flag defined in this file is missing: a bug
	}
}

// settingNames are the flags of fs that a REACT_AGENT_* variable or the
// config file may set, in the order they are applied: provider comes
// first, because the provider's own variables decide whether the file's
// base-url and api-key apply. Every flag is one, except notSettings.
func settingNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(notSettings, f.Name) {
			names = append(names, f.Name)
		}
	})
	slices.SortStableFunc(names, func(a, b string) int {
		return boolInt(b == "provider") - boolInt(a == "provider")
	})
	return names
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// envName is the environment variable that sets a flag.
func envName(flag string) string {
	return "REACT_AGENT_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// defaultConfigPath is where the config file is read from when --config
// and REACT_AGENT_CONFIG are not given.
func defaultConfigPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "react-agent", "config.yaml")
}

// configFile is a parsed config file: setting names and their values as
// written, in flag syntax; a repeatable flag's setting may be a list.
type configFile struct {
	path   string
	values map[string][]string
}

// loadConfig reads the config file at path, or at the default path when
// path is empty; a missing default file is an empty config. Values are
// kept as written: `api-key: 0123` is the text 0123, not the number 83.
func loadConfig(path string) (configFile, error) {
	explicit := path != ""
	if !explicit {
		path = defaultConfigPath()
	}
	cf := configFile{path: path, values: map[string][]string{}}
	if path == "" {
		return cf, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return cf, nil
	}
	if err != nil {
		return cf, fmt.Errorf("%w: config file: %v", errUsage, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cf, fmt.Errorf("config file %s is not a YAML mapping of settings (like `model: qwen2.5:7b`): %w", path, err)
	}
	if len(doc.Content) == 0 {
		return cf, nil // an empty file
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return cf, fmt.Errorf("config file %s is not a YAML mapping of settings (like `model: qwen2.5:7b`)", path)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, v := top.Content[i].Value, top.Content[i+1]
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			continue
		case v.Kind == yaml.SequenceNode:
			var items []string
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					return cf, fmt.Errorf("config file %s: %s must be a list of single values, as on the command line", path, key)
				}
				items = append(items, item.Value)
			}
			cf.values[key] = items
			continue
		case v.Kind != yaml.ScalarNode:
			return cf, fmt.Errorf("config file %s: %s must be a single value, as on the command line", path, key)
		}
		cf.values[key] = []string{v.Value}
	}
	return cf, nil
}

// check reports a key of the file that is no setting of fs.
func (cf configFile) check(fs *pflag.FlagSet) error {
	names := settingNames(fs)
	for key := range cf.values {
		switch {
		case key == "yes":
			return fmt.Errorf("config file %s: \"yes\" cannot be set in a config file, so that a command never runs unasked by surprise; pass --yes on the command line", cf.path)
		case slices.Contains(notSettings, key):
			return fmt.Errorf("config file %s: %q is chosen for one run, not in a config file; pass --%s on the command line", cf.path, key, key)
		case !slices.Contains(names, key) && !isSetting(key):
			return fmt.Errorf("config file %s: unknown setting %q; the settings are %s", cf.path, key, strings.Join(names, ", "))
		}
	}
	return nil
}

// isSetting reports whether name is a setting of any command, so that one
// config file serves them all: ask's settings, say, in the file that
// `tools` reads.
func isSetting(name string) bool {
	fs := pflag.NewFlagSet("all", pflag.ContinueOnError)
	addAgentFlags(fs)
	return slices.Contains(settingNames(fs), name)
}

// applySettings fills each flag of fs not given on the command line from
// its REACT_AGENT_* variable, or else from the config file at configPath
// (the default file when empty). A config file's base-url and api-key
// yield to the provider's own variables (OLLAMA_HOST, OPENAI_API_KEY, …).
func applySettings(fs *pflag.FlagSet, configPath string) error {
	for _, name := range notSettings {
		if v := os.Getenv(envName(name)); v != "" && name != "config" && fs.Lookup(name) != nil {
			return fmt.Errorf("%w: %s is set, but --%s is chosen for one run and cannot be set from the environment; pass --%s on the command line", errUsage, envName(name), name, name)
		}
	}
	cf, err := loadConfig(configPath)
	if err != nil {
		return err
	}
	if err := cf.check(fs); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	for _, name := range settingNames(fs) {
		fl := fs.Lookup(name)
		if fl.Changed {
			continue
		}
		_, isPath := fl.Annotations[pathAnnotation]
		_, repeatable := fl.Value.(pflag.SliceValue)
		if v := os.Getenv(envName(name)); v != "" {
			values := []string{v}
			if isPath && repeatable {
				values = filepath.SplitList(v) // several files, as in PATH
			}
			for _, v := range values {
				if err := setFlag(fs, name, v); err != nil {
					return fmt.Errorf("%w: %s: %v", errUsage, envName(name), err)
				}
			}
			fs.SetAnnotation(name, sourceAnnotation, []string{envName(name)})
			continue
		}
		values, ok := cf.values[name]
		if !ok || len(values) == 0 {
			continue
		}
		if len(values) > 1 && !repeatable {
			return fmt.Errorf("%w: config file %s: %s must be a single value, as on the command line", errUsage, cf.path, name)
		}
		if p := fs.Lookup("provider"); p != nil && (name == "base-url" || name == "api-key") {
			prov, _ := model.Lookup(p.Value.String())
			if env := map[string]string{"base-url": prov.URLEnv, "api-key": prov.KeyEnv}[name]; env != "" && os.Getenv(env) != "" {
				continue
			}
		}
		for _, v := range values {
			if isPath && v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(filepath.Dir(cf.path), v) // Relative to the file.
			}
			if err := setFlag(fs, name, v); err != nil {
				return fmt.Errorf("%w: config file %s: %v", errUsage, cf.path, err)
			}
		}
		fs.SetAnnotation(name, sourceAnnotation, []string{cf.path})
	}
	return nil
}

// sourceAnnotation records where a flag's value came from, when not from
// the command line or its default.
const sourceAnnotation = "react-agent/source"

// settings are the flags shared by every command that reads settings.
type settings struct {
	config string
	tools  func() tools.Options
	// mcpConfigs are the files of MCP servers whose tools to add.
	mcpConfigs []string
	// yes runs shell, plugin and MCP commands without asking.
	yes bool
}

// addSettings adds --config and the tool flags to fs.
func addSettings(fs *pflag.FlagSet) *settings {
	s := &settings{}
	grouped(fs, "Tool flags", func() {
		s.tools = toolFlags(fs)
		fs.StringArrayVar(&s.mcpConfigs, "mcp-config", nil, `JSON or YAML file of MCP servers whose tools to add, as Claude Desktop writes it ({"mcpServers": {…}}) (repeatable)`)
		pathFlag(fs, "mcp-config")
	})
	addConfigFlag(fs, &s.config)
	return s
}

// addConfigFlag adds --config to fs.
func addConfigFlag(fs *pflag.FlagSet, config *string) {
	grouped(fs, "Settings flags", func() {
		fs.StringVar(config, "config", os.Getenv("REACT_AGENT_CONFIG"), "YAML settings file: flag names and values (default: react-agent/config.yaml in the user's config directory)")
	})
}

// addYes adds --yes to fs, for the commands that run tools.
func addYes(fs *pflag.FlagSet, s *settings) {
	grouped(fs, "Tool flags", func() {
		fs.BoolVar(&s.yes, "yes", false, "run shell, plugin and MCP tools without asking")
	})
}

// toolFlags adds the tool flags to fs and returns a function that reads
// them once fs is parsed.
func toolFlags(fs *pflag.FlagSet) func() tools.Options {
	d := tools.DefaultOptions()
	o := &tools.Options{}
	fs.BoolVar(&o.AllowShell, "allow-shell", false, "enable the shell tool (each command is confirmed on the terminal unless --yes)")
	fs.BoolVar(&o.AllowPrivateNetwork, "allow-private-network", false, "let http_request reach loopback, private and link-local addresses")
	fs.BoolVar(&o.AllowHTTPWrite, "allow-http-write", false, "let http_request send methods other than GET and HEAD, a body, and Authorization or Cookie headers")
	fs.StringVar(&o.SearchEngine, "search-engine", d.SearchEngine, `web_search backend: "duckduckgo" or "searxng"`)
	fs.StringVar(&o.SearchURL, "search-url", "", "web_search endpoint (required for searxng: your instance's address)")
	fs.DurationVar(&o.ToolTimeout, "tool-timeout", d.ToolTimeout, "time limit of one tool call")
	fs.IntVar(&o.MaxObservation, "max-observation", d.MaxObservation, "bytes of a tool's output the model sees; the rest is cut with a marker")
	fs.Int64Var(&o.MaxResponse, "max-response", d.MaxResponse, "bytes read at most from an HTTP response or a command's output")
	fs.StringVar(&o.ToolsConfig, "tools-config", "", "YAML or JSON file declaring plugin tools that run commands, and MCP servers in its mcp section")
	pathFlag(fs, "tools-config")
	return func() tools.Options { return *o }
}

// groupAnnotation files a flag under a heading of its command's help.
const groupAnnotation = "react-agent/group"

// grouped adds flags to fs with add, and files them under heading in the
// command's help.
func grouped(fs *pflag.FlagSet, heading string, add func()) {
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	add()
	fs.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			f.Annotations = maps.Clone(f.Annotations)
			if f.Annotations == nil {
				f.Annotations = map[string][]string{}
			}
			f.Annotations[groupAnnotation] = []string{heading}
		}
	})
}

// builtins returns the registry of the built-in tools o enables; options
// no tool can work with are usage errors that name their flag.
func builtins(o tools.Options) (*tools.Registry, error) {
	reg, err := tools.Builtins(o)
	var oe *tools.OptionError
	if errors.As(err, &oe) {
		flag := map[string]string{"SearchEngine": "search-engine", "SearchURL": "search-url", "ToolTimeout": "tool-timeout",
			"MaxObservation": "max-observation", "MaxResponse": "max-response"}[oe.Option]
		return nil, fmt.Errorf("%w: --%s: %s", errUsage, flag, oe.Problem)
	}
	return reg, err
}

// toolRegistry returns the registry of the tools the settings enable: the
// built-in ones, the plugins, and the tools of the MCP servers that the
// tools file and the --mcp-config files declare, which it starts. The
// servers run until closeFn is called, or until ctx ends.
func toolRegistry(ctx context.Context, s *settings, stderr io.Writer) (reg *tools.Registry, closeFn func(), err error) {
	if reg, err = builtins(s.tools()); err != nil {
		return nil, nil, err
	}
	servers, err := mcpServers(s)
	if err != nil {
		return nil, nil, err
	}
	if closeFn, err = startMCP(ctx, servers, s, reg, stderr); err != nil {
		return nil, nil, err
	}
	return reg, closeFn, nil
}

// mcpServers reads the MCP servers that the tools file and the
// --mcp-config files declare.
func mcpServers(s *settings) ([]mcp.Server, error) {
	var servers []mcp.Server
	if path := s.tools().ToolsConfig; path != "" {
		list, err := mcp.LoadConfig(path)
		if err != nil && !errors.Is(err, mcp.ErrNoServers) {
			return nil, err
		}
		servers = append(servers, list...)
	}
	for _, path := range s.mcpConfigs {
		list, err := mcp.LoadConfig(path)
		if err != nil {
			return nil, err
		}
		servers = append(servers, list...)
	}
	return servers, nil
}

// startMCP starts the MCP servers, adds their tools to reg, and says on
// stderr what it had to change (a tool renamed, a list cut). The servers
// run until closeFn is called, or until ctx ends.
func startMCP(ctx context.Context, servers []mcp.Server, s *settings, reg *tools.Registry, stderr io.Writer) (closeFn func(), err error) {
	if len(servers) == 0 {
		return func() {}, nil
	}
	set, err := mcp.Start(ctx, servers, mcp.Options{Reserved: reg.ToolNames(), MaxError: s.tools().MaxObservation})
	if err != nil {
		return nil, err
	}
	for _, w := range set.Warnings() {
		fmt.Fprintf(stderr, "react-agent: %s\n", trace.Visible(w))
	}
	for _, t := range set.Tools() {
		if err := reg.Register(t); err != nil {
			set.Close()
			return nil, err
		}
	}
	return func() { set.Close() }, nil
}

// interruptible returns a context cancelled by the first Ctrl-C or
// SIGTERM. After that the signals' default action is back, so a second
// Ctrl-C ends the program at once.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// confirmTerminal returns where shell and plugin confirmations are asked:
// stdin and stderr when stdin is a terminal, else the controlling terminal
// (/dev/tty) when there is one. Without either, the confirmer refuses
// every call unless --yes.
func confirmTerminal(stdin io.Reader, stderr io.Writer) (in *os.File, out io.Writer, closeFn func()) {
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		return f, stderr, func() {}
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		return tty, tty, func() { tty.Close() }
	}
	return nil, stderr, func() {}
}

// toolsFlags are the flags of tools and tool.
type toolsFlags struct {
	*settings
	json bool
}

// addToolsFlags adds the flags of tools to fs, and with run those of
// tool, which runs one.
func addToolsFlags(fs *pflag.FlagSet, run bool) *toolsFlags {
	f := &toolsFlags{settings: addSettings(fs)}
	if run {
		addYes(fs, f.settings)
	}
	what := "the tools"
	if run {
		what = "the observation"
	}
	grouped(fs, "Output flags", func() {
		fs.BoolVar(&f.json, "json", false, "print "+what+" as JSON")
	})
	return f
}

// cmdTools implements `react-agent tools`.
func cmdTools(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tools", "tools [flags]", `  react-agent tools
  react-agent tools --allow-shell --tools-config plugins.yaml
  react-agent tools --json > tools.json      (name, description and input_schema of each)
`, stdout, stderr)
	f := addToolsFlags(fs, false)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: tools takes no arguments, got %q", errUsage, fs.Args())
	}
	if err := applySettings(fs, f.config); err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	reg, closeTools, err := toolRegistry(ctx, f.settings, stderr)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer closeTools()
	if f.json {
		type entry struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Server      string          `json:"server,omitempty"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		list := []entry{}
		for _, t := range reg.List() {
			e := entry{Name: t.Name(), Description: t.Description(), InputSchema: tools.InputSchema(t)}
			if s, ok := t.(tools.Served); ok {
				e.Server = s.Server()
			}
			list = append(list, e)
		}
		return writeJSON(stdout, list)
	}
	return tools.FormatList(stdout, reg)
}

// cmdTool implements `react-agent tool NAME [INPUT]`: one call of one
// tool, with INPUT read as the parser reads an Action Input.
func cmdTool(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("tool", "tool [flags] NAME [INPUT]\n\nINPUT is a JSON object, or raw text for the tool's primary argument; a tool\nwithout arguments needs none.", `  react-agent tool calculator "2**10 / 4"
  react-agent tool Calculator '{"expression": "3+4"}'
  react-agent tool --allow-shell shell "ls -la"
  react-agent tool --mcp-config testdata/mcp/servers.json list_allowed_directories
`, stdout, stderr)
	f := addToolsFlags(fs, true)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return fmt.Errorf("%w: tool takes a tool name and its input, as in: react-agent tool calculator '2+2' (got %d arguments; quote an input of several words)", errUsage, fs.NArg())
	}
	if err := applySettings(fs, f.config); err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	reg, closeTools, err := toolRegistry(ctx, f.settings, stderr)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer closeTools()
	name, input := fs.Arg(0), fs.Arg(1)
	canonical, callArgs := parser.New(reg).Args(name, input)
	if _, ok := reg.Get(canonical); !ok {
		// A built-in that is off (shell without --allow-shell): infer as
		// the parser would, and let the registry say how to turn it on.
		canonical, callArgs = parser.New(tools.Catalog()).Args(name, input)
	}
	if t, ok := reg.Get(canonical); ok && fs.NArg() == 1 && len(reg.RequiredArgs(canonical)) > 0 {
		return fmt.Errorf("%w: %s needs an input: %s, as in: react-agent tool %s '…'", errUsage, canonical, t.Schema(), canonical)
	}
	if t, checked, err := reg.Prepare(canonical, callArgs); err == nil {
		callArgs = checked
		in, out, closeTTY := confirmTerminal(stdin, stderr)
		defer closeTTY()
		if err := tools.Confirm(ctx, tools.NewTerminalConfirmer(in, out, f.yes), t, callArgs); err != nil {
			return interrupted(ctx, err)
		}
	}
	obs, err := reg.Call(ctx, canonical, callArgs)
	if err != nil {
		return interrupted(ctx, err)
	}
	code := tools.ExitCode(obs)
	if f.json {
		if err := writeJSON(stdout, struct {
			Tool        string         `json:"tool"`
			Args        map[string]any `json:"args"`
			Observation string         `json:"observation"`
		}{canonical, callArgs, obs}); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, forTerminal(stdout, obs))
	}
	if code != 0 {
		return exitError(code) // a command that failed: its status, as a shell gives it
	}
	return nil
}

// interrupted returns errInterrupted when ctx was cancelled by a signal,
// and err otherwise.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// agentFlags are the flags of ask and chat.
type agentFlags struct {
	*settings
	model         model.Config
	maxIterations int
	timeout       time.Duration
	lang          string
	promptFile    string
	system        string
	stream        bool
	noStream      bool
	usage         bool
	stops         []string
	noStop        bool
	quiet         bool
	verbose       bool
	json          bool
	protocol      string
	constrain     string
	log           *logFlags
}

// addAgentFlags adds the flags of ask and chat to fs.
func addAgentFlags(fs *pflag.FlagSet) *agentFlags {
	f := &agentFlags{}
	m := &f.model
	addModelFlags(fs, m, true)
	grouped(fs, "Agent flags", func() {
		fs.IntVar(&f.maxIterations, "max-iterations", 10, "model calls before the agent is asked for its best answer")
		fs.StringVar(&f.protocol, "protocol", string(agent.ProtocolText), `how the model calls tools: "text" (the ReAct text protocol, any model), "native" (the server's tool calling) or "auto" (native, text where the server refuses tools)`)
		fs.StringVar(&f.constrain, "constrain", string(agent.ConstrainAuto), `bind each step to the tools as the server samples it: "auto" (where the text protocol stays: llamacpp, vLLM, SGLang), "on" (also the JSON object protocol on Ollama, LM Studio, OpenAI; an error where the server cannot) or "off"`)
		fs.DurationVar(&f.timeout, "timeout", 0, "time limit of the whole run, such as 90s or 5m (0: none)")
		fs.StringVar(&f.lang, "lang", "en", `prompt language: "en" or "zh"`)
		fs.StringVar(&f.promptFile, "prompt-file", "", "your own prompt template (Go text/template; see the prompt package for its fields)")
		pathFlag(fs, "prompt-file")
		fs.StringVarP(&f.system, "system", "s", "", "extra context appended to the system prompt")
		fs.StringArrayVar(&f.stops, "stop", nil, "a stop sequence sent on every model call, replacing the default set (repeatable)")
		fs.BoolVar(&f.noStop, "no-stop", false, "send no stop sequences: the agent cuts replies itself")
	})
	grouped(fs, "Output flags", func() {
		fs.BoolVarP(&f.quiet, "quiet", "q", false, "print only the answer: no trace on stderr")
		fs.BoolVarP(&f.verbose, "verbose", "v", false, "trace the full prompts and observations")
		fs.BoolVar(&f.stream, "stream", false, "show the model's text as it arrives (default: on when stderr is a terminal)")
		fs.BoolVar(&f.noStream, "no-stream", false, "do not show the model's text as it arrives, even on a terminal")
		fs.BoolVarP(&f.usage, "usage", "u", false, "print the tokens in and out and the model's time after the answer, on stderr")
		fs.BoolVar(&f.json, "json", false, "print the run as JSON Lines events on stdout instead of the answer")
	})
	grouped(fs, "Log and replay flags", func() {
		f.log = addLogFlags(fs, true)
		fs.StringVar(&m.Record, "record", "", "write every model request and response to this JSONL cassette")
		fs.StringVar(&m.Replay, "replay", "", "with --provider replay: the cassette to answer from")
	})
	f.settings = addSettings(fs)
	addYes(fs, f.settings)
	return f
}

// modelOptions is the value of -o: model options, KEY=VALUE, into
// model.Config.Options.
type modelOptions struct {
	m   *model.Config
	set []string
}

func (o *modelOptions) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want KEY=VALUE, or KEY VALUE")
	}
	if o.m.Options == nil {
		o.m.Options = map[string]any{}
	}
	o.m.Options[strings.TrimSpace(k)] = model.OptionValue(v)
	o.set = append(o.set, kv)
	return nil
}

func (o *modelOptions) String() string { return strings.Join(o.set, " ") }
func (o *modelOptions) Type() string   { return "KEY=VALUE" }

// Append, Replace and GetSlice make -o a repeatable setting, a list in
// the config file.
func (o *modelOptions) Append(kv string) error { return o.Set(kv) }
func (o *modelOptions) GetSlice() []string     { return o.set }
func (o *modelOptions) Replace(kvs []string) error {
	o.m.Options, o.set = nil, nil
	for _, kv := range kvs {
		if err := o.Set(kv); err != nil {
			return err
		}
	}
	return nil
}

// optionPairs writes llm's `-o KEY VALUE` as the flag reads it, `-o
// KEY=VALUE`.
func optionPairs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if (a == "-o" || a == "--option") && i+2 < len(args) && !strings.Contains(args[i+1], "=") {
			out = append(out, args[i+1]+"="+args[i+2])
			i += 2
		}
	}
	return out
}

// addModelFlags adds the flags that say which model server to talk to
// and, with sampling, which model and how it samples.
func addModelFlags(fs *pflag.FlagSet, m *model.Config, sampling bool) {
	grouped(fs, "Model flags", func() {
		fs.StringVar(&m.Provider, "provider", "ollama", "model provider: "+strings.Join(model.Names(), ", "))
		if sampling {
			ollama, _ := model.Lookup("ollama")
			fs.StringVarP(&m.Model, "model", "m", "", fmt.Sprintf("model name (default: %s on ollama, the provider's own elsewhere)", ollama.DefaultModel))
		}
		fs.StringVar(&m.BaseURL, "base-url", "", "server URL (default: OLLAMA_HOST or http://127.0.0.1:11434 for ollama, OPENAI_BASE_URL for openai); with --provider openai, any OpenAI-compatible server")
		fs.StringVar(&m.APIKey, "api-key", "", "API key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY); a local server needs none")
		if sampling {
			fs.IntVar(&m.NumCtx, "num-ctx", model.DefaultNumCtx, "context window asked of Ollama and llamafile, in tokens")
			fs.IntVar(&m.MaxTokens, "max-tokens", model.DefaultMaxTokens, "tokens one reply may hold, sent on every call (-1: the server's own bound); a reply cut at it is never an answer")
			fs.Float64Var(&m.Temperature, "temperature", 0, "sampling temperature")
			fs.VarP(&modelOptions{m: m}, "option", "o", "a model option sent as it is with every call, `KEY=VALUE` or KEY VALUE, such as -o repeat_penalty 1.1 (repeatable; a JSON number, boolean, list or object is sent as one)")
		}
		fs.Int64Var(&m.MaxReplyBytes, "max-reply", model.DefaultMaxReplyBytes, "bytes one reply of the model server may hold; a larger one is an error")
		fs.DurationVar(&m.IdleTimeout, "idle-timeout", model.DefaultIdleTimeout, "time the model server may send nothing, before or within a reply")
	})
}

// cmdCompletion implements `react-agent completion SHELL`: a script that
// asks react-agent itself what may come next (`react-agent __complete
// WORD…`), so that each command's flags and their values are completed
// as the command reads them, and never fall behind.
func cmdCompletion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("completion", "completion bash|zsh|fish", `  source <(react-agent completion bash)           # in ~/.bashrc
  react-agent completion zsh > "${fpath[1]}/_react-agent"
  react-agent completion fish > ~/.config/fish/completions/react-agent.fish
`, stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: completion takes the name of a shell: bash, zsh or fish", errUsage)
	}
	script, ok := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}[fs.Arg(0)]
	if !ok {
		return fmt.Errorf("%w: completion: unknown shell %q; use bash, zsh or fish", errUsage, fs.Arg(0))
	}
	_, err := io.WriteString(stdout, script)
	return err
}

// The completion scripts pass the words of the command line up to the
// cursor to `react-agent __complete`, which prints one candidate a line
// (with a description after a tab) and "::files" when file names fit.
const (
	bashCompletion = `# bash completion for react-agent
_react_agent() {
	local line=${COMP_LINE:0:COMP_POINT} IFS=$' \t\n'
	local -a words
	if [[ -n $line ]]; then
		read -r -a words <<< "$line"
		[[ $line == *[[:space:]] ]] && words+=("")
	else
		words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
	fi
	local cur=${words[${#words[@]}-1]} bcur=${COMP_WORDS[COMP_CWORD]}
	local prefix=${cur%"$bcur"} out cand
	out=$(command react-agent __complete "${words[@]:1}" 2>/dev/null) || return
	COMPREPLY=()
	while IFS= read -r cand; do
		case $cand in
		::files) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- "$bcur")) ;;
		*) COMPREPLY+=("${cand%%$'\t'*}") ;;
		esac
	done <<< "$out"
	[[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
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

// cmdComplete implements `react-agent __complete WORD…`: what may come at
// the last word, which the cursor is at (empty after a space).
func cmdComplete(words []string, stdout io.Writer) error {
	if len(words) == 0 {
		words = []string{""}
	}
	cands, files := completions(words)
	w := bufio.NewWriter(stdout)
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

// completions returns what may come at the last of words: the commands,
// a command's flags, a flag's values or a command's arguments, those
// that start with what is typed; files is true when a file's name fits.
func completions(words []string) (cands []candidate, files bool) {
	cur, before := words[len(words)-1], words[:len(words)-1]
	if len(before) > 0 && before[len(before)-1] == "=" && len(before) > 1 {
		// bash cut "--flag=value" at the "=": put it together again.
		cur, before = before[len(before)-2]+"="+cur, before[:len(before)-2]
	}
	cmd, fs, args := "", flagsOf("ask"), before
	if _, i := leadingFlags(fs, before); i < len(before) {
		cmd = "ask"
		if isCommand(before[i]) {
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
			vals, fl := flagValues(cmd, f, args)
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
			vals, fl := flagValues(cmd, f, args)
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
	positional := 0
	for _, a := range args[i:] {
		if !strings.HasPrefix(a, "-") {
			positional++
		}
	}
	switch cmd {
	case "":
		var all []candidate
		for _, c := range overview {
			if c.name != "help" && c.name != "version" {
				all = append(all, candidate{c.name, c.does})
			}
		}
		return matching(all, cur), false
	case "help":
		var all []candidate
		for _, c := range overview {
			if c.name != "help" && c.name != "version" && positional == 0 {
				all = append(all, candidate{c.name, c.does})
			}
		}
		return matching(all, cur), false
	case "completion":
		if positional == 0 {
			return matching([]candidate{{"bash", ""}, {"zsh", ""}, {"fish", ""}}, cur), false
		}
	case "logs":
		if positional == 0 {
			return matching([]candidate{{"show", "print a conversation whole"}, {"delete", "delete a conversation"},
				{"path", "where the log is"}}, cur), false
		}
	case "tool":
		if positional == 0 {
			var all []candidate
			for _, t := range tools.Catalog().List() {
				all = append(all, candidate{t.Name(), firstLine(t.Description())})
			}
			return matching(all, cur), false
		}
	case "eval":
		return nil, true
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

// flagValues returns the values the flag f of the command cmd may take,
// given the other arguments of the command line; files is true when it
// takes a file.
func flagValues(cmd string, f *pflag.Flag, args []string) (vals []candidate, files bool) {
	words := func(ws ...string) []candidate {
		for _, w := range ws {
			vals = append(vals, candidate{w, ""})
		}
		return vals
	}
	switch f.Name {
	case "provider":
		return words(model.Names()...), false
	case "protocol":
		if cmd == "eval" { // several, comma-separated
			return words(evalpkg.Text, evalpkg.Constrained, evalpkg.Native, "text,constrained,native"), false
		}
		return words(string(agent.ProtocolText), string(agent.ProtocolNative), string(agent.ProtocolAuto)), false
	case "constrain":
		return words(string(agent.ConstrainAuto), string(agent.ConstrainOn), string(agent.ConstrainOff)), false
	case "lang":
		return words(prompt.Languages()...), false
	case "search-engine":
		return words(tools.EngineDuckDuckGo, tools.EngineSearXNG), false
	case "model":
		return words(servedModels(args)...), false
	case "attach", "record", "replay", "log-db", "config", "tools", "score":
		return nil, true
	}
	_, isPath := f.Annotations[pathAnnotation]
	return nil, isPath
}

// servedModels returns the models the server that args name serves, or
// none when it does not answer within a second: completion must not hang.
func servedModels(args []string) []string {
	fs := pflag.NewFlagSet("ask", pflag.ContinueOnError)
	f, _ := addAskFlags(fs)
	fs.Parse(args) // what is wrong in a line being written is no matter here
	if applySettings(fs, f.config) != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	names, _ := model.List(ctx, f.model)
	return names
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

// modelsFlags are the flags of models.
type modelsFlags struct {
	model  model.Config
	config string
	json   bool
}

// addModelsFlags adds the flags of models to fs.
func addModelsFlags(fs *pflag.FlagSet) *modelsFlags {
	f := &modelsFlags{}
	addModelFlags(fs, &f.model, false)
	grouped(fs, "Output flags", func() {
		fs.BoolVar(&f.json, "json", false, `print a JSON list, [{"name": …}], rather than a name a line`)
	})
	addConfigFlag(fs, &f.config)
	return f
}

// cmdModels implements `react-agent models`: the models the provider's
// server serves, one a line.
func cmdModels(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("models", "models [flags]", `  react-agent models
  react-agent models --provider openai --base-url http://127.0.0.1:8080
  react-agent models --json
`, stdout, stderr)
	f := addModelsFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: models takes no arguments, got %q", errUsage, fs.Args())
	}
	if err := applySettings(fs, f.config); err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	names, err := model.List(ctx, f.model)
	if errors.Is(err, model.ErrUnknownProvider) {
		return fmt.Errorf("%w: --provider: %v", errUsage, err)
	}
	if err != nil {
		return interrupted(ctx, err)
	}
	if f.json {
		type entry struct {
			Name string `json:"name"`
		}
		list := []entry{}
		for _, n := range names {
			list = append(list, entry{n})
		}
		return writeJSON(stdout, list)
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "react-agent: the server serves no model yet")
	}
	for _, n := range names {
		fmt.Fprintln(stdout, forTerminal(stdout, n))
	}
	return nil
}

// writeJSON writes v to w as indented JSON, with <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cmdSettings implements `react-agent settings`: the settings of ask and
// chat after the flags, the environment and the config file, each with
// where its value came from.
func cmdSettings(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("settings", "settings [flags]", `  react-agent settings
  REACT_AGENT_MODEL=llama3.2 react-agent settings --config ./config.yaml
`, stdout, stderr)
	f := addAgentFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: settings takes no arguments, got %q", errUsage, fs.Args())
	}
	if err := applySettings(fs, f.config); err != nil {
		return err
	}
	if f.model.Replay != "" && !fs.Changed("provider") {
		f.model.Provider = "replay" // as ask reads it
	}
	resolved, rerr := model.Resolve(context.Background(), f.model)
	prov, _ := model.Lookup(f.model.Provider)
	if rerr != nil {
		resolved.Model = prov.DefaultModel
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, name := range settingNames(fs) {
		fl := fs.Lookup(name)
		value, source := fl.Value.String(), "default"
		switch from := fl.Annotations[sourceAnnotation]; {
		case len(from) > 0:
			source = from[0]
		case fl.Changed:
			source = "command line"
		}
		// What an empty or automatic value comes to, and from where.
		switch {
		case source != "default":
		case name == "model":
			value, source = resolved.Model, "default of "+prov.Name
		case name == "base-url" && prov.URLEnv != "" && os.Getenv(prov.URLEnv) != "":
			value, source = resolved.URL, prov.URLEnv
		case name == "base-url" && resolved.URL != "":
			value, source = resolved.URL, "default of "+prov.Name
		case name == "api-key" && prov.KeyEnv != "" && os.Getenv(prov.KeyEnv) != "":
			source = prov.KeyEnv
		case name == "stream" && !f.noStream:
			value, source = strconv.FormatBool(isTerminal(stderr)), "default: on when stderr is a terminal"
		}
		switch {
		case name == "api-key" && (value != "" || source != "default"):
			value = "(set)"
		case name == "api-key":
			value = "(none)"
		}
		fmt.Fprintf(w, "%s=%s\t(%s)\n", name, forTerminal(stdout, value), source)
	}
	if rerr != nil {
		fmt.Fprintf(stderr, "react-agent: %s\n", trace.Visible(advise(rerr)))
	}
	return nil
}

// session is what ask and chat run with: the agent, its tools and the
// trace on stderr.
type session struct {
	flags   *agentFlags
	agent   *agent.Agent
	reg     *tools.Registry
	trace   *trace.Trace // nil with -q
	log     *runLog      // nil with --no-log
	stdout  io.Writer
	stderr  io.Writer
	closeFn func()
}

// newSession reads the settings into the flags and builds the agent they
// describe.
func newSession(ctx context.Context, fs *pflag.FlagSet, f *agentFlags, stdin io.Reader, stdout, stderr io.Writer, extra ...agent.Option) (*session, error) {
	if err := applySettings(fs, f.config); err != nil {
		return nil, err
	}
	if f.quiet && f.verbose {
		return nil, fmt.Errorf("%w: --quiet and --verbose contradict each other; pass one", errUsage)
	}
	if f.maxIterations < 1 {
		return nil, fmt.Errorf("%w: --max-iterations must be at least 1, got %d", errUsage, f.maxIterations)
	}
	topts := f.tools()
	reg, err := builtins(topts)
	if err != nil {
		return nil, err
	}
	tmpl, err := prompt.ForLang(f.lang)
	if err != nil && f.promptFile == "" {
		return nil, fmt.Errorf("%w: --lang: %v", errUsage, err)
	}
	if f.promptFile != "" {
		if tmpl, err = prompt.ParseFile(f.promptFile); err != nil {
			return nil, err
		}
	}
	// The log comes before the model: a continued conversation brings
	// its provider, model and server.
	servers, err := mcpServers(f.settings)
	if err != nil {
		return nil, err
	}
	rl, err := openRunLog(ctx, fs, f, servers, stderr)
	if err != nil {
		return nil, err
	}
	built := false
	defer func() {
		if !built {
			rl.close(stderr)
		}
	}()
	if f.model.Replay != "" && !fs.Changed("provider") {
		f.model.Provider = "replay" // --replay FILE says where the answers come from
	}
	protocol, err := parseProtocol(f.protocol)
	if err != nil {
		return nil, err
	}
	f.model.ToolCalling = protocol != agent.ProtocolText
	constrain, err := parseConstrain(f.constrain, protocol)
	if err != nil {
		return nil, err
	}
	m, err := model.New(ctx, f.model)
	if errors.Is(err, model.ErrUnknownProvider) {
		return nil, fmt.Errorf("%w: --provider: %v", errUsage, err)
	}
	if err != nil {
		return nil, err
	}
	if mode, _ := model.Constraining(ctx, m); constrain == agent.ConstrainOn && mode == model.ModeNone {
		return nil, fmt.Errorf("%w: --constrain on: %v: %s", errUsage, model.ErrCannotConstrain, constrainAdvice)
	}
	in, out, closeTTY := confirmTerminal(stdin, stderr)
	s := &session{flags: f, reg: reg, stdout: stdout, stderr: stderr, closeFn: closeTTY}
	opts := []agent.Option{
		agent.WithMaxIterations(f.maxIterations),
		agent.WithProtocol(protocol),
		agent.WithConstrain(constrain),
		agent.WithTemplate(tmpl),
		agent.WithSystem(f.system),
		agent.WithHooks(agent.Confirmation(reg, onOwnLine{tools.NewTerminalConfirmer(in, out, f.yes), s})),
	}
	if f.timeout > 0 {
		opts = append(opts, agent.WithTimeout(f.timeout))
	}
	switch {
	case f.noStop && len(f.stops) > 0:
		return nil, fmt.Errorf("%w: --stop and --no-stop contradict each other; pass one", errUsage)
	case f.noStop:
		opts = append(opts, agent.WithStopSequences())
	case len(f.stops) > 0:
		opts = append(opts, agent.WithStopSequences(f.stops...))
	}
	if f.json {
		opts = append(opts, agent.WithEvents(advised(event.JSONLines(stdout))))
	}
	// --json on a terminal shows the events alone: the trace would
	// interleave with them on the same screen.
	jsonOnScreen := f.json && isTerminal(stdout) && isTerminal(stderr) && !f.verbose
	if !f.quiet && !jsonOnScreen {
		tty := isTerminal(stderr)
		s.trace = trace.New(stderr,
			trace.Color(tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"),
			trace.Spinner(tty && os.Getenv("TERM") != "dumb"), // a dumb terminal cannot redraw a line
			trace.Verbose(f.verbose))
		opts = append(opts, agent.WithEvents(advised(s.trace.Event)))
		if !f.noStream && (f.stream || (tty && !fs.Changed("stream"))) {
			opts = append(opts, agent.WithStreaming(s.trace.Token))
		}
	}
	if s.log = rl; rl != nil {
		rl.Use(runMeta(f))
		opts = append(opts, agent.WithEvents(rl.Event))
	}
	closeTools, err := startMCP(ctx, servers, f.settings, reg, stderr)
	if err != nil {
		closeTTY()
		return nil, interrupted(ctx, err)
	}
	s.closeFn = func() { closeTools(); closeTTY() }
	s.agent = agent.New(m, reg, append(opts, extra...)...)
	built = true
	return s, nil
}

// parseProtocol reads --protocol.
func parseProtocol(s string) (agent.Protocol, error) {
	switch p := agent.Protocol(strings.ToLower(strings.TrimSpace(s))); p {
	case agent.ProtocolText, agent.ProtocolNative, agent.ProtocolAuto:
		return p, nil
	}
	return "", fmt.Errorf("%w: --protocol must be text, native or auto, got %q", errUsage, s)
}

// parseConstrain reads --constrain, which binds only the text protocol.
func parseConstrain(s string, protocol agent.Protocol) (agent.Constrain, error) {
	switch c := agent.Constrain(strings.ToLower(strings.TrimSpace(s))); c {
	case agent.ConstrainAuto, agent.ConstrainOff:
		return c, nil
	case agent.ConstrainOn:
		if protocol != agent.ProtocolText {
			return "", fmt.Errorf("%w: --constrain on binds the text protocol; pass --protocol text, or --constrain auto", errUsage)
		}
		return c, nil
	}
	return "", fmt.Errorf("%w: --constrain must be auto, on or off, got %q", errUsage, s)
}

// constrainAdvice says which servers bind steps to the tools.
const constrainAdvice = "steps are bound by --provider llamacpp (llama-server), --provider vllm or sglang " +
	"(or --provider openai, which finds llama-server, vLLM and SGLang by their /v1/models), and with --constrain on also by Ollama, " +
	"LM Studio and OpenAI; pass --constrain auto or off to run without"

// onOwnLine is a confirmer whose questions start a line of their own,
// after whatever the trace streamed.
type onOwnLine struct {
	*tools.TerminalConfirmer
	s *session
}

func (c onOwnLine) Confirm(ctx context.Context, prompt string) (bool, error) {
	return c.ConfirmTool(ctx, "", prompt)
}

func (c onOwnLine) ConfirmTool(ctx context.Context, name, prompt string) (bool, error) {
	if c.s.trace != nil {
		c.s.trace.EndLine()
	}
	return c.TerminalConfirmer.ConfirmTool(ctx, name, prompt)
}

// close stops the trace's spinner and closes the terminal opened for
// confirmations.
func (s *session) close() {
	if s.trace != nil {
		s.trace.Close()
	}
	s.log.close(s.stderr)
	s.closeFn()
}

// report prints a run's answer (unless --json, whose events carry it) and
// returns the command's error: nil for a real final answer. A run's own
// error is printed here only when there is no trace, which shows it.
func (s *session) report(res *agent.Result, err error) error {
	if s.trace != nil {
		s.trace.EndLine() // what follows starts a line of its own
	}
	// On a terminal that shows the trace, the trace's final answer is the
	// answer, shown once; stdout elsewhere (a pipe, a file) has it alone.
	shown := s.trace != nil && isTerminal(s.stdout) && isTerminal(s.stderr)
	if !s.flags.json && res != nil && res.Answer != "" && !shown {
		fmt.Fprintln(s.stdout, forTerminal(s.stdout, res.Answer))
	}
	if s.flags.usage && res != nil {
		var modelTime time.Duration
		for _, st := range res.Steps {
			modelTime += st.ModelDuration
		}
		u := res.Usage
		fmt.Fprintf(s.stderr, "usage: %d tokens in, %d out, %d model calls, %s of model time\n",
			u.PromptTokens, u.CompletionTokens, len(res.Steps), modelTime.Round(time.Millisecond))
	}
	switch {
	case err == nil && !res.Forced:
		return nil
	case err == nil:
		if s.trace != nil {
			fmt.Fprintf(s.stderr, "react-agent: no final answer of the model's own: the run stopped at %s, and the answer above was asked for then\n", res.StopReason)
		}
		return exitError(exitNoAnswer)
	case res != nil && res.StopReason == event.StopCancelled:
		if s.trace == nil {
			fmt.Fprintln(s.stderr, "react-agent: interrupted")
		}
		return exitError(exitInterrupted)
	}
	if s.trace == nil {
		fmt.Fprintf(s.stderr, "react-agent: %s\n", trace.Visible(advise(err)))
	}
	if errors.Is(err, agent.ErrNoAnswer) || errors.Is(err, agent.ErrRepeatedParseError) {
		return exitError(exitNoAnswer)
	}
	return exitError(exitFailure)
}

// addAskFlags adds the flags of ask to fs: chat's, and the files to
// attach.
func addAskFlags(fs *pflag.FlagSet) (*agentFlags, *[]string) {
	var attach []string
	grouped(fs, "Input flags", func() {
		fs.StringArrayVarP(&attach, "attach", "a", nil, "a file the model gets with the question: a text, or an image (PNG, JPEG, WebP, GIF) for models that see (repeatable)")
	})
	return addAgentFlags(fs), &attach
}

// cmdAsk implements `react-agent ask QUESTION` and the bare form.
func cmdAsk(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("ask", "[ask] [flags] QUESTION   (QUESTION \"-\" or none: read it from stdin)", `  react-agent ask --provider replay --replay testdata/agent/demo.jsonl "What is 17 * 23 + 4?"
  react-agent "What is the population of Tokyo divided by 1000?"
  react-agent --provider openai --base-url http://127.0.0.1:8080 "Who wrote Dune?"
  echo "Who wrote Dune?" | react-agent ask -q
  react-agent --json "What is 2**10?" > events.jsonl

Exit status: 0 answered, 1 failed (model unreachable, …), 2 usage error,
3 no real final answer (a limit was reached; a forced answer is still
printed), 130 interrupted.
`, stdout, stderr)
	f, attach := addAskFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	ctx, stop := interruptible()
	defer stop()
	budget := &attachBudget{left: maxAttached}
	var given []attachment
	switch {
	case question == "-" || (question == "" && !isTerminal(stdin)):
		a, err := readAttachment(ctx, stdin, "stdin", budget)
		if err != nil {
			return interrupted(ctx, err)
		}
		if a.mime != "" {
			return fmt.Errorf("%w: stdin holds an image (%s) and no question; write the question after the flags", errUsage, a.mime)
		}
		question = strings.TrimSpace(a.text)
	case !isTerminal(stdin):
		// A question and piped text: the text is what to work on.
		a, err := readAttachment(ctx, stdin, "stdin", budget)
		if err != nil {
			return interrupted(ctx, err)
		}
		if a.mime != "" || strings.TrimSpace(a.text) != "" {
			given = append(given, a)
		}
	}
	if question == "" {
		return fmt.Errorf("%w: no question; write it after the flags, as in: react-agent \"What is 17 * 23?\", or pipe it to stdin", errUsage)
	}
	files, err := attachFiles(ctx, *attach, budget)
	if err != nil {
		return interrupted(ctx, err)
	}
	given = append(given, files...)
	var images []agent.Image
	for _, a := range given {
		if a.mime != "" {
			images = append(images, agent.Image{MIMEType: a.mime, Data: a.data})
		}
	}
	texts := withAttachments(given)
	s, err := newSession(ctx, fs, f, stdin, stdout, stderr, agent.WithImages(images...))
	if err != nil {
		return err
	}
	defer s.close()
	if s.log == nil || len(s.log.turns) == 0 {
		// One question, not the next of a conversation: its events carry
		// no turn.
		return s.report(s.log.run(question, texts, func() (*agent.Result, error) { return s.agent.Run(ctx, question+texts) }))
	}
	chat := s.log.newChat(s.agent)
	return s.report(s.log.run(question, texts, func() (*agent.Result, error) { return chat.Ask(ctx, question+texts) }))
}

// maxAttached bounds what is piped or attached to a question, in all.
const maxAttached = 1 << 20

// attachment is what is given with the question, piped or a file's: a
// text, or an image for models that see.
type attachment struct {
	name string
	text string // a text's content
	mime string // an image's type, empty for a text
	data []byte // an image's bytes
}

// attachBudget is what is left of maxAttached.
type attachBudget struct{ left int64 }

// take counts n bytes of name against the budget, with a usage error when
// they do not fit.
func (b *attachBudget) take(name string, n int64) error {
	if n > b.left {
		return fmt.Errorf("%w: with %s, what is given with the question holds more than the %d bytes a question may carry; pass less of it", errUsage, name, maxAttached)
	}
	b.left -= n
	return nil
}

// attachFiles reads the files of -a. Sizes are checked before anything is
// read, so that a thousand large files fail at once; a name that is no
// file (a folder, a socket) is a usage error, and a pipe (a FIFO, or
// <(command)) is read as it comes, until Ctrl-C.
func attachFiles(ctx context.Context, names []string, budget *attachBudget) ([]attachment, error) {
	var total int64
	for _, name := range names {
		info, err := os.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: -a %s: no such file", errUsage, name)
		case err != nil:
			return nil, fmt.Errorf("%w: -a %s: %v", errUsage, name, errors.Unwrap(err))
		case info.IsDir():
			return nil, fmt.Errorf("%w: -a %s is a folder; attach its files, as in -a %s", errUsage, name, filepath.Join(name, "notes.txt"))
		case info.Mode().IsRegular():
			if total += info.Size(); total > budget.left {
				return nil, fmt.Errorf("%w: the attached files hold %d bytes or more, past the %d a question may carry; pass less of them", errUsage, total, maxAttached)
			}
		case info.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) == 0:
			return nil, fmt.Errorf("%w: -a %s is not a file (%s); attach a file, or pipe what it holds to stdin", errUsage, name, info.Mode().Type())
		}
	}
	var out []attachment
	for _, name := range names {
		// Not blocking on open: a FIFO nobody writes to opens at once
		// and reads as empty.
		f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: -a %s: %v", errUsage, name, errors.Unwrap(err))
		}
		a, err := readAttachment(ctx, f, name, budget)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// readAttachment reads what r holds, within the budget: a text, or an
// image (PNG, JPEG, GIF, WebP). Other binary content is a usage error.
// Reading stops when ctx ends.
func readAttachment(ctx context.Context, r io.Reader, name string, budget *attachBudget) (attachment, error) {
	if f, ok := r.(*os.File); ok {
		stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
		defer stop()
	}
	b, err := io.ReadAll(io.LimitReader(r, budget.left+1))
	if ctx.Err() != nil {
		return attachment{}, ctx.Err()
	}
	if err != nil {
		return attachment{}, fmt.Errorf("ask: reading %s: %w", name, err)
	}
	if err := budget.take(name, int64(len(b))); err != nil {
		return attachment{}, err
	}
	switch kind := http.DetectContentType(b); {
	case kind == "image/png", kind == "image/jpeg", kind == "image/gif", kind == "image/webp":
		return attachment{name: name, mime: kind, data: b}, nil
	case strings.HasPrefix(kind, "text/"), len(b) == 0:
		return attachment{name: name, text: strings.ToValidUTF8(string(b), "\uFFFD")}, nil
	default:
		return attachment{}, fmt.Errorf("%w: %s is not text but %s; attach text files, or images (PNG, JPEG, GIF, WebP) for models that see", errUsage, name, strings.TrimSuffix(kind, "; charset=utf-8"))
	}
}

// withAttachments renders the texts given with a question, to follow it:
// the question is what to do, they are what to do it with. An image is
// named, in its place; it goes with the question's message.
func withAttachments(given []attachment) string {
	var b strings.Builder
	for _, t := range given {
		if t.mime != "" {
			fmt.Fprintf(&b, "\n\n--- %s: an image (%s, %d KB), attached ---", t.name, t.mime, (len(t.data)+1023)/1024)
			continue
		}
		fmt.Fprintf(&b, "\n\n--- %s ---\n%s", t.name, strings.TrimRight(t.text, "\n"))
	}
	return b.String()
}

const chatHelp = `/tools  list the tools
/reset  forget the conversation
/exit   end the session (or exit, quit, Ctrl-D)
/help   this list
`

// cmdChat implements `react-agent chat`: questions from stdin, one a line,
// answered with the conversation so far in memory.
func cmdChat(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("chat", "chat [flags]   (one question a line; /tools, /reset, /exit)", `  react-agent chat
  react-agent chat --provider openai --base-url http://127.0.0.1:8080
  printf 'What is 2+2?\nAnd times 10?\n' | react-agent chat -q

In a session:
`+chatHelp+`
Ctrl-C stops the answer being written; at the prompt it clears the line.
`, stdout, stderr)
	f := addAgentFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: chat reads its questions from stdin and takes no arguments; use ask for one question", errUsage)
	}
	// Ctrl-C stops an answer, not the session: it is caught from the
	// start, so that one pressed while the MCP servers start ends the
	// session in order, closing them.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	s, err := newSession(context.Background(), fs, f, stdin, stdout, stderr)
	if err != nil {
		return err
	}
	defer s.close()

	chat := s.log.newChat(s.agent)
	interactive := isTerminal(stdin)
	if interactive {
		fmt.Fprintln(stderr, "Ask a question. /help lists the commands; /exit or Ctrl-D ends the session.")
	}
	var read func() (*string, error)
	if f, ok := stdin.(*os.File); ok && interactive && f == os.Stdin {
		// A person at a terminal: line editing, history (arrow keys,
		// Ctrl-R) and lines continued with a backslash.
		edit := liner.NewLiner()
		defer edit.Close()
		// Ctrl-C clears the line being typed, as in a shell; Ctrl-D or
		// /exit ends the session.
		edit.SetCtrlCAborts(false)
		read = func() (*string, error) {
			type result struct {
				line *string
				err  error
			}
			done := make(chan result, 1)
			go func() {
				line, err := editLine(edit)
				done <- result{line, err}
			}()
			select {
			case r := <-done:
				return r.line, r.err
			case <-sigs: // Ctrl-C before the terminal was put in raw mode
				return nil, errInterrupted
			}
		}
	} else {
		lines := bufio.NewScanner(stdin)
		lines.Buffer(nil, 1<<20)
		read = func() (*string, error) {
			if interactive {
				fmt.Fprint(stderr, "> ")
			}
			return nextLine(lines, sigs)
		}
	}
	var failed error
	for {
		line, err := read()
		if errors.Is(err, errInterrupted) {
			fmt.Fprintln(stderr)
			return exitError(exitInterrupted)
		}
		if err != nil {
			return fmt.Errorf("chat: reading stdin: %w", err)
		}
		if line == nil {
			if interactive {
				fmt.Fprintln(stderr)
			}
			return failed
		}
		switch q := strings.TrimSpace(*line); {
		case q == "":
		case q == "/exit" || q == "/quit" || strings.EqualFold(q, "exit") || strings.EqualFold(q, "quit"):
			return failed
		case q == "/reset":
			chat.Reset()
			s.log.restart()
			fmt.Fprintln(stderr, "(the conversation is forgotten)")
		case q == "/tools":
			if err := tools.FormatList(stderr, s.reg); err != nil { // stdout is for answers
				return err
			}
		case q == "/help":
			fmt.Fprint(stderr, chatHelp)
		case strings.HasPrefix(q, "/") && !strings.Contains(q, " "):
			fmt.Fprintf(stderr, "unknown command %s; the commands are:\n%s", q, chatHelp)
		default:
			// A script's chat fails when a question does; a person at
			// the terminal has seen each failure already.
			if err := s.askInChat(chat, q, sigs); err != nil && !interactive {
				failed = err
			}
		}
	}
}

// editLine reads one question at the terminal with line editing and
// history. A line ending in a backslash goes on on the next line, so that
// a question may span several. Ctrl-C returns errInterrupted, Ctrl-D (on
// an empty line) a nil question.
func editLine(edit *liner.State) (*string, error) {
	var parts []string
	prompt := "> "
	for {
		line, err := edit.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			return nil, errInterrupted
		case errors.Is(err, io.EOF):
			return nil, nil
		case err != nil:
			return nil, err
		}
		if more, ok := strings.CutSuffix(line, "\\"); ok {
			parts, prompt = append(parts, more), ". "
			continue
		}
		q := strings.Join(append(parts, line), "\n")
		if strings.TrimSpace(q) != "" {
			// The history holds lines: a question of several comes
			// back as one, which the editor can show and edit.
			edit.AppendHistory(strings.Join(strings.Fields(q), " "))
		}
		return &q, nil
	}
}

// nextLine reads one line, or returns errInterrupted when a signal comes
// first. It returns a nil line at the end of input. Nothing is read ahead
// of the prompt, so a shell confirmation can read the terminal meanwhile.
func nextLine(sc *bufio.Scanner, sigs <-chan os.Signal) (*string, error) {
	done := make(chan bool, 1)
	go func() { done <- sc.Scan() }()
	select {
	case <-sigs:
		return nil, errInterrupted
	case ok := <-done:
		if !ok {
			return nil, sc.Err()
		}
		line := sc.Text()
		return &line, nil
	}
}

// askInChat answers one question of a chat; Ctrl-C cancels it and the
// session goes on.
func (s *session) askInChat(chat *agent.Chat, question string, sigs <-chan os.Signal) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	return s.report(s.log.run(question, "", func() (*agent.Result, error) { return chat.Ask(ctx, question) }))
}

// forTerminal returns text from outside as it may be shown on w: with its
// control characters made visible when w is a terminal, and unchanged in
// a pipe or a file, where a script reads it byte for byte.
func forTerminal(w io.Writer, text string) string {
	if isTerminal(w) {
		return trace.Visible(text)
	}
	return text
}

// isTerminal reports whether f, a reader or a writer, is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// advise returns err's message with what to change on the command line,
// for people: the libraries' errors name no flags.
func advise(err error) string { return adviseStop(err, "") }

// adviseStop is advise for the error of a run that stopped for stop.
func adviseStop(err error, stop event.StopReason) string {
	msg := err.Error()
	var me *model.Error
	var mcpStart *mcp.StartError
	var mcpConfig *mcp.ConfigError
	var more string
	switch {
	case errors.Is(err, agent.ErrToolsRefused):
		more = "pass --protocol text (or auto), or use a model whose server supports tool calling"
	case errors.Is(err, agent.ErrTokenLimit):
		more = "raise --max-tokens (or the server's own bound on a reply), or ask for a shorter answer"
	case errors.Is(err, agent.ErrNoAnswer) && errors.Is(err, context.DeadlineExceeded):
		msg, more = "the time limit of the run ran out before the model gave an answer", "raise --timeout to allow more"
	case errors.Is(err, model.ErrCannotConstrain):
		more = constrainAdvice
	case errors.As(err, &me):
		msg, more = modelAdvice(me, msg)
	case errors.As(err, &mcpStart) && errors.Is(err, context.DeadlineExceeded):
		more = "a server that is fetched when it starts (npx -y …) may need longer the first time: run its command once in a terminal, then try again"
	case errors.As(err, &mcpStart) && mcpStart.URL != "":
		more = "check that the server is up at that address, and its url and headers in the file given with --mcp-config (or the mcp section of --tools-config)"
	case errors.As(err, &mcpStart):
		more = "run its command in a terminal to see why, then fix it in the file given with --mcp-config (or the mcp section of --tools-config), or leave the server out"
	case errors.As(err, &mcpConfig) && errors.Is(err, mcp.ErrNoServers):
		more = "--mcp-config takes a file of MCP servers"
	case errors.As(err, &mcpConfig):
		more = "fix the file given with --mcp-config (or the mcp section of --tools-config)"
	case errors.Is(err, mcp.ErrServerStopped):
		more = "run the server's command in a terminal to see why it stops"
	case errors.Is(err, model.ErrNoImages):
		more = "for llama-server, pass --provider openai with its address (http://127.0.0.1:8080/v1), whose models may see images"
	case errors.Is(err, mcp.ErrReplyTooLarge):
		more = "the server sent more than react-agent reads from one reply; ask less of the tool, or check the server"
	case errors.Is(err, agent.ErrContextWindow):
		more = "raise --num-ctx or lower --max-observation"
	case errors.Is(err, tools.ErrShellDisabled):
		// The tool's own message is written for the model.
		msg, more = "shell: "+tools.ErrShellDisabled.Error(), "pass --allow-shell to let the agent run shell commands"
	case errors.Is(err, tools.ErrNoConfirmer):
		more = "pass --yes to allow tool commands without asking"
	case errors.Is(err, tools.ErrTimeout):
		more = "raise --tool-timeout to allow more"
	case errors.Is(err, tools.ErrBlockedAddress):
		more = "pass --allow-private-network to allow them"
	case errors.Is(err, tools.ErrSearchRefused):
		more = "or use --search-engine searxng"
	case errors.Is(err, agent.ErrRepeatedParseError):
		// The parser's message is the model's, with the format spelled
		// out; the trace (or -v) shows it.
		msg = agent.ErrRepeatedParseError.Error()
		if n := timesInARow.FindString(err.Error()); n != "" {
			msg += ", " + n
		}
		more = "the model does not follow the reply format: try another model, --lang zh for a model that answers in Chinese, or a lower --temperature"
	case stop == event.StopRepeatedCall:
		more = "the model kept making the same call: try another model"
	case stop == event.StopMaxIterations:
		more = "raise --max-iterations to allow more"
	case stop == event.StopTimeout:
		more = "raise --timeout to allow more"
	}
	if more == "" {
		return msg
	}
	return msg + "; " + more
}

// modelAdvice rewrites the message of a model error for people, and says
// which flag changes what its Fix names.
func modelAdvice(e *model.Error, msg string) (string, string) {
	p, _ := model.Lookup(e.Provider)
	if cause := networkCause(e); cause != "" && e.Hint != "" {
		// What could not be reached and why, without the client's
		// request line: "cannot reach Ollama at URL (connection refused)".
		what, todo, _ := strings.Cut(e.Hint, ": ")
		msg = fmt.Sprintf("%s: %s (%s)", e.Provider, what, cause)
		if todo != "" {
			msg += ": " + todo
		}
	}
	switch e.Fix {
	case "APIKey":
		if errors.Is(e, model.ErrNoAPIKey) {
			msg = fmt.Sprintf("%s: no API key: set %s or pass --api-key", e.Provider, p.KeyEnv)
			if e.URL != "" {
				return msg, fmt.Sprintf("for a local OpenAI-compatible server, pass its --base-url (%s is not local)", e.URL)
			}
			return msg, ""
		}
		return msg, "or pass --api-key"
	case "BaseURL":
		if p.URLEnv != "" && e.Provider == "ollama" {
			return msg, fmt.Sprintf("or point --base-url (or %s) at your server", p.URLEnv)
		}
		return msg, "check --base-url"
	case "Model":
		switch {
		case e.StatusCode == 404 && e.Provider == "ollama":
			return msg, "or choose another with --model"
		case e.StatusCode == 404:
			return msg, "check --model, and that --base-url ends in /v1 for OpenAI-compatible servers"
		}
		return msg, "check --model and the sampling options"
	case "Timeout":
		return msg, "raise --timeout"
	case "NumCtx":
		return msg, "raise --num-ctx (if the model allows it), or lower --max-observation"
	case "MaxTokens":
		return msg, "raise --max-tokens"
	case "MaxReplyBytes":
		return msg, "raise --max-reply if the reply is meant to be that large"
	case "IdleTimeout":
		return msg, "raise --idle-timeout if the model is slow to start"
	case "Replay":
		return msg, "pass --replay FILE, a cassette written with --record"
	case "Record":
		return msg, "record the run again with --record FILE against a model"
	}
	return msg, ""
}

// timesInARow finds how often the parser failed, in the error of a run
// that ended for it.
var timesInARow = regexp.MustCompile(`(\d+) times in a row`)

// networkCause names in a few words why a server could not be reached,
// or returns "" when err is no network failure.
func networkCause(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host: " + dns.Name
	case errors.As(err, &dns):
		return "the host name could not be looked up"
	case errors.As(err, &op) && op.Timeout():
		return "the connection timed out"
	}
	return ""
}

// advised passes each event on to fn with the message of an error or a
// warning advised for people.
func advised(fn func(event.Event)) func(event.Event) {
	return func(e event.Event) {
		// A retried call's warning stays brief: the advice comes once,
		// with the error that ends the run.
		if e.Kind == event.Error && e.Err != nil || e.Kind == event.Warning && errors.Is(e.Err, agent.ErrContextWindow) {
			e.Text = adviseStop(e.Err, e.StopReason)
		}
		fn(e)
	}
}

// logFlags are the flags of the run log, shared by ask, chat and logs.
type logFlags struct {
	db     string
	off    bool
	resume bool
	cid    string
}

// addLogFlags adds the log flags to fs; with runs, those of ask and chat.
func addLogFlags(fs *pflag.FlagSet, runs bool) *logFlags {
	l := &logFlags{}
	fs.StringVar(&l.db, "log-db", "", "the log database (default: react-agent/logs.db in the user's data directory; see \"react-agent logs path\")")
	if runs {
		fs.BoolVar(&l.off, "no-log", false, "do not log this run")
		fs.BoolVarP(&l.resume, "continue", "c", false, "continue the latest conversation in the log")
		fs.StringVar(&l.cid, "cid", "", "continue the conversation with this ID (or the start of it; see \"react-agent logs\")")
	}
	return l
}

// path returns the log database's path, absolute.
func (l *logFlags) path() (string, error) {
	if l.db != "" {
		return filepath.Abs(l.db)
	}
	return logs.DefaultPath()
}

// runLog records the runs of ask and chat in the log: a logs.Session,
// with the earlier turns of a continued conversation as the agent takes
// them. A nil runLog, as with --no-log, records nothing.
type runLog struct {
	*logs.Session
	turns []agent.Turn
}

// openRunLog opens the log unless it is off, and goes on with the
// conversation that --continue or --cid names, whose provider, model and
// server become those of the run unless the command line says otherwise
// (see continueSettings). A log that cannot be opened is reported on
// stderr, and the run goes on unlogged, unless it was to continue.
func openRunLog(ctx context.Context, fs *pflag.FlagSet, f *agentFlags, servers []mcp.Server, stderr io.Writer) (*runLog, error) {
	l := f.log
	resume := l.resume || l.cid != ""
	if l.off {
		if resume {
			return nil, fmt.Errorf("%w: --continue and --cid read the log, which --no-log (or no-log in the config file) turns off", errUsage)
		}
		return nil, nil
	}
	path, err := l.path()
	var sess *logs.Session
	if err == nil {
		sess, err = logs.OpenSession(ctx, path, logs.WithSecrets(logSecrets(f, servers)...))
	}
	if err != nil {
		if resume {
			return nil, err
		}
		fmt.Fprintf(stderr, "react-agent: not logging this run: %v\n", err)
		return nil, nil
	}
	rl := &runLog{Session: sess}
	if !resume {
		return rl, nil
	}
	switch err := sess.Continue(ctx, l.cid); {
	case errors.Is(err, logs.ErrNotFound) && l.cid == "":
		fmt.Fprintln(stderr, "react-agent: no conversation in the log yet; starting one")
	case err != nil:
		sess.Close()
		return nil, err
	default:
		continueSettings(fs, f, sess)
		for _, t := range sess.Turns() {
			rl.turns = append(rl.turns, agent.Turn{Question: t.Question, Answer: t.Answer})
		}
	}
	return rl, nil
}

// continueSettings gives a continued conversation the provider, model
// and server it had, where the command line names none. As in llm, the
// flags of this command line win; the conversation's own settings win
// over the environment and the config file, which are standing defaults
// rather than a choice for this conversation. A provider named on the
// command line other than the conversation's starts afresh, with its own
// model and server. The API key is never logged: it comes from the flag,
// the environment or the config file, as for any run; when the
// conversation's provider replaces the one the environment or the config
// file named, their base URL and key, meant for that one, are dropped,
// so that the provider's own variables (OPENAI_API_KEY, …) apply.
func continueSettings(fs *pflag.FlagSet, f *agentFlags, sess *logs.Session) {
	last, ok := sess.Continued()
	if !ok || last.Provider == "" || f.model.Replay != "" { // --replay says where answers come from
		return
	}
	onCommandLine := func(name string) bool {
		fl := fs.Lookup(name)
		return fl.Changed && len(fl.Annotations[sourceAnnotation]) == 0
	}
	set := func(name, value string) {
		fs.Set(name, value)
		fs.SetAnnotation(name, sourceAnnotation, []string{"conversation " + sess.ID()})
	}
	if last.Provider != f.model.Provider {
		if onCommandLine("provider") {
			return
		}
		set("provider", last.Provider)
		for _, name := range []string{"base-url", "api-key"} {
			if !onCommandLine(name) {
				set(name, "")
			}
		}
	}
	if !onCommandLine("model") && last.Model != "" {
		set("model", last.Model)
	}
	if !onCommandLine("base-url") && last.BaseURL != "" && !sess.SameServer(baseURL(f)) {
		set("base-url", last.BaseURL)
	}
}

// baseURL is the server's URL as the flags and the provider's variable
// (OLLAMA_HOST, …) give it; empty for the provider's usual address.
func baseURL(f *agentFlags) string {
	if f.model.BaseURL != "" {
		return f.model.BaseURL
	}
	if p, ok := model.Lookup(f.model.Provider); ok && p.URLEnv != "" {
		return os.Getenv(p.URLEnv)
	}
	return ""
}

// runMeta is what the log keeps of the model of a run.
func runMeta(f *agentFlags) logs.Run {
	name := f.model.Model
	if p, ok := model.Lookup(f.model.Provider); ok && name == "" {
		name = p.DefaultModel
	}
	return logs.Run{Provider: f.model.Provider, Model: name, BaseURL: baseURL(f), Protocol: f.protocol}
}

// logSecrets are the strings the log must not keep: the API key in use,
// the keys of every provider's variable, and the headers of MCP servers
// and their environment variables that name a secret.
func logSecrets(f *agentFlags, servers []mcp.Server) []string {
	secrets := []string{f.model.APIKey}
	for _, p := range model.Providers() {
		if p.KeyEnv != "" {
			secrets = append(secrets, os.Getenv(p.KeyEnv))
		}
	}
	for _, srv := range servers {
		secrets = append(secrets, srv.Secrets()...)
		for k, v := range srv.Env {
			if kv := k + "=" + v; model.RedactText(kv) != kv { // GITHUB_TOKEN=…, not ROOT=…
				secrets = append(secrets, v)
			}
		}
	}
	return secrets
}

// run records the run that ask makes of question.
// given is the text piped or attached to the question.
func (l *runLog) run(question, given string, ask func() (*agent.Result, error)) (*agent.Result, error) {
	if l == nil {
		return ask()
	}
	l.Begin(context.Background(), question, given)
	res, err := ask()
	o := logs.Outcome{}
	if res != nil {
		u := res.Usage
		o = logs.Outcome{Answer: res.Answer, StopReason: string(res.StopReason), Duration: res.Duration,
			Usage: logs.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}}
	}
	if err != nil {
		o.Error = err.Error()
	}
	l.End(context.Background(), o)
	return res, err
}

// newChat returns a chat, with the earlier turns of a continued
// conversation.
func (l *runLog) newChat(a *agent.Agent) *agent.Chat {
	chat := agent.NewChat(a, 20)
	if l != nil {
		chat.Resume(l.turns)
	}
	return chat
}

// restart makes the runs that follow a new conversation.
func (l *runLog) restart() {
	if l != nil {
		l.Restart()
	}
}

// close closes the log, and reports the writes that failed.
func (l *runLog) close(stderr io.Writer) {
	if l == nil {
		return
	}
	if err := l.Close(); err != nil {
		fmt.Fprintf(stderr, "react-agent: the run log is incomplete: %v\n", err)
	}
}

// logsFlags are the flags of logs.
type logsFlags struct {
	config, query, model, since string
	log                         *logFlags
	limit                       int
	json                        bool
}

// addLogsFlags adds the flags of logs to fs.
func addLogsFlags(fs *pflag.FlagSet) *logsFlags {
	f := &logsFlags{}
	grouped(fs, "Listing flags", func() {
		fs.IntVarP(&f.limit, "limit", "n", 10, "how many conversations to list (0: all)")
		fs.StringVarP(&f.query, "query", "q", "", "list the conversations that hold all these words (see below)")
		fs.StringVar(&f.model, "model", "", "list the conversations with a model whose name contains this")
		fs.StringVar(&f.since, "since", "", "list the conversations with a run since this time: a date (2026-11-01), or a span back from now (24h, 7d)")
		fs.BoolVar(&f.json, "json", false, "print JSON rather than text")
	})
	grouped(fs, "Log flags", func() { f.log = addLogFlags(fs, false) })
	addConfigFlag(fs, &f.config)
	return f
}

// cmdLogs implements `react-agent logs`.
func cmdLogs(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("logs", "logs [flags]   (and: logs show [--json] [ID], logs delete ID, logs path)", `  react-agent logs
  react-agent logs -q "population tokyo" --since 7d
  react-agent logs -q 'qwen2.5 "new york"'
  react-agent logs --model qwen -n 50 --json
  react-agent logs show 3f9a
  react-agent logs delete 3f9a2c1b7d4e
  react-agent logs path

"logs" lists the latest conversations; "logs show" prints one whole, as
the trace showed it (the latest when no ID is given; the start of an ID
will do); "logs delete" deletes one; "logs path" prints where the log is.

"logs -q" lists the conversations that hold every word given, in any
order, each also as the start of a longer word (tok finds Tokyo); case
and accents do not count. Words in double quotes must come together, in
that order. Everything else is text: qwen2.5, gpt-4o, 2+2, e-mail, AND,
OR and NOT search for themselves.
`, stdout, stderr)
	lf := addLogsFlags(fs)
	config, l, n, query, model, since, asJSON := &lf.config, lf.log, &lf.limit, &lf.query, &lf.model, &lf.since, &lf.json
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := applySettings(fs, *config); err != nil {
		return err
	}
	path, err := l.path()
	if err != nil {
		return err
	}
	sub, rest := fs.Arg(0), fs.Args()[min(1, fs.NArg()):]
	if sub == "list" {
		sub = "" // as in llm: logs list is logs
	}
	want := map[string]int{"": 0, "path": 0, "show": 1, "delete": 1}
	if most, ok := want[sub]; !ok || len(rest) > most || (sub == "delete" && len(rest) == 0) {
		return fmt.Errorf("%w: logs takes no argument, or one of: list, show [ID], delete ID, path; got %q", errUsage, fs.Args())
	}
	if sub == "path" {
		fmt.Fprintln(stdout, path)
		return nil
	}
	q := logs.Query{Text: *query, Model: *model, Limit: *n}
	if *since != "" {
		if q.Since, err = logs.ParseSince(*since, time.Now()); err != nil {
			return fmt.Errorf("%w: --since: %v", errUsage, err)
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && sub == "" {
		fmt.Fprintf(stderr, "no runs logged yet in %s\n", path)
		return nil
	}
	ctx := context.Background()
	store, err := logs.Open(ctx, path)
	if err != nil {
		return err
	}
	defer store.Close()
	switch sub {
	case "":
		list, err := store.List(ctx, q)
		switch {
		case errors.Is(err, logs.ErrNoWords):
			return fmt.Errorf("%w: --query: %v; write a word or a number", errUsage, err)
		case err != nil:
			return err
		case *asJSON:
			return writeJSON(stdout, append([]logs.Summary{}, list...))
		}
		return logs.WriteList(stdout, list)
	case "delete":
		id, err := store.Resolve(ctx, rest[0])
		if err == nil {
			err = store.Delete(ctx, id)
		}
		if err == nil {
			fmt.Fprintf(stderr, "deleted conversation %s\n", id)
		}
		return err
	}
	id, err := store.Latest(ctx)
	if len(rest) == 1 {
		id, err = store.Resolve(ctx, rest[0])
	}
	if err != nil {
		return err
	}
	runs, err := store.Runs(ctx, id)
	switch {
	case err != nil:
		return err
	case *asJSON:
		return writeJSON(stdout, runs)
	}
	return logs.WriteText(stdout, runs)
}

// evalFlags are the flags of eval.
type evalFlags struct {
	*settings
	models        []string
	protocols     string
	jobs          int
	timeout       time.Duration
	maxIterations int
	apiKey        string
	numCtx        int
	temperature   float64
	json          bool
	failures      bool
	record        string
	replay        string
}

// addEvalFlags adds the flags of eval to fs.
func addEvalFlags(fs *pflag.FlagSet) *evalFlags {
	f := &evalFlags{}
	ollama, _ := model.Lookup("ollama")
	fs.StringSliceVar(&f.models, "models", []string{"ollama:" + ollama.DefaultModel}, "models to compare, comma-separated, each provider:model@base-url (the provider and the URL may be left out: ollama on its usual address)")
	fs.StringVar(&f.protocols, "protocol", string(agent.ProtocolText), `protocols to compare, comma-separated: "text", "constrained" (text, bound to the tools by the server), "native", as in "text,constrained,native"`)
	fs.IntVarP(&f.jobs, "jobs", "j", 1, "runs at once (models on different servers share the load)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "time limit of each question")
	fs.IntVar(&f.maxIterations, "max-iterations", 10, "model calls a question may take before the model is asked for its best answer")
	fs.StringVar(&f.apiKey, "api-key", "", "API key for the models that need one (default: the provider's variable, such as OPENAI_API_KEY)")
	fs.IntVar(&f.numCtx, "num-ctx", model.DefaultNumCtx, "context window asked of Ollama and llamafile, in tokens")
	fs.Float64Var(&f.temperature, "temperature", 0, "sampling temperature")
	fs.BoolVar(&f.json, "json", false, "print one JSON object a run instead of the table")
	fs.BoolVar(&f.failures, "failures", false, "after the table, show each wrong or failed run: what the model answered and wrote")
	fs.StringVar(&f.record, "record", "", "write one cassette a run to this directory, to replay the evaluation offline")
	pathFlag(fs, "record")
	fs.StringVar(&f.replay, "replay", "", "answer from the cassettes in this directory, written with --record, offline")
	pathFlag(fs, "replay")
	f.settings = addSettings(fs)
	addYes(fs, f.settings)
	return f
}

// cmdEval implements `react-agent eval SET.jsonl`: every question of the
// set asked of every model with every protocol, and the comparison.
func cmdEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "eval [flags] SET.jsonl", `  react-agent eval --models ollama:qwen2.5:7b,ollama:llama3.1:8b --protocol text,native \
      testdata/eval/arithmetic.jsonl
  react-agent eval --models openai:qwen2.5-7b-instruct@http://127.0.0.1:1234/v1 -j 4 set.jsonl
  react-agent eval --replay testdata/eval/replay --models ollama:neat,ollama:sloppy \
      --protocol text,native testdata/eval/arithmetic.jsonl
`, stdout, stderr)
	f := addEvalFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: eval takes one question set, a JSONL file (got %d arguments)", errUsage, fs.NArg())
	}
	if err := applySettings(fs, f.config); err != nil {
		return err
	}
	if f.record != "" && f.replay != "" {
		return fmt.Errorf("%w: --record and --replay contradict each other; pass one", errUsage)
	}
	qs, err := evalpkg.LoadQuestions(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	targets, err := evalpkg.ParseTargets(f.models, strings.Split(f.protocols, ","))
	if err != nil {
		return fmt.Errorf("%w: %v (see --help)", errUsage, err)
	}
	for _, t := range targets {
		if _, _, _, err := evalpkg.ParseModel(t.Model, model.Names()); err != nil {
			return fmt.Errorf("%w: --models: %v", errUsage, err)
		}
	}
	if f.record != "" || f.replay != "" {
		if err := evalpkg.CheckCassettes(targets, qs); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	if f.record != "" {
		if err := os.MkdirAll(f.record, 0o755); err != nil {
			return err
		}
	}
	base, err := builtins(f.tools())
	if err != nil {
		return err
	}
	for _, q := range qs {
		for _, name := range q.Tools {
			if _, ok := base.Get(name); !ok {
				return fmt.Errorf("%w: question %s asks for the tool %q, which is not enabled (enabled: %s)", errUsage, q.ID, name, strings.Join(base.ToolNames(), ", "))
			}
		}
	}
	ctx, stop := interruptible()
	defer stop()
	progress := trace.NewProgress(stderr, isTerminal(stderr) && os.Getenv("TERM") != "dumb", terminalWidth(stderr))
	report, err := evalpkg.Run(ctx, targets, qs, f.runner(base), evalpkg.Options{Concurrency: f.jobs, Timeout: f.timeout,
		Progress: func(done, total int, last evalpkg.Outcome) {
			mark := "right"
			switch {
			case last.Err != "":
				mark = "failed"
			case !last.Correct:
				mark = "wrong"
			}
			progress.Update(done, total, fmt.Sprintf("%s %s %s: %s", last.Target.Model, last.Target.Protocol, last.Question.ID, mark))
		}})
	progress.Done()
	if err != nil && ctx.Err() != nil {
		err = errInterrupted
	}
	if f.json {
		if werr := report.WriteJSON(stdout); werr != nil {
			return werr
		}
		return err
	}
	report.HideTime = f.replay != "" // a replay's numbers are the recording's, its times are not
	report.Width = terminalWidth(stdout)
	if werr := report.WriteTable(stdout); werr != nil {
		return werr
	}
	wrong := 0
	for _, o := range report.Outcomes {
		if !o.Correct {
			wrong++
		}
	}
	switch {
	case f.failures && wrong > 0:
		fmt.Fprintln(stdout)
		report.WriteFailures(forTerminalWriter(stdout))
	case wrong > 0 && isTerminal(stderr):
		fmt.Fprintf(stderr, "react-agent: %d of %d runs wrong or failed; --failures shows what was written\n", wrong, len(report.Outcomes))
	}
	return err
}

// runner returns how eval runs one question against one target: a model
// for the target (replaying or recording a cassette of its own), the
// tools the question asks for, and an agent.
func (f *evalFlags) runner(base *tools.Registry) evalpkg.Runner {
	return func(ctx context.Context, t evalpkg.Target, q evalpkg.Question) (evalpkg.Result, error) {
		provider, name, url, _ := evalpkg.ParseModel(t.Model, model.Names())
		cfg := model.Config{Provider: provider, Model: name, BaseURL: url, APIKey: f.apiKey, NumCtx: f.numCtx,
			Temperature: f.temperature, ToolCalling: t.Protocol == evalpkg.Native}
		protocol, constrain := agent.Protocol(t.Protocol), agent.ConstrainOff
		if t.Protocol == evalpkg.Constrained {
			protocol, constrain = agent.ProtocolText, agent.ConstrainOn
		}
		cassette := evalpkg.Cassette(t, q)
		switch {
		case f.replay != "":
			cfg = model.Config{Provider: "replay", Replay: filepath.Join(f.replay, cassette)}
		case f.record != "":
			cfg.Record = filepath.Join(f.record, cassette)
		}
		m, err := model.New(ctx, cfg)
		if err != nil {
			return evalpkg.Result{}, err
		}
		reg := base
		if len(q.Tools) > 0 {
			var ts []tools.Tool
			for _, n := range q.Tools {
				tool, _ := base.Get(n)
				ts = append(ts, tool)
			}
			if reg, err = tools.NewRegistry(ts...); err != nil {
				return evalpkg.Result{}, err
			}
			reg.SetLimits(base.Limits())
		}
		a := agent.New(m, reg, agent.WithMaxIterations(f.maxIterations), agent.WithProtocol(protocol), agent.WithConstrain(constrain),
			agent.WithHooks(agent.Confirmation(reg, tools.NewTerminalConfirmer(nil, io.Discard, f.yes))))
		res, err := a.Run(ctx, q.Question)
		out := evalpkg.Result{Answer: res.Answer, Steps: len(res.Steps), ParseErrors: res.ParseErrors, Recovered: res.Recovered,
			Rescued: res.Rescued, Forced: res.Forced, StopReason: string(res.StopReason),
			TokensIn: res.Usage.PromptTokens, TokensOut: res.Usage.CompletionTokens}
		for _, s := range res.Steps {
			out.Replies = append(out.Replies, s.Reply)
		}
		return out, err
	}
}

// forTerminalWriter passes text on, with control characters made visible
// when w is a terminal.
func forTerminalWriter(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		if _, err := io.WriteString(w, forTerminal(w, string(b))); err != nil {
			return 0, err
		}
		return len(b), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
