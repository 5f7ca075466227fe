package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// usage is the top-level help.
func usage() string {
	var b strings.Builder
	b.WriteString("react-agent answers questions with a ReAct agent on the models you run.\n\n")
	b.WriteString("Usage: react-agent COMMAND [flags] [ARGUMENTS]\n\nCommands:\n")
	const column = 28
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		form := strings.TrimSpace(c.name + " " + strings.TrimPrefix(strings.TrimPrefix(c.args, "[flags]"), " "))
		b.WriteString(wrap(fmt.Sprintf("  %-*s%s", column-2, form, c.does), helpTextWidth, column))
	}
	b.WriteString(`
Examples:
  react-agent ask --replay testdata/agent/demo.jsonl "What is 17 * 23 + 4?"
  react-agent "What is the population of Tokyo divided by 1000?"
  react-agent --provider llamacpp "Who wrote Dune?"   (llama-server on :8080)
  react-agent -c "And divided by 5?"   (continue the latest conversation)
  react-agent tool calculator "2**10 / 4"
  react-agent logs -q tokyo

The answer goes to stdout, the trace to stderr. Exit status: 0 answered,
1 failed, 2 usage error, 3 no real final answer, 130 interrupted.
Run "react-agent help COMMAND" for the flags of a command, and
"react-agent help TOPIC" for one of these topics:

`)
	b.WriteString(topicList())
	return b.String()
}

// helpTextWidth is the width the help's own text fits: a terminal of 80
// columns. The flags are wrapped to the terminal, up to 100 columns.
const helpTextWidth = 79

// wrap breaks text into lines of at most width columns at spaces, the
// lines after the first indented by indent spaces, and ends it with a
// line break.
func wrap(text string, width, indent int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Split(text, " ") {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case line+1+n > width && line > indent:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			line = indent
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	b.WriteByte('\n')
	return b.String()
}

// helpCommand is `react-agent help [COMMAND]`.
func helpCommand() *command {
	return &command{name: "help", args: "[COMMAND|TOPIC]", does: "this help, a command's, or a topic",
		synopsis: "help [COMMAND|TOPIC]",
		examples: `  react-agent help
  react-agent help ask
  react-agent help config
`,
		raw: true,
		runRaw: func(e *env, args []string) error {
			switch {
			case len(args) == 0:
				fmt.Fprint(e.stdout, usage())
				return nil
			case len(args) == 1 && (args[0] == "-h" || args[0] == "--help"):
				e.printHelp(lookup("help"))
				return nil
			case len(args) == 1:
				if c := lookup(args[0]); c != nil && !c.hidden {
					e.printHelp(c)
					return nil
				}
				if text, ok := topic(args[0]); ok {
					_, err := io.WriteString(e.stdout, text)
					return err
				}
				if near := nearest(args[0], append(helpNames(), topicNames...)); near != "" {
					return usagef("no command or topic %q; did you mean %s? (react-agent help lists them)", args[0], near)
				}
				return usagef("no command or topic %q; react-agent help lists them", args[0])
			}
			return usagef("help takes the name of a command or a topic: %s; or %s", strings.Join(helpNames(), ", "), strings.Join(topicNames, ", "))
		},
		complete: func(_ *env, args []string) ([]candidate, bool) {
			if len(args) > 0 {
				return nil, false
			}
			all := commandCandidates()
			for _, name := range topicNames {
				all = append(all, candidate{name, topicSummary(name)})
			}
			return all, false
		},
	}
}

// versionCommand is `react-agent version`, also --version.
func versionCommand() *command {
	return &command{name: "version", does: "print the version",
		synopsis: "version   (or: react-agent --version)",
		examples: "  react-agent --version\n",
		raw:      true,
		runRaw: func(e *env, args []string) error {
			if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
				e.printHelp(lookup("version"))
				return nil
			}
			fmt.Fprintln(e.stdout, version())
			return nil
		},
	}
}

// helpNames are the names help takes: every command's.
func helpNames() []string {
	var names []string
	for _, c := range commands() {
		if !c.hidden {
			names = append(names, c.name)
		}
	}
	return names
}

// printHelp prints the help of the command c on stdout: its usage, its
// examples and its flags.
func (e *env) printHelp(c *command) {
	fs := e.newFlags(c)
	if c.define != nil {
		c.define(fs)
	}
	fs.Usage()
}

// helpWidth is the width help is wrapped at: a terminal's, up to 100
// columns; in a pipe or a file, 80, or fewer when COLUMNS says so.
func (e *env) helpWidth(w io.Writer) int {
	if cols := e.width(w); cols > 20 {
		return min(cols, 100) - 1
	}
	if cols, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && cols > 20 {
		return min(cols, 80) - 1
	}
	return 79
}

// newFlags returns a flag set for the command c that reports errors as
// usage errors and prints help, with examples, on --help: its flags under
// the headings they were added with, wrapped to fit 100 columns.
// Asked-for help goes to stdout, so that it can be paged or searched.
func (e *env) newFlags(c *command) *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, in words of ours
	fs.SortFlags = false
	fs.Usage = func() { // called for --help only: parse errors are returned
		fmt.Fprintf(e.stdout, "Usage: react-agent %s\n\nExamples:\n%s", c.synopsis, c.examples)
		writeFlags(e.stdout, fs, e.helpWidth(e.stdout))
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
