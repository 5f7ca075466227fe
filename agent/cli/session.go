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
	"github.com/react-agent/react-agent/agent/telemetry"
	"github.com/react-agent/react-agent/agent/trace"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
	"github.com/react-agent/react-agent/tools/mcp"
)

// agentFlags are the flags of ask and chat.
type agentFlags struct {
	*toolFlags
	model         model.Config
	cassette      cassetteFlags
	maxIterations int
	timeout       time.Duration
	lang          string
	prompt        string
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
	otlpEndpoint  string
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
		addPromptFlag(fs, &f.prompt)
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
		fs.StringVar(&f.cassette.record, "record", "", "write every model request and response to this JSONL cassette")
		fs.StringVar(&f.cassette.replay, "replay", "", "with --provider replay: the cassette to answer from")
	})
	grouped(fs, "Trace flags", func() { addTraceFlag(fs, &f.otlpEndpoint) })
	f.toolFlags = addToolFlags(fs)
	addToolChoice(fs, f.toolFlags)
	addYes(fs, f.toolFlags)
	return f
}

// addPromptFlag adds --prompt, the choice of a built-in prompt, to fs.
func addPromptFlag(fs *pflag.FlagSet, style *string) {
	c := oneOf(style, prompt.Full, "prompt", prompt.Styles()...)
	c.hint = "or write your own prompt and pass it with --prompt-file"
	fs.Var(c, "prompt", `built-in prompt: "full", or "compact": less than half the bytes, for small models and short context windows (English only)`)
}

// promptTemplate returns the prompt template that --prompt, --lang and
// --prompt-file choose: the user's own file when given, else the built-in
// one of the style and the language.
func promptTemplate(style, lang, file string) (*prompt.Template, error) {
	if file != "" {
		return prompt.ParseFile(file)
	}
	tmpl, err := prompt.Builtin(style, lang)
	if err != nil {
		// --prompt and --lang take only their words, from every source:
		// what Builtin refuses is the pair of them.
		return nil, usagef("--prompt %s is written in English only: leave out --lang %s, or use --prompt %s", style, lang, prompt.Full)
	}
	return tmpl, nil
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
	trace   *trace.Trace      // nil with -q
	log     *runLog           // nil with --no-log
	traces  *telemetry.Traces // where the spans go; nil until made
	closeFn func()
	// opts are the agent's options but for the system prompt's extra
	// context, which build adds from the flags as they are then.
	opts      []agent.Option
	constrain agent.Constrain
	// chat says that the session is a chat's, whose advice names its
	// commands (/model) rather than flags.
	chat bool
	// compacted says that a run of the session went on with the compact
	// prompt (agent.WithFallbackTemplate), which advice then no longer
	// offers.
	compacted bool
	// confirming, when not nil, is called before a confirmation is
	// asked on the terminal, and what it returns after: a chat's
	// terminal echoes the answer, and drops what was typed ahead.
	confirming func() (done func())
}

// newSession builds the agent that the flags of c, with their settings
// applied, describe.
func newSession(ctx context.Context, c *call, f *agentFlags, extra ...agent.Option) (*session, error) {
	if err := checkAgentFlags(c.fs, f); err != nil {
		return nil, err
	}
	reg, err := builtins(f.tools())
	if err != nil {
		return nil, err
	}
	servers, err := mcpServers(f.toolFlags)
	if err != nil {
		return nil, err
	}
	// The log comes before the model, the prompt and the tools: a
	// continued conversation brings those it was held with.
	rl, err := c.openRunLog(ctx, c.fs, f, servers)
	if err != nil {
		return nil, err
	}
	s := &session{env: c.env, fs: c.fs, flags: f, reg: reg, log: rl, closeFn: func() {},
		constrain: agent.Constrain(f.constrain), chat: c.cmd != nil && c.cmd.name == "chat"}
	built := false
	defer func() {
		if !built {
			s.close(ctx)
		}
	}()
	tmpl, err := f.template()
	if err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		// Every tool is known already: a name -T gets wrong is said
		// before the server is asked anything.
		if _, err := chooseTools(reg, f.chosen.names, asGiven(c.fs, "tool")); err != nil {
			return nil, err
		}
	}
	if s.traces, err = c.startTraces(f.otlpEndpoint); err != nil {
		return nil, err
	}
	m, err := s.openModel(ctx, c.config)
	if err != nil {
		return nil, err
	}
	closeTools, err := startMCP(ctx, servers, f.toolFlags, reg, c.stderr)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	s.closeFn = closeTools
	if s.reg, err = chooseTools(reg, f.chosen.names, asGiven(c.fs, "tool")); err != nil {
		return nil, err
	}
	s.opts = append(append(s.agentOptions(tmpl, servers), spanOptions(s.traces)...), extra...)
	s.agent = s.newAgent(m)
	built = true
	return s, nil
}

// checkAgentFlags refuses flags of ask and chat that cannot go together,
// and values no run can use.
func checkAgentFlags(fs *pflag.FlagSet, f *agentFlags) error {
	for _, pair := range [][]string{{"quiet", "verbose"}, {"stop", "no-stop"}} {
		if err := contradicting(fs, pair...); err != nil {
			return err
		}
	}
	if f.maxIterations < 1 {
		return usagef("--max-iterations must be at least 1, got %d", f.maxIterations)
	}
	if agent.Constrain(f.constrain) == agent.ConstrainOn && agent.Protocol(f.protocol) != agent.ProtocolText {
		return usagef("--constrain on binds the text protocol; pass --protocol text, or --constrain auto")
	}
	return nil
}

// template returns the prompt template the flags name: the user's own,
// or the built-in one of the style and the language.
func (f *agentFlags) template() (*prompt.Template, error) {
	return promptTemplate(f.prompt, f.lang, f.promptFile)
}

// openModel returns the model the flags name, with the default models
// of the config file cf: the provider --replay or the server's answers
// tell, when none was chosen.
func (s *session) openModel(ctx context.Context, cf configFile) (llms.Model, error) {
	m := &s.flags.model
	if s.flags.cassette.replay != "" && !s.fs.Changed("provider") {
		m.Provider = "replay" // --replay FILE says where the answers come from
	}
	if err := checkProvider(s.fs, m.Provider); err != nil {
		return nil, err
	}
	if err := s.findProvider(ctx, s.fs, m); err != nil {
		return nil, err
	}
	m.DefaultModel = cf.defaultModel
	if one := s.oneServed(ctx, *m); one != "" {
		s.fs.Set("model", one)
		s.fs.SetAnnotation("model", sourceAnnotation, []string{theOneServed})
		if !s.flags.quiet && !s.chat && m.Provider != "llamacpp" { // llama-server has but one; a chat's banner names it
			fmt.Fprintf(s.stderr, "react-agent: no model named: using %s, %s (--model chooses another)\n", s.forTerminal(s.stderr, one), theOneServed)
		}
	}
	if s.log != nil {
		s.log.Use(s.runMeta(s.flags))
	}
	return s.newModel(ctx)
}

// agentOptions returns the options of the session's agent, but for the
// system prompt's extra context: the flags', the confirmation of tool
// calls on the terminal, and where the events go (the trace, the JSON
// events, the log).
func (s *session) agentOptions(tmpl *prompt.Template, servers []mcp.Server) []agent.Option {
	f := s.flags
	opts := []agent.Option{
		agent.WithMaxIterations(f.maxIterations),
		agent.WithProtocol(agent.Protocol(f.protocol)),
		agent.WithConstrain(s.constrain),
		agent.WithTemplate(tmpl),
		agent.WithHooks(agent.Confirmation(s.reg, onOwnLine{s.confirmer(), s})),
		// What the log hides, the model does not read either: a key, or
		// a value of an MCP server's env that the server's error quotes.
		agent.WithRedactor(redact.New(s.logSecrets(f, servers)...)),
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
	if fallback := s.fallbackOption(); fallback != nil {
		opts = append(opts, fallback)
	}
	if f.json {
		opts = append(opts, agent.WithEvents(advised(s.chat, s.windowAdvice(s.fallenBack(event.JSONLines(s.jsonOut(s.stdout)))))))
	}
	opts = append(opts, s.traceOptions()...)
	if s.log != nil {
		opts = append(opts, agent.WithEvents(s.fallenBack(s.log.Event)))
	}
	return opts
}

// confirmer returns the confirmer of tool calls on the terminal, which
// the session closes.
func (s *session) confirmer() *tools.TerminalConfirmer {
	in, out, closeTTY := s.confirmTerminal()
	closeTools := s.closeFn
	s.closeFn = func() { closeTools(); closeTTY() }
	confirmer := tools.NewTerminalConfirmer(in, out, s.flags.yes)
	confirmer.Scope = "in this run" // ask's: a chat's is the chat
	if s.chat {
		confirmer.Scope = "in this chat"
	}
	return confirmer
}

// traceOptions makes the session's trace on stderr, unless -q, and
// returns the options that show the run in it: its events and, where it
// streams, the model's text as it comes.
func (s *session) traceOptions() []agent.Option {
	f, stdout, stderr := s.flags, s.stdout, s.stderr
	// --json on a terminal shows the events alone: the trace would
	// interleave with them on the same screen.
	jsonOnScreen := f.json && s.terminal(stdout) && s.terminal(stderr) && !f.verbose
	if f.quiet || jsonOnScreen {
		return nil
	}
	tty := s.terminal(stderr)
	s.trace = trace.New(stderr,
		trace.Color(tty && s.getenv("NO_COLOR") == "" && s.getenv("TERM") != "dumb"),
		trace.Spinner(tty && s.getenv("TERM") != "dumb"), // a dumb terminal cannot redraw a line
		trace.Verbose(f.verbose))
	s.stdlog.beforeNote(s.trace.EndLine)
	opts := []agent.Option{agent.WithEvents(advised(s.chat, s.windowAdvice(s.fallenBack(notices(f.verbose, withHints(s.trace.Event))))))}
	if !f.noStream && (f.stream || (tty && !s.fs.Changed("stream"))) {
		opts = append(opts, agent.WithStreaming(s.trace.Token))
	}
	return opts
}

// newModel returns the model the flags name, as they are now.
func (s *session) newModel(ctx context.Context) (llms.Model, error) {
	if err := checkProvider(s.fs, s.flags.model.Provider); err != nil {
		return nil, err
	}
	m, err := openModel(ctx, s.withEnv(s.flags.model), s.flags.cassette)
	if err != nil {
		return nil, err
	}
	if mode, _ := model.Constraining(ctx, m); s.constrain == agent.ConstrainOn && mode == model.ModeNone {
		return nil, usagef("--constrain on: %w; %s", model.ErrCannotConstrain, constrainAdvice)
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
	if c.s.confirming != nil {
		defer c.s.confirming()()
	}
	return c.TerminalConfirmer.ConfirmTool(ctx, name, prompt)
}

// close stops the trace's spinner, sends the spans still queued (within
// telemetry.ShutdownTimeout), closes the log (a Ctrl-C that ends ctx
// stops a wait on it) and closes the terminal opened for confirmations.
func (s *session) close(ctx context.Context) {
	if s.trace != nil {
		s.trace.Close()
	}
	s.stopTraces(s.traces)
	s.log.close(ctx, s.stderr)
	s.closeFn()
}

// forcedAnswer says that the answer of a run that stopped for stop is
// not the model's own, but one asked for at the limit reached, and what
// moves the limit.
func (s *session) forcedAnswer(stop event.StopReason) string {
	x := explanation{"the answer above is not the model's own: it was asked for when the run stopped (" + string(stop) + ")", ""}
	switch stop {
	case event.StopMaxIterations:
		x = explanation{"the answer above is not the model's own: it was asked for after " + plural(s.flags.maxIterations, "iteration", "iterations"), "raise --max-iterations to allow more"}
	case event.StopTimeout:
		x = explanation{"the answer above is not the model's own: it was asked for at the run's time limit of " + s.flags.timeout.String(), "raise --timeout to allow more"}
	case event.StopRepeatedCall:
		x = explanation{"the answer above is not the model's own: it was asked for after the model made the same tool call a third time", "try another model"}
	}
	return x.String()
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
			fmt.Fprintf(s.stderr, "react-agent: %s\n", s.forcedAnswer(res.StopReason))
		}
		return exitError(exitNoAnswer)
	case res != nil && res.StopReason == event.StopCancelled:
		if s.trace == nil {
			fmt.Fprintln(s.stderr, "react-agent: interrupted")
		}
		return exitError(exitInterrupted)
	}
	if s.trace == nil {
		msg := explain(err, situation{chat: s.chat, first: res == nil || res.Iterations <= 1}).String()
		s.compacted = s.compacted || res != nil && res.FellBack
		if more := s.shorterPrompt(err); more != "" && res != nil && res.ModelCalls == 0 {
			msg += "\n" + more
		}
		fmt.Fprintf(s.stderr, "react-agent: %s\n", escape.Visible(msg))
	}
	if errors.Is(err, agent.ErrNoAnswer) || errors.Is(err, agent.ErrRepeatedParseError) {
		return exitError(exitNoAnswer)
	}
	return exitError(exitFailure)
}
