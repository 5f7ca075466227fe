package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/tools/escape"
)

// Exit statuses.
const (
	exitFailure     = 1
	exitUsage       = 2
	exitNoAnswer    = 3
	exitInterrupted = 130
)

// Run executes the command line args (without the program's name), reading
// stdin and writing the answer to stdout and the trace and errors to
// stderr, and returns the exit status: 0 answered, 1 failed, 2 a usage
// error, 3 no real final answer, 130 interrupted. It takes the
// environment, signals and the terminal from the process, and hides an
// API key and the passwords of URLs from the processes its tools start
// (on Linux, where they could read them in /proc). While it runs, what
// libraries write through Go's standard logger is shown only with -v,
// redacted and escaped (see libraryLog).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := osEnv(stdin, stdout, stderr)
	args = hideSecrets(args)
	defer e.takeStandardLog(args)()
	return e.run(args)
}

// env is what a run of the command line takes from its process: the
// standard streams, the environment, signals, the terminal, the user's
// config folder and the clock. Run fills it from the os package; tests
// fill it with fakes, so that commands run side by side.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// getenv returns an environment variable, "" when unset.
	getenv func(key string) string
	// notify relays Ctrl-C (SIGINT) and SIGTERM to c until stop is
	// called; meanwhile they do not end the process.
	notify func(c chan<- os.Signal) (stop func())
	// terminal reports whether f, a stream, is a terminal.
	terminal func(f any) bool
	// width returns the columns of the terminal f is, or 0.
	width func(f any) int
	// openTTY opens the controlling terminal, where confirmations are
	// asked when stdin is not a terminal.
	openTTY func() (*os.File, error)
	// configDir returns the user's config folder.
	configDir func() (string, error)
	// defaultLog returns where the log is kept unless told otherwise.
	defaultLog func() (string, error)
	// now returns the time.
	now func() time.Time
	// stdlog is where Go's standard logger writes, when Run took it; nil
	// in a test's run, which leaves the logger alone.
	stdlog *libraryLog
}

// osEnv returns the env of this process.
func osEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	return &env{
		stdin: stdin, stdout: stdout, stderr: stderr,
		getenv: os.Getenv,
		notify: func(c chan<- os.Signal) func() {
			signal.Notify(c, os.Interrupt, syscall.SIGTERM)
			return func() { signal.Stop(c) }
		},
		terminal: func(f any) bool {
			file, ok := f.(*os.File)
			return ok && term.IsTerminal(int(file.Fd()))
		},
		width: func(f any) int {
			if file, ok := f.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
				if cols, _, err := term.GetSize(int(file.Fd())); err == nil {
					return cols
				}
			}
			return 0
		},
		openTTY:    func() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) },
		configDir:  os.UserConfigDir,
		defaultLog: logs.DefaultPath,
		now:        time.Now,
	}
}

// run executes one command line and returns the exit status.
func (e *env) run(args []string) int {
	if len(args) == 0 {
		if e.terminal(e.stdin) {
			fmt.Fprint(e.stderr, usage())
			return exitUsage
		}
		args = []string{"ask"} // The question comes from stdin.
	}
	args, err := optionPairs(args)
	var cmd string
	var rest []string
	if err == nil {
		cmd, rest, err = route(args)
	}
	if err == nil {
		err = e.dispatch(cmd, rest)
	}
	var exit exitError
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, pflag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		if cmd == "" {
			fmt.Fprintf(e.stderr, "react-agent: %s\n", escape.Visible(tidy("", usage.Error())))
		} else {
			fmt.Fprintf(e.stderr, "react-agent %s: %s\n", cmd, escape.Visible(tidy(cmd, usage.Error())))
		}
		return exitUsage
	case errors.As(err, &exit):
		return int(exit)
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(e.stderr, "react-agent: interrupted")
		return exitInterrupted
	default:
		fmt.Fprintf(e.stderr, "react-agent: %s\n", escape.Visible(advise(err)))
		return exitFailure
	}
}

// interruptible returns a context cancelled by the first Ctrl-C or
// SIGTERM. After that the signals' default action is back, so a second
// Ctrl-C ends the program at once.
func (e *env) interruptible() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	stop := e.notify(sigs)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
		stop()
	}()
	return ctx, func() { cancel(); stop() }
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
	if word := args[i]; lookup(word) != nil {
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
		return usagef("react-agent has no %q command; %s. To ask it as a question, write: %s", w, advice, asQuestion)
	}
	if len(w) < 3 {
		return nil
	}
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		if d := editDistance(w, c.name); d == 1 || d == 2 && len(w) >= 7 {
			return usagef("unknown command %q; did you mean %q? To ask it as a question, write: %s", w, c.name, asQuestion)
		}
	}
	return nil
}

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
