package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// usage is the top-level help.
func usage() string {
	var b strings.Builder
	b.WriteString("react-agent answers questions with a ReAct agent on the models you run.\n\nUsage:\n")
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintf(&b, "  react-agent %-26s %s\n", c.name+" "+c.args, c.does)
		}
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

// helpCommand is `react-agent help [COMMAND]`.
func helpCommand() *command {
	return &command{name: "help", args: "[COMMAND]", does: "this help, or a command's", raw: true,
		runRaw: func(e *env, args []string) error {
			switch {
			case len(args) == 0:
				fmt.Fprint(e.stdout, usage())
				return nil
			case len(args) == 1 && slices.Contains(commandNames(), args[0]):
				return e.dispatch(args[0], []string{"--help"})
			}
			return usagef("help takes the name of a command: %s", strings.Join(commandNames(), ", "))
		},
		complete: func(positional int) ([]candidate, bool) {
			if positional > 0 {
				return nil, false
			}
			return commandCandidates(), false
		},
	}
}

// helpWidth is the width help is wrapped at: a terminal's, up to 100
// columns.
func (e *env) helpWidth(w io.Writer) int {
	if cols := e.width(w); cols > 20 {
		return min(cols, 100) - 1
	}
	return 99
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
