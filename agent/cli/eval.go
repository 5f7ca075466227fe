package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent"
	evalpkg "github.com/react-agent/react-agent/agent/eval"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/agent/telemetry"
	"github.com/react-agent/react-agent/agent/trace"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
)

// evalFlags are the flags of eval.
type evalFlags struct {
	*toolFlags
	models        []string
	baseURL       string
	protocols     string
	jobs          int
	timeout       time.Duration
	maxIterations int
	apiKey        string
	prompt        string
	numCtx        int
	maxTokens     int
	temperature   float64
	json          bool
	failures      bool
	record        string
	replay        string
	otlpEndpoint  string
}

// addEvalFlags adds the flags of eval to fs.
func addEvalFlags(fs *pflag.FlagSet) *evalFlags {
	f := &evalFlags{}
	ollama, _ := model.Lookup("ollama")
	fs.StringSliceVar(&f.models, "models", []string{"ollama:" + ollama.DefaultModel}, "models to compare, comma-separated, each provider:model@base-url (the provider and the URL may be left out: ollama on its usual address, or the server at the URL as it answers)")
	fs.StringVar(&f.baseURL, "base-url", "", "the server of every model in --models given without a URL, as if written model@URL; without --models, the model that server serves")
	fs.Var(someOf(&f.protocols, string(agent.ProtocolText), "protocol", evalpkg.Text, evalpkg.Constrained, evalpkg.Native), "protocol", `protocols to compare, comma-separated: "text", "constrained" (text, bound to the tools by the server), "native", as in "text,constrained,native"`)
	fs.IntVarP(&f.jobs, "jobs", "j", 1, "runs at once (models on different servers share the load)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "time limit of each question")
	fs.IntVar(&f.maxIterations, "max-iterations", 10, "model calls a question may take before the model is asked for its best answer")
	fs.StringVar(&f.apiKey, "api-key", "", "API key for the models that need one (default: the provider's variable, such as OPENAI_API_KEY, for a model given with its provider; a server found at a model's URL gets none)")
	addPromptFlag(fs, &f.prompt)
	fs.Var(atLeast(&f.numCtx, 0, 1, model.DefaultNumCtx), "num-ctx", numCtxUsage)
	fs.IntVar(&f.maxTokens, "max-tokens", model.DefaultMaxTokens, "tokens one reply may hold, sent on every call (-1: the server's own bound); a reply cut at it is never an answer")
	fs.Var(temperature(&f.temperature), "temperature", "sampling temperature, from 0 to 2")
	fs.BoolVar(&f.json, "json", false, "print one JSON object a run instead of the table")
	fs.BoolVar(&f.failures, "failures", false, "after the table, show each wrong or failed run: what the model answered and wrote")
	fs.StringVar(&f.record, "record", "", "write one cassette a run to this directory, to replay the evaluation offline")
	pathFlag(fs, "record")
	fs.StringVar(&f.replay, "replay", "", "answer from the cassettes in this directory, written with --record, offline")
	pathFlag(fs, "replay")
	grouped(fs, "Trace flags", func() { addTraceFlag(fs, &f.otlpEndpoint) })
	f.toolFlags = addToolFlags(fs)
	addToolChoice(fs, f.toolFlags)
	addYes(fs, f.toolFlags)
	return f
}

// evalCommand is `react-agent eval SET.jsonl`: every question of the set
// asked of every model with every protocol, and the comparison.
func evalCommand() *command {
	return &command{
		name: "eval", args: "[flags] SET.jsonl", does: "compare models and protocols on a question set",
		synopsis: "eval [flags] SET.jsonl",
		examples: `  react-agent eval --models ollama:qwen2.5:7b,ollama:llama3.1:8b \
      --protocol text,native testdata/eval/arithmetic.jsonl
  react-agent eval -j 4 \
      --models openai:qwen2.5-7b-instruct@http://127.0.0.1:1234/v1 set.jsonl
  react-agent eval --base-url http://127.0.0.1:8080 set.jsonl
      (the model the server there serves)
  react-agent eval --replay testdata/eval/replay \
      --models ollama:neat,ollama:sloppy --protocol text,native \
      testdata/eval/arithmetic.jsonl
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addEvalFlags(fs)
			return func(c *call) error { return runEval(c, f) }
		},
		check: func(args []string) error {
			if len(args) != 1 {
				return usagef("eval takes one question set, a JSONL file (got %d arguments)", len(args))
			}
			return nil
		},
		signals:  signalsCancel,
		complete: func(*env, []string) ([]candidate, bool) { return nil, true },
	}
}

// runEval runs the evaluation.
func runEval(c *call, f *evalFlags) error {
	stdout, stderr := c.stdout, c.stderr
	if err := contradicting(c.fs, "record", "replay"); err != nil {
		return err
	}
	var replayed *replaySettings
	if f.replay != "" {
		var err error
		if replayed, err = adoptRecording(c.fs, f.replay); err != nil {
			return err
		}
	}
	if f.maxIterations < 1 {
		return usagef("%s must be at least 1, got %d", asGiven(c.fs, "max-iterations"), f.maxIterations)
	}
	tmpl, err := promptTemplate(f.prompt, "", "")
	if err != nil {
		return err
	}
	qs, err := evalpkg.LoadQuestions(c.args[0])
	if err != nil {
		return &usageError{err}
	}
	given, err := f.atBaseURL(c)
	if err != nil {
		return err
	}
	targets, err := evalpkg.ParseTargets(given, strings.Split(f.protocols, ","))
	if err != nil {
		return usagef("%v (see --help)", err)
	}
	for _, t := range targets {
		if _, _, _, err := evalpkg.ParseModel(t.Model, model.Names()); err != nil {
			return usagef("--models: %v", err)
		}
		if shown := escape.Visible(t.Model); shown != t.Model {
			return usagef("--models: %s holds characters that do not show as written; give the model and its server's URL in plain text", shown)
		}
	}
	if f.record != "" || f.replay != "" {
		if err := evalpkg.CheckCassettes(targets, qs); err != nil {
			return &usageError{err}
		}
	}
	if f.record != "" {
		if err := os.MkdirAll(f.record, 0o755); err != nil {
			return err
		}
	}
	base, err := builtins(f.tools())
	if err == nil {
		base, err = chooseTools(base, f.chosen.names, asGiven(c.fs, "tool"))
	}
	if err != nil {
		return err
	}
	for _, q := range qs {
		for _, name := range q.Tools {
			if _, ok := base.Get(name); !ok {
				return usagef("question %s asks for the tool %q, which is not enabled (enabled: %s)", q.ID, name, strings.Join(base.ToolNames(), ", "))
			}
		}
	}
	traces, err := c.startTraces(f.otlpEndpoint)
	if err != nil {
		return err
	}
	defer c.stopTraces(traces)
	if f.record != "" {
		if err := writeRecording(f.record, f.recordedNow(base)); err != nil {
			return err
		}
	}
	if note := replayed.note(); note != "" {
		fmt.Fprintf(stderr, "react-agent: %s\n", c.forTerminal(stderr, note))
	}
	ctx := c.ctx
	progress := trace.NewProgress(stderr, c.terminal(stderr) && c.getenv("TERM") != "dumb", c.width(stderr), c.now)
	failedSoFar := 0
	failed := &runFailures{}
	models := &sharedModels{}
	defer models.close()
	report, err := evalpkg.Run(ctx, targets, qs, failed.keep(f.runner(c.env, base, tmpl, models, traces)), evalpkg.Options{Concurrency: f.jobs, Timeout: f.timeout,
		TracerProvider: traces.Provider,
		Progress: func(done, total int, last evalpkg.Outcome) {
			mark := "right"
			switch {
			case last.TimedOut:
				mark = "timed out"
			case last.Err != "":
				mark = "failed"
			case !last.Correct:
				mark = "wrong"
			}
			if last.Err != "" {
				failedSoFar++
			}
			progress.Update(done, total, failedSoFar, last.Target.Model, fmt.Sprintf("%s %s: %s", last.Target.Protocol, last.Question.ID, mark))
		}})
	progress.Done()
	if err != nil && ctx.Err() != nil {
		err = errInterrupted
	}
	if err == nil {
		err = failed.err(report, replayed)
	}
	timedOut := 0
	for _, o := range report.Outcomes {
		if o.TimedOut {
			timedOut++
		}
	}
	if err == nil && timedOut > 0 && timedOut == len(report.Outcomes) {
		err = &allTimedOut{runs: timedOut, limit: f.timeout}
	}
	// After the table, or the JSON: what the person can do about runs
	// that reached the time limit, unless the error says it.
	var limitNote string
	if timedOut > 0 && !errors.As(err, new(*allTimedOut)) {
		limitNote = fmt.Sprintf("react-agent: %d of %s reached the time limit of %s, counted as failed; raise --timeout to allow more\n",
			timedOut, plural(len(report.Outcomes), "run", "runs"), f.timeout)
	}
	if f.json {
		if werr := report.WriteJSON(c.jsonOut(stdout)); werr != nil {
			return werr
		}
		fmt.Fprint(stderr, limitNote)
		return err
	}
	report.HideTime = f.replay != "" // a replay's numbers are the recording's, its times are not
	report.Width = c.width(stdout)
	if werr := report.WriteTable(stdout); werr != nil {
		return werr
	}
	wrong := 0
	for _, o := range report.Outcomes {
		if !o.Correct {
			wrong++
		}
	}
	if f.failures && wrong > 0 {
		fmt.Fprintln(stdout)
		report.WriteFailures(c.forTerminalWriter(stdout))
	}
	// Last, what can be done: the runs that reached the time limit are
	// said after the failures that show them.
	fmt.Fprint(stderr, limitNote)
	switch {
	case f.failures && wrong > 0:
	case err != nil:
	case wrong > 0 && c.terminal(stderr):
		fmt.Fprintf(stderr, "react-agent: %d of %s wrong or failed; --failures shows what was written\n", wrong, plural(len(report.Outcomes), "run", "runs"))
	}
	return err
}

// atBaseURL returns the models to evaluate, each given without a URL
// given --base-url's: provider:model@URL. Without --models from any
// source, it is the model the server at --base-url serves, found as ask
// finds it: the server is asked which it is (when it is not a replay)
// and which models it serves, and one is taken; several are named, for
// the person to choose with --models.
func (f *evalFlags) atBaseURL(c *call) ([]string, error) {
	if f.baseURL == "" {
		return f.models, nil
	}
	if shown := escape.Visible(f.baseURL); shown != f.baseURL {
		return nil, usagef("--base-url: %s holds characters that do not show as written; give the server's URL in plain text", shown)
	}
	if u, err := url.Parse(f.baseURL); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, usagef("--base-url takes a server's address, like http://127.0.0.1:8080; got %q", hideURLSecrets(f.baseURL))
	}
	if c.fs.Changed("models") || f.replay != "" {
		var out []string
		for _, m := range f.models {
			if _, _, at, _ := evalpkg.ParseModel(m, model.Names()); at == "" && strings.TrimSpace(m) != "" {
				m = strings.TrimSpace(m) + "@" + f.baseURL
			}
			out = append(out, m)
		}
		return out, nil
	}
	cfg := c.withEnv(model.Config{BaseURL: f.baseURL, APIKey: f.apiKey})
	found, err := model.Identify(c.ctx, cfg)
	switch {
	case errors.Is(err, model.ErrUnknownServer), errors.Is(err, model.ErrNoServer), errors.Is(err, model.ErrRedirected):
		return nil, interrupted(c.ctx, err)
	case err == nil:
		cfg = found
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	names, err := model.List(ctx, cfg)
	if err != nil {
		return nil, interrupted(c.ctx, err)
	}
	var typable []string
	for _, n := range names {
		if checkModelName(n) == nil {
			typable = append(typable, n)
		}
	}
	where := hideURLSecrets(f.baseURL)
	switch len(typable) {
	case 0:
		return nil, usagef("the server at %s serves no model; name the models to compare with --models", where)
	case 1:
		return []string{typable[0] + "@" + f.baseURL}, nil
	}
	shown := typable
	if len(shown) > 10 {
		shown = append(shown[:10:10], "…")
	}
	return nil, usagef("the server at %s serves %d models (%s); name those to compare with --models, as in --models %s,%s",
		where, len(typable), strings.Join(shown, ", "), typable[0], typable[1])
}

// runFailures keeps the errors of the runs that failed to run, as
// opposed to those the model answered wrongly or not at all.
type runFailures struct {
	mu   sync.Mutex
	errs map[string]error
}

// keep returns run, keeping the errors of the runs that failed to run.
func (r *runFailures) keep(run evalpkg.Runner) evalpkg.Runner {
	return func(ctx context.Context, t evalpkg.Target, q evalpkg.Question) (evalpkg.Result, error) {
		res, err := run(ctx, t, q)
		if err != nil && res.Answer == "" && failedToRun(err) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.errs == nil {
				r.errs = map[string]error{}
			}
			r.errs[t.String()+"\x00"+q.ID] = err
		}
		return res, err
	}
}

// failedToRun reports whether err stopped a run for what is no fault of
// the model's answers: a server that cannot be reached, a model it does
// not have, a time limit, a cassette that is not there. A model that
// never gave an answer, never followed the format, or wrote on until its
// reply filled the window or the server stopped it for repeating itself,
// answered wrongly.
func failedToRun(err error) bool {
	if errors.Is(err, agent.ErrRepeatedParseError) || errors.Is(err, model.ErrContextFull) || errors.Is(err, model.ErrStreamCut) {
		return false
	}
	return !errors.Is(err, agent.ErrNoAnswer) || errors.Is(err, context.DeadlineExceeded)
}

// err returns an error that counts the runs of report that failed to run
// and gives the first one's cause, or nil when every run ran.
func (r *runFailures) err(report *evalpkg.Report, replayed *replaySettings) error {
	var first error
	var where string
	n := 0
	for _, o := range report.Outcomes {
		if e, ok := r.errs[o.Target.String()+"\x00"+o.Question.ID]; ok && !o.TimedOut {
			if n++; first == nil {
				first, where = e, fmt.Sprintf("%s with %s, question %s", o.Target.Model, o.Target.Protocol, o.Question.ID)
			}
		}
	}
	if first == nil {
		return nil
	}
	e := &evalFailure{n: n, total: len(report.Outcomes), where: where, err: first}
	if errors.Is(first, model.ErrDiverged) {
		e.also = replayed.diverged()
	}
	return e
}

// allTimedOut is an evaluation none of whose runs finished: each reached
// the time limit.
type allTimedOut struct {
	runs  int
	limit time.Duration
}

func (e *allTimedOut) Error() string {
	all := "all " + strconv.Itoa(e.runs)
	if e.runs == 1 {
		all = "the one run"
	}
	return fmt.Sprintf("no run finished: %s reached the time limit of %s; raise --timeout to allow more", all, e.limit)
}

// evalFailure is an evaluation some of whose runs failed to run.
type evalFailure struct {
	n, total int
	where    string
	err      error
	also     string // what else to say: what may have made a replay diverge
}

func (e *evalFailure) Error() string {
	runs := "runs"
	if e.total == 1 {
		runs = "run"
	}
	x := evalAdvice(e.err)
	msg := fmt.Sprintf("%d of %d %s failed to run, the first (%s) because %s", e.n, e.total, runs, e.where, explanation{x.what, x.do})
	if e.also != "" {
		msg += "\n" + e.also
	}
	return msg
}

// evalAdvice explains err for eval, whose models and their servers are
// given with --models (or --base-url) rather than --model, and whose
// cassettes are a folder's.
func evalAdvice(err error) explanation {
	var me *model.Error
	var diverged *cassette.DivergedError
	const inModels = "check the model and its server's address in --models (or --base-url), as in "
	ollama, _ := model.Lookup("ollama")
	switch x := explain(err, situation{}); {
	case errors.As(err, &diverged):
		x.do = "record the evaluation again with --record DIR against the models"
		return x
	case errors.Is(err, model.ErrNoServer) && errors.As(err, &me):
		what, do := nothingAnswered(me)
		return explanation{what, or(do, "check the model's address in --models (or --base-url), or give its provider there, as in openai:MODEL@URL")}
	case errors.As(err, &me) && (me.Fix == model.SettingBaseURL || me.Fix == model.SettingModel):
		x.do = or(me.Hint, inModels+"ollama:"+ollama.DefaultModel+"@"+ollama.Address)
		return x
	default:
		return x
	}
}

// runner returns how eval runs one question against one target: the
// target's model, which models keeps for every run of the model given
// (replaying or recording a cassette of the run's own), the tools the
// question asks for, and an agent, whose spans go to traces.
func (f *evalFlags) runner(e *env, base *tools.Registry, tmpl *prompt.Template, models *sharedModels, traces *telemetry.Traces) evalpkg.Runner {
	return func(ctx context.Context, t evalpkg.Target, q evalpkg.Question) (evalpkg.Result, error) {
		protocol, constrain := agent.Protocol(t.Protocol), agent.ConstrainOff
		if t.Protocol == evalpkg.Constrained {
			protocol, constrain = agent.ProtocolText, agent.ConstrainOn
		}
		name := evalpkg.Cassette(t, q)
		var m llms.Model
		var err error
		if f.replay != "" {
			m, err = openModel(ctx, model.Config{Provider: "replay"}, cassetteFlags{replay: filepath.Join(f.replay, name)})
		} else {
			m, err = models.get(ctx, t.Given(), func(ctx context.Context) (llms.Model, error) { return f.openModel(ctx, e, t.Given()) })
		}
		if err == nil && f.record != "" {
			m, err = recorded(m, filepath.Join(f.record, name))
		}
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
		opts := append([]agent.Option{agent.WithMaxIterations(f.maxIterations), agent.WithProtocol(protocol), agent.WithConstrain(constrain),
			agent.WithTemplate(tmpl), agent.WithHooks(agent.Confirmation(reg, tools.NewTerminalConfirmer(nil, io.Discard, f.yes)))},
			spanOptions(traces)...)
		if f.timeout > 0 {
			// The limit is the question's, which the run's error names; a
			// run that reaches it has failed, and is not asked for an
			// answer.
			opts = append(opts, agent.WithTimeout(f.timeout), agent.WithGracePeriod(0))
		}
		a := agent.New(m, reg, opts...)
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

// openModel opens the model given as --models gives it,
// provider:model@url: at an address without a provider, the server says
// which it is, as with --base-url alone, and gets only --api-key.
func (f *evalFlags) openModel(ctx context.Context, e *env, given string) (llms.Model, error) {
	provider, name, url, _ := evalpkg.ParseModel(given, model.Names())
	cfg := e.withEnv(model.Config{Provider: provider, Model: name, BaseURL: url, APIKey: f.apiKey, NumCtx: f.numCtx,
		MaxTokens: f.maxTokens, Temperature: f.temperature})
	if provider == "" && url != "" {
		found, err := model.Identify(ctx, cfg)
		switch {
		case errors.Is(err, model.ErrUnknownServer), errors.Is(err, model.ErrNoServer), errors.Is(err, model.ErrRedirected):
			return nil, err
		case err == nil:
			cfg = found
		}
	}
	return model.New(ctx, cfg)
}

// sharedModels are the models of an evaluation, one for each model given
// with its server, each opened when a run first asks for it and kept for
// the runs after, which share its connections to the server.
type sharedModels struct {
	mu     sync.Mutex
	models map[string]*sharedModel
}

// sharedModel is a model of sharedModels, or none yet.
type sharedModel struct {
	mu sync.Mutex // held while the model is opened
	m  llms.Model
}

// get returns the model kept for key, opening it with open when none is
// kept yet; a model that failed to open is opened again by the next run.
func (s *sharedModels) get(ctx context.Context, key string, open func(context.Context) (llms.Model, error)) (llms.Model, error) {
	s.mu.Lock()
	if s.models == nil {
		s.models = map[string]*sharedModel{}
	}
	sm := s.models[key]
	if sm == nil {
		sm = &sharedModel{}
		s.models[key] = sm
	}
	s.mu.Unlock()
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.m == nil {
		m, err := open(ctx)
		if err != nil {
			return nil, err
		}
		sm.m = m
	}
	return sm.m, nil
}

// close closes the connections the models keep open.
func (s *sharedModels) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sm := range s.models {
		sm.mu.Lock()
		if c, ok := sm.m.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
		sm.mu.Unlock()
	}
}
