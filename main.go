// Command react-agent answers questions with a ReAct agent (Reason + Act)
// that speaks the classic Thought / Action / Action Input / Observation /
// Final Answer protocol, on models served by Ollama, any OpenAI-compatible
// server, llamafile or hosted APIs.
//
// Usage:
//
//	react-agent [flags] QUESTION         same as ask
//	react-agent ask [flags] QUESTION     answer one question
//	react-agent chat [flags]             answer questions read from stdin, one per line, with memory
//	react-agent parse [--jsonl] [--timing] [--repeat N]
//	                                     parse model output from stdin and print the step as JSON
//	react-agent tools [flags]            list the enabled tools
//	react-agent tool [flags] NAME INPUT  call one tool directly
//
// Run "react-agent COMMAND --help" for a command's flags.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
)

const usage = `react-agent answers questions with a ReAct agent.

Usage:
  react-agent [flags] QUESTION         same as ask
  react-agent ask [flags] QUESTION     answer one question
  react-agent chat [flags]             a conversation: one question a line on stdin
  react-agent parse [flags]            parse a model reply from stdin, print the step as JSON
  react-agent tools [flags]            list the enabled tools
  react-agent tool [flags] NAME INPUT  call one tool directly (INPUT: JSON object or raw text)

Run "react-agent COMMAND --help" for the flags of a command.
`

// errUsage marks an error in the command line: exit status 2.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "parse":
		err = cmdParse(rest, stdin, stdout, stderr)
	case "tools":
		err = cmdTools(rest, stdout, stderr)
	case "tool":
		err = cmdTool(rest, stdout, stderr)
	case "ask":
		err = cmdAsk(rest, stdin, stdout, stderr)
	case "chat":
		err = cmdChat(rest, stdin, stdout, stderr)
	default:
		cmd = "ask"
		err = cmdAsk(args, stdin, stdout, stderr)
	}
	var exit exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, pflag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "react-agent %s: %v\n", cmd, err)
		return 2
	case errors.As(err, &exit):
		return int(exit)
	default:
		fmt.Fprintf(stderr, "react-agent: %v\n", err)
		return 1
	}
}

// exitError is an exit status whose message was already printed.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// newFlags returns a flag set for a command that reports errors as usage
// errors and prints its help on --help.
func newFlags(name, synopsis string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: react-agent %s\n\nFlags:\n%s", synopsis, fs.FlagUsages())
	}
	return fs
}

// parseFlags parses args into fs, turning flag errors into usage errors.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v (see --help)", errUsage, err)
	}
	return nil
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

// cmdParse implements `react-agent parse`.
func cmdParse(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("parse", "parse [--jsonl] [--timing] [--repeat N] < reply.txt", stderr)
	jsonl := fs.Bool("jsonl", false, `read many replies, one JSON object {"id":..,"text":..} a line; print one result a line`)
	timing := fs.Bool("timing", false, `add "parse_ns": the median time of --repeat parses of each input (the parse call alone)`)
	repeat := fs.Int("repeat", 11, "with --timing, how many times to parse each input")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: parse reads the reply from stdin and takes no arguments, got %q", errUsage, fs.Args())
	}
	if *repeat < 1 {
		return fmt.Errorf("%w: --repeat must be at least 1, got %d", errUsage, *repeat)
	}
	p := parser.New(tools.Catalog())
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
			return exitError(1)
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

// toolFlags adds the tool flags shared by tool, tools, ask and chat to fs
// and returns a function that reads them once fs is parsed.
func toolFlags(fs *pflag.FlagSet) func() tools.Options {
	d := tools.DefaultOptions()
	o := &tools.Options{}
	fs.BoolVar(&o.AllowShell, "allow-shell", false, "enable the shell tool (each command is confirmed on the terminal unless --yes)")
	fs.BoolVar(&o.Yes, "yes", false, "run shell and plugin commands without asking")
	fs.BoolVar(&o.AllowPrivateNetwork, "allow-private-network", false, "let http_request reach loopback, private and link-local addresses")
	fs.StringVar(&o.SearchEngine, "search-engine", d.SearchEngine, `web_search backend: "duckduckgo" or "searxng"`)
	fs.StringVar(&o.SearchURL, "search-url", "", "web_search endpoint (required for searxng: your instance's address)")
	fs.DurationVar(&o.ToolTimeout, "tool-timeout", d.ToolTimeout, "time limit of one tool call")
	fs.IntVar(&o.MaxObservation, "max-observation", d.MaxObservation, "bytes of a tool's output the model sees; the rest is cut with a marker")
	fs.Int64Var(&o.MaxResponse, "max-response", d.MaxResponse, "bytes read at most from an HTTP response or a command's output")
	fs.StringVar(&o.ToolsConfig, "tools-config", "", "YAML or JSON file declaring plugin tools that run commands")
	return func() tools.Options { return *o }
}

// signalContext returns a context cancelled by Ctrl-C or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// cmdTools implements `react-agent tools`.
func cmdTools(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tools", "tools [flags]", stderr)
	opts := toolFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: tools takes no arguments, got %q", errUsage, fs.Args())
	}
	reg, err := tools.Builtins(opts())
	if err != nil {
		return err
	}
	return tools.FormatList(stdout, reg)
}

// cmdTool implements `react-agent tool NAME INPUT`: one call of one tool,
// with INPUT read as the parser reads an Action Input.
func cmdTool(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tool", "tool [flags] NAME INPUT   (INPUT: a JSON object, or raw text for the tool's primary argument)", stderr)
	opts := toolFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: tool takes a tool name and its input, as in: react-agent tool calculator '2+2' (got %d arguments)", errUsage, fs.NArg())
	}
	o := opts()
	reg, err := tools.Builtins(o)
	if err != nil {
		return err
	}
	name, input := fs.Arg(0), fs.Arg(1)
	canonical, callArgs := parser.New(reg).Args(name, input)
	if _, ok := reg.Get(canonical); !ok {
		// A built-in that is off (shell without --allow-shell): infer as
		// the parser would, and let the registry say how to turn it on.
		canonical, callArgs = parser.New(tools.Catalog()).Args(name, input)
	}
	ctx, stop := signalContext()
	defer stop()
	if t, ok := reg.Get(canonical); ok {
		confirmer := tools.NewTerminalConfirmer(os.Stdin, stderr, o.Yes)
		if err := tools.Confirm(ctx, confirmer, t, callArgs); err != nil {
			return err
		}
	}
	obs, err := reg.Call(ctx, canonical, callArgs)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, obs)
	return nil
}

// agentFlags are the flags of ask and chat.
type agentFlags struct {
	model         agent.ModelConfig
	maxIterations int
	timeout       time.Duration
	lang          string
	promptFile    string
	system        string
	stream        bool
	quiet         bool
	json          bool
	tools         func() tools.Options
}

func addAgentFlags(fs *pflag.FlagSet) *agentFlags {
	f := &agentFlags{}
	m := &f.model
	fs.StringVar(&m.Provider, "provider", "ollama", "model provider: "+strings.Join(agent.Providers(), ", "))
	fs.StringVar(&m.Model, "model", "", fmt.Sprintf("model name (default: %s on ollama, the provider's default elsewhere)", agent.DefaultOllamaModel))
	fs.StringVar(&m.BaseURL, "base-url", "", "server URL (default: OLLAMA_HOST or http://127.0.0.1:11434 for ollama, OPENAI_BASE_URL for openai; any OpenAI-compatible server with --provider openai)")
	fs.StringVar(&m.APIKey, "api-key", "", "API key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY; a local server needs none)")
	fs.IntVar(&m.NumCtx, "num-ctx", agent.DefaultNumCtx, "context window asked of Ollama and llamafile, in tokens")
	fs.Float64Var(&m.Temperature, "temperature", 0, "sampling temperature")
	fs.StringVar(&m.Record, "record", "", "write every model request and response to this JSONL cassette")
	fs.StringVar(&m.Replay, "replay", "", "with --provider replay: the cassette to answer from")
	fs.IntVar(&f.maxIterations, "max-iterations", 10, "model calls before the agent is asked for its best answer")
	fs.DurationVar(&f.timeout, "timeout", 0, "time limit of the whole run (0: none)")
	fs.StringVar(&f.lang, "lang", "en", `prompt language: "en" or "zh"`)
	fs.StringVar(&f.promptFile, "prompt-file", "", "your own prompt template (Go text/template; see the prompt package for its fields)")
	fs.StringVar(&f.system, "system", "", "extra context appended to the system prompt")
	fs.BoolVar(&f.stream, "stream", false, "print the model's tokens to stderr as they arrive")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print only the answer: no trace on stderr")
	fs.BoolVar(&f.json, "json", false, "print the whole result (steps, stop reason, tokens) as JSON")
	f.tools = toolFlags(fs)
	return f
}

// newAgent builds the agent the flags describe.
func (f *agentFlags) newAgent(ctx context.Context, stderr io.Writer) (*agent.Agent, error) {
	if f.maxIterations < 1 {
		return nil, fmt.Errorf("%w: --max-iterations must be at least 1, got %d", errUsage, f.maxIterations)
	}
	topts := f.tools()
	reg, err := tools.Builtins(topts)
	if err != nil {
		return nil, err
	}
	tmpl, err := prompt.ForLang(f.lang)
	if f.promptFile != "" {
		tmpl, err = prompt.ParseFile(f.promptFile)
	}
	if err != nil {
		return nil, err
	}
	model, err := agent.NewModel(ctx, f.model)
	if err != nil {
		return nil, err
	}
	opts := []agent.Option{
		agent.WithMaxIterations(f.maxIterations),
		agent.WithTemplate(tmpl),
		agent.WithSystem(f.system),
		agent.WithHooks(agent.Confirmation(reg, tools.NewTerminalConfirmer(os.Stdin, stderr, topts.Yes))),
	}
	if f.timeout > 0 {
		opts = append(opts, agent.WithTimeout(f.timeout))
	}
	if !f.quiet {
		opts = append(opts, agent.WithEvents(agent.NewTracePrinter(stderr)))
	}
	if f.stream {
		opts = append(opts, agent.WithStreaming(func(s string) { fmt.Fprint(stderr, s) }))
	}
	return agent.New(model, reg, opts...), nil
}

// report prints a run's answer (or the whole result with --json) and
// turns a run without an answer into an error.
func (f *agentFlags) report(res *agent.Result, err error, stdout, stderr io.Writer) error {
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(res); jerr != nil {
			return jerr
		}
	} else if res != nil && res.Answer != "" {
		fmt.Fprintln(stdout, res.Answer)
	}
	if err != nil {
		return err
	}
	if res.Forced && !f.quiet {
		fmt.Fprintf(stderr, "(the answer was forced: the run stopped at %s)\n", res.StopReason)
	}
	return nil
}

// cmdAsk implements `react-agent ask QUESTION` and the bare form.
func cmdAsk(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("ask", "[ask] [flags] QUESTION   (no QUESTION: read it from stdin)", stderr)
	f := addAgentFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" && !isTerminal(stdin) {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("ask: reading the question from stdin: %w", err)
		}
		question = strings.TrimSpace(string(b))
	}
	if question == "" {
		return fmt.Errorf("%w: no question; write it after the flags, as in: react-agent \"What is 17 * 23?\"", errUsage)
	}
	ctx, stop := signalContext()
	defer stop()
	a, err := f.newAgent(ctx, stderr)
	if err != nil {
		return err
	}
	res, err := a.Run(ctx, question)
	return f.report(res, err, stdout, stderr)
}

// cmdChat implements `react-agent chat`: questions from stdin, one a line,
// answered with the conversation so far in memory.
func cmdChat(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("chat", "chat [flags]   (one question a line on stdin; an empty line or EOF ends it)", stderr)
	f := addAgentFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: chat reads its questions from stdin and takes no arguments; use ask for one question", errUsage)
	}
	ctx, stop := signalContext()
	defer stop()
	a, err := f.newAgent(ctx, stderr)
	if err != nil {
		return err
	}
	chat := agent.NewChat(a, 20)
	interactive := isTerminal(stdin)
	sc := bufio.NewScanner(stdin)
	sc.Buffer(nil, 1<<20)
	var failed error
	for {
		if interactive {
			fmt.Fprint(stderr, "> ")
		}
		if !sc.Scan() {
			break
		}
		question := strings.TrimSpace(sc.Text())
		if question == "" {
			if interactive {
				break
			}
			continue
		}
		res, err := chat.Ask(ctx, question)
		if err := f.report(res, err, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "react-agent: %v\n", err)
			failed = exitError(1)
			if ctx.Err() != nil {
				return failed
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("chat: reading stdin: %w", err)
	}
	return failed
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
