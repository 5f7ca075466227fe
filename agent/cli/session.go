package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/trace"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
)

// agentFlags are the flags of ask and chat.
type agentFlags struct {
	*settings
	model         model.Config
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
		fs.StringVar(&m.Record, "record", "", "write every model request and response to this JSONL cassette")
		fs.StringVar(&m.Replay, "replay", "", "with --provider replay: the cassette to answer from")
	})
	f.settings = addSettings(fs)
	addYes(fs, f.settings)
	return f
}

// addPromptFlag adds --prompt, the choice of a built-in prompt, to fs.
func addPromptFlag(fs *pflag.FlagSet, style *string) {
	fs.StringVar(style, "prompt", prompt.Full, `built-in prompt: "full", or "compact": less than half the bytes, for small models and short context windows (English only)`)
}

// promptTemplate returns the prompt template that --prompt, --lang and
// --prompt-file choose: the user's own file when given, else the built-in
// one of the style and the language.
func promptTemplate(style, lang, file string) (*prompt.Template, error) {
	if file != "" {
		return prompt.ParseFile(file)
	}
	tmpl, err := prompt.Builtin(style, lang)
	switch {
	case err == nil:
		return tmpl, nil
	case !slices.Contains(prompt.Styles(), strings.ToLower(style)):
		return nil, usagef("--prompt: %s; or write your own prompt and pass it with --prompt-file", unknown("prompt", style, prompt.Styles()))
	case !slices.Contains(prompt.Languages(), strings.ToLower(lang)):
		return nil, usagef("--lang: %s; or write your own prompt and pass it with --prompt-file", unknown("language", lang, prompt.Languages()))
	}
	return nil, usagef("--prompt %s is written in English only: leave out --lang %s, or use --prompt %s", style, lang, prompt.Full)
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
	tmpl, err := promptTemplate(f.prompt, f.lang, f.promptFile)
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
	protocol, err := parseProtocol(f.protocol)
	if err != nil {
		return nil, err
	}
	f.model.ToolCalling = protocol != agent.ProtocolText
	constrain, err := parseConstrain(f.constrain, protocol)
	if err != nil {
		return nil, err
	}
	s := &session{env: c.env, fs: fs, flags: f, reg: reg, constrain: constrain}
	m, err := s.newModel(ctx)
	if err != nil {
		return nil, err
	}
	in, out, closeTTY := c.confirmTerminal()
	s.closeFn = closeTTY
	opts := []agent.Option{
		agent.WithMaxIterations(f.maxIterations),
		agent.WithProtocol(protocol),
		agent.WithConstrain(constrain),
		agent.WithTemplate(tmpl),
		agent.WithHooks(agent.Confirmation(reg, onOwnLine{tools.NewTerminalConfirmer(in, out, f.yes), s})),
		// What the log hides, the model does not read either: a key, or
		// a value of an MCP server's env that the server's error quotes.
		agent.WithRedactor(model.NewRedactor(c.logSecrets(f, servers)...)),
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
		opts = append(opts, agent.WithEvents(advised(event.JSONLines(stdout))))
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
		opts = append(opts, agent.WithEvents(advised(withHints(s.trace.Event))))
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

// parseProtocol reads --protocol.
func parseProtocol(s string) (agent.Protocol, error) {
	switch p := agent.Protocol(strings.ToLower(strings.TrimSpace(s))); p {
	case agent.ProtocolText, agent.ProtocolNative, agent.ProtocolAuto:
		return p, nil
	}
	return "", usagef("--protocol must be text, native or auto, got %q%s", s, didYouMean(s, []string{"text", "native", "auto"}))
}

// parseConstrain reads --constrain, which binds only the text protocol.
func parseConstrain(s string, protocol agent.Protocol) (agent.Constrain, error) {
	switch c := agent.Constrain(strings.ToLower(strings.TrimSpace(s))); c {
	case agent.ConstrainAuto, agent.ConstrainOff:
		return c, nil
	case agent.ConstrainOn:
		if protocol != agent.ProtocolText {
			return "", usagef("--constrain on binds the text protocol; pass --protocol text, or --constrain auto")
		}
		return c, nil
	}
	return "", usagef("--constrain must be auto, on or off, got %q%s", s, didYouMean(s, []string{"auto", "on", "off"}))
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
		fmt.Fprintf(s.stderr, "react-agent: %s\n", tools.Visible(advise(err)))
	}
	if errors.Is(err, agent.ErrNoAnswer) || errors.Is(err, agent.ErrRepeatedParseError) {
		return exitError(exitNoAnswer)
	}
	return exitError(exitFailure)
}
