package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"
	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/redact"
	"github.com/react-agent/react-agent/agent/trace"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
)

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
		fs.Var(oneOf(&f.protocol, string(agent.ProtocolText), "protocol", string(agent.ProtocolText), string(agent.ProtocolNative), string(agent.ProtocolAuto)),
			"protocol", `how the model calls tools: "text" (the ReAct text protocol, any model), "native" (the server's tool calling) or "auto" (native, text where the server refuses tools)`)
		fs.Var(oneOf(&f.constrain, string(agent.ConstrainAuto), "mode", string(agent.ConstrainAuto), string(agent.ConstrainOn), string(agent.ConstrainOff)),
			"constrain", `bind each step to the tools as the server samples it: "auto" (where the text protocol stays: llamacpp, vLLM, SGLang), "on" (also the JSON object protocol on Ollama, LM Studio, OpenAI; an error where the server cannot) or "off"`)
		fs.DurationVar(&f.timeout, "timeout", 0, "time limit of the whole run, such as 90s or 5m (0: none)")
		lang := oneOf(&f.lang, "en", "language", prompt.Languages()...)
		lang.hint = "or write your own prompt and pass it with --prompt-file"
		fs.Var(lang, "lang", `prompt language: "en" or "zh"`)
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

// session is what ask and chat run with: the agent, its tools and the
// trace on stderr.
type session struct {
	*env
	// fs holds the flags, with where each setting came from.
	fs      *pflag.FlagSet
	flags   *agentFlags
	agent   *agent.Agent
	reg     *tools.Registry
	trace   *trace.Trace // nil with -q
	log     *runLog      // nil with --no-log
	closeFn func()
	// opts are the agent's options but for the system prompt's extra
	// context, which build adds from the flags as they are then.
	opts      []agent.Option
	constrain agent.Constrain
}

// newSession builds the agent that the flags of c, with their settings
// applied, describe.
func newSession(ctx context.Context, c *call, f *agentFlags, extra ...agent.Option) (*session, error) {
	fs, stdout, stderr := c.fs, c.stdout, c.stderr
	for _, pair := range [][]string{{"quiet", "verbose"}, {"stop", "no-stop"}} {
		if err := contradicting(fs, pair...); err != nil {
			return nil, err
		}
	}
	if f.maxIterations < 1 {
		return nil, usagef("--max-iterations must be at least 1, got %d", f.maxIterations)
	}
	topts := f.tools()
	reg, err := builtins(topts)
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
	// The log comes before the model: a continued conversation brings
	// its provider, model and server.
	servers, err := mcpServers(f.settings)
	if err != nil {
		return nil, err
	}
	rl, err := c.openRunLog(ctx, fs, f, servers)
	if err != nil {
		return nil, err
	}
	built := false
	defer func() {
		if !built {
			rl.close(ctx, stderr)
		}
	}()
	if f.model.Replay != "" && !fs.Changed("provider") {
		f.model.Provider = "replay" // --replay FILE says where the answers come from
	}
	protocol, constrain := agent.Protocol(f.protocol), agent.Constrain(f.constrain)
	if constrain == agent.ConstrainOn && protocol != agent.ProtocolText {
		return nil, usagef("--constrain on binds the text protocol; pass --protocol text, or --constrain auto")
	}
	s := &session{env: c.env, fs: fs, flags: f, reg: reg, constrain: constrain}
	m, err := s.newModel(ctx)
	if err != nil {
		return nil, err
	}
	in, out, closeTTY := c.confirmTerminal()
	s.closeFn = closeTTY
	confirmer := tools.NewTerminalConfirmer(in, out, f.yes)
	confirmer.Scope = "in this run" // ask's: a chat's is the chat
	if c.cmd != nil && c.cmd.name == "chat" {
		confirmer.Scope = "in this chat"
	}
	opts := []agent.Option{
		agent.WithMaxIterations(f.maxIterations),
		agent.WithProtocol(protocol),
		agent.WithConstrain(constrain),
		agent.WithTemplate(tmpl),
		agent.WithHooks(agent.Confirmation(reg, onOwnLine{confirmer, s})),
		// What the log hides, the model does not read either: a key, or
		// a value of an MCP server's env that the server's error quotes.
		agent.WithRedactor(redact.New(c.logSecrets(f, servers)...)),
	}
	if f.timeout > 0 {
		opts = append(opts, agent.WithTimeout(f.timeout))
	}
	switch {
	case f.noStop:
		opts = append(opts, agent.WithStopSequences())
	case len(f.stops) > 0:
		opts = append(opts, agent.WithStopSequences(f.stops...))
	}
	if f.json {
		opts = append(opts, agent.WithEvents(advised(event.JSONLines(c.jsonOut(stdout)))))
	}
	// --json on a terminal shows the events alone: the trace would
	// interleave with them on the same screen.
	jsonOnScreen := f.json && c.terminal(stdout) && c.terminal(stderr) && !f.verbose
	if !f.quiet && !jsonOnScreen {
		tty := c.terminal(stderr)
		s.trace = trace.New(stderr,
			trace.Color(tty && c.getenv("NO_COLOR") == "" && c.getenv("TERM") != "dumb"),
			trace.Spinner(tty && c.getenv("TERM") != "dumb"), // a dumb terminal cannot redraw a line
			trace.Verbose(f.verbose))
		opts = append(opts, agent.WithEvents(advised(notices(f.verbose, withHints(s.trace.Event)))))
		if !f.noStream && (f.stream || (tty && !fs.Changed("stream"))) {
			opts = append(opts, agent.WithStreaming(s.trace.Token))
		}
	}
	if s.log = rl; rl != nil {
		rl.Use(c.runMeta(f))
		opts = append(opts, agent.WithEvents(rl.Event))
	}
	closeTools, err := startMCP(ctx, servers, f.settings, reg, stderr)
	if err != nil {
		closeTTY()
		return nil, interrupted(ctx, err)
	}
	s.closeFn = func() { closeTools(); closeTTY() }
	s.opts = append(opts, extra...)
	s.agent = s.newAgent(m)
	built = true
	return s, nil
}

// newModel returns the model the flags name, as they are now.
func (s *session) newModel(ctx context.Context) (llms.Model, error) {
	if err := checkProvider(s.fs, s.flags.model.Provider); err != nil {
		return nil, err
	}
	m, err := model.New(ctx, s.withProviderEnv(s.flags.model))
	if err != nil {
		return nil, err
	}
	if mode, _ := model.Constraining(ctx, m); s.constrain == agent.ConstrainOn && mode == model.ModeNone {
		return nil, usagef("--constrain on: %w: %s", model.ErrCannotConstrain, constrainAdvice)
	}
	return m, nil
}

// newAgent returns the session's agent on the model m, with the flags'
// extra context for the system prompt as it is now.
func (s *session) newAgent(m llms.Model) *agent.Agent {
	return agent.New(m, s.reg, append(slices.Clip(s.opts), agent.WithSystem(s.flags.system))...)
}

// rebuild makes the session's agent anew from the flags as they are now,
// after a chat changed the model, an option or the system prompt's extra
// context, and logs the runs that follow with the model they use.
func (s *session) rebuild(ctx context.Context) error {
	m, err := s.newModel(ctx)
	if err != nil {
		return err
	}
	s.agent = s.newAgent(m)
	if s.log != nil {
		s.log.Use(s.runMeta(s.flags))
	}
	return nil
}

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

// close stops the trace's spinner, closes the log (a Ctrl-C that ends ctx
// stops a wait on it) and closes the terminal opened for confirmations.
func (s *session) close(ctx context.Context) {
	if s.trace != nil {
		s.trace.Close()
	}
	s.log.close(ctx, s.stderr)
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
	shown := s.trace != nil && s.terminal(s.stdout) && s.terminal(s.stderr)
	if !s.flags.json && res != nil && res.Answer != "" && !shown {
		fmt.Fprintln(s.stdout, s.forTerminal(s.stdout, res.Answer))
	}
	if s.flags.usage && res != nil {
		var modelTime time.Duration
		for _, st := range res.Steps {
			modelTime += st.ModelDuration
		}
		u := res.Usage
		fmt.Fprintf(s.stderr, "usage: %s in, %d out, %s, %s of model time\n",
			plural(u.PromptTokens, "token", "tokens"), u.CompletionTokens, plural(res.ModelCalls, "model call", "model calls"), modelTime.Round(time.Millisecond))
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
		fmt.Fprintf(s.stderr, "react-agent: %s\n", escape.Visible(advise(err)))
	}
	if errors.Is(err, agent.ErrNoAnswer) || errors.Is(err, agent.ErrRepeatedParseError) {
		return exitError(exitNoAnswer)
	}
	return exitError(exitFailure)
}
