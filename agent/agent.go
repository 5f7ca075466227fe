package agent

import (
	"slices"
	"sync/atomic"

	"github.com/react-agent/react-agent/agent/event"

	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/trace"

	"github.com/react-agent/react-agent/agent/constrain"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
)

// Sentinel errors of a run and of its warnings, for errors.Is.
var (
	// ErrRepeatedParseError is matched by the error of a run that ended
	// because the model wrote the same unparseable reply three times in a
	// row.
	ErrRepeatedParseError = errors.New("the model kept replying in a form the agent cannot read")
	// ErrNoAnswer is matched by the error of a run that reached a limit
	// and could not get a final answer from the model.
	ErrNoAnswer = errors.New("no final answer")
	// ErrFallbackTemplate is matched by the Err of the notice that a run
	// goes on with the template of WithFallbackTemplate, the prompt of
	// the first being longer than the model's context window.
	ErrFallbackTemplate = errors.New("the prompt is longer than the model's context window; the smaller template is used")
	// ErrPromptTooLarge is matched by the error of a run whose prompt grew
	// past maxPromptBytes, far beyond any model's context window.
	ErrPromptTooLarge = errors.New("the prompt is too large")
	// ErrTokenLimit is matched by the error of a run that ended because
	// the server kept cutting the model's replies at the token limit of a
	// reply (model.Config.MaxTokens, or the server's own): a cut reply is
	// never an answer, and never runs a tool.
	ErrTokenLimit = errors.New("the model's replies were cut off at the token limit of a reply")
)

// maxPromptBytes bounds the prompt of one model call, whatever the
// replies and observations it gathers.
const maxPromptBytes = 16 << 20

// Agent answers questions with a model and tools. An Agent is safe for
// concurrent use if its model, tools and hooks are.
type Agent struct {
	model  llms.Model
	gen    model.Generator // model, as the agent calls it
	reg    *tools.Registry
	parser *parser.Parser
	opts   options

	constraints *constrain.Set // the registry's constraints, or nil
	saidBinding atomic.Bool    // the trace was told how steps are bound
	// fellBack says that a prompt of the template did not fit the
	// model's context window: the runs use the fallback template.
	fellBack atomic.Bool

	tracer trace.Tracer      // makes the spans of runs
	about  model.Description // the model as its spans name it
}

// template returns the template of the text protocol: the fallback one
// once a prompt of the first did not fit the context window.
func (a *Agent) template() *prompt.Template {
	if a.opts.fallback != nil && a.fellBack.Load() {
		return a.opts.fallback
	}
	return a.opts.template
}

// New returns an agent that asks the model m and calls the tools in reg,
// which may be nil for none. A model that is a model.Generator (those of
// package model) is called through it, and tells the agent its usage,
// stop reason, served model and server typed; any other llms.Model is
// called through model.AsGenerator.
func New(m llms.Model, reg *tools.Registry, opts ...Option) *Agent {
	if reg == nil {
		reg, _ = tools.NewRegistry()
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if o.contextWindow == 0 {
		if w, ok := m.(model.Windowed); ok {
			o.contextWindow = w.ContextWindow()
		}
	}
	a := &Agent{model: m, gen: model.AsGenerator(m), reg: reg, parser: parser.New(reg), opts: o}
	a.constraints = constraintsFor(o, a)
	a.initSpans()
	return a
}

// Run answers question. It always returns a Result, which holds the steps
// taken even when the run fails. The error is nil when the result has an
// answer, forced or not.
func (a *Agent) Run(ctx context.Context, question string) (*Result, error) {
	return a.answer(ctx, nil, question, 0)
}

// runState holds the state of one run.
type runState struct {
	a      *Agent
	res    *Result
	start  time.Time
	tr     transcript
	native bool // the run speaks the native protocol
	turn   int  // the conversation's question number, or 0
	// question is the question of the run.
	question string
	// history is the conversation's earlier turns.
	history []Turn

	bytesPerToken   float64 // measured on the last prompt the server counted
	sent            int     // the bytes of the last prompt sent
	window          int     // the context window the server reported when it refused a prompt, or 0
	refitted        bool    // a prompt the server refused as too large was fitted again
	fitTurns        int     // turns left out to fit the context window
	fitObservations int     // observations shortened to fit it
	fitSaid         bool    // the warning that says so was given
	fitNewest       bool    // the newest observation was shortened, and the warning said so
	warned          bool
	fellBack        bool // the run went on with the fallback template
	reminded        bool // a correction reminded the model of the format
	iter            int  // the iteration of the last model call
	lastErr         error
	repeats         int
	dropped         []string             // the refused parameters already warned about
	calls           map[string]*pastCall // the tool calls made, by tool and arguments
	bound           *binding             // how the steps are bound, or nil
}

// answer runs the loop for question after the turns of history.
// The run's events carry turn, the number of a conversation's question
// (0 for a single question).
func (a *Agent) answer(ctx context.Context, history []Turn, question string, turn int) (*Result, error) {
	r := &runState{a: a, res: &Result{Question: question}, start: time.Now(), calls: map[string]*pastCall{}, turn: turn}
	ctx, span := a.startRun(ctx, question)
	res, err := r.loop(ctx, history, question)
	res.Duration = time.Since(r.start)
	if err != nil {
		switch {
		case (res.StopReason == "" || res.StopReason == event.StopError) && errors.Is(ctx.Err(), context.Canceled):
			// A hook that gave up because the caller cancelled the run
			// (a confirmation prompt, say) returns an error like any other.
			res.StopReason = event.StopCancelled
		case res.StopReason == "":
			res.StopReason = event.StopError
		}
		// The iteration of the last model call: the forced answer's,
		// past the loop's, when it was asked for.
		r.emit(event.Event{Kind: event.Error, Iteration: max(res.Iterations, r.iter), Text: err.Error(), Err: err, StopReason: res.StopReason})
	}
	a.opts.hooks.OnFinish(ctx, res)
	a.endRun(span, res, err)
	return res, err
}

func (r *runState) emit(e event.Event) {
	e.Elapsed, e.Turn = time.Since(r.start), r.turn
	for _, fn := range r.a.opts.events {
		fn(e)
	}
}

func (r *runState) loop(ctx context.Context, history []Turn, question string) (*Result, error) {
	a, res := r.a, r.res
	r.history = history
	if a.opts.fallback != nil && a.fellBack.Load() {
		// An earlier run found the template too large for the window.
		r.fellBack, res.FellBack = true, true
	}
	if a.opts.protocol == ProtocolNative || a.opts.protocol == ProtocolAuto {
		r.tr, r.native = a.nativeMessages(history, question), true
	} else {
		bindCtx := ctx
		if a.opts.timeout > 0 {
			// Writing the constraints of large schemas takes time too.
			var cancel context.CancelFunc
			bindCtx, cancel = context.WithDeadline(ctx, r.start.Add(a.opts.timeout))
			defer cancel()
		}
		tmpl, err := r.bind(bindCtx, 1)
		if err != nil {
			res.StopReason = event.StopError
			return res, err
		}
		t, err := a.textTranscript(history, question, tmpl)
		if err != nil {
			res.StopReason = event.StopError
			return res, err
		}
		r.tr = t
	}

	r.question = question
	if err := r.questionTooLong(ctx, question, nil); err != nil {
		res.StopReason = event.StopError
		return res, err
	}
	runCtx := ctx
	if a.opts.timeout > 0 {
		// The loop stops early enough to leave the forced answer its
		// part of the time.
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, r.start.Add(a.opts.timeout-a.opts.reserve()))
		defer cancel()
	}
	for iter := 1; ; iter++ {
		if stop, ok := r.stopped(ctx, runCtx); ok {
			return r.force(ctx, runCtx, stop)
		}
		if iter > a.opts.maxIterations {
			return r.force(ctx, runCtx, event.StopMaxIterations)
		}
		res.Iterations = iter
		reply, err := r.ask(runCtx, iter, false)
		if err != nil && errors.Is(err, ErrToolsRefused) && a.opts.protocol == ProtocolAuto && r.native {
			// The text protocol goes on bound as a run of it binds.
			tmpl, terr := r.bind(runCtx, iter)
			var t transcript
			if terr == nil {
				t, terr = a.textTranscript(history, question, tmpl)
			}
			if terr != nil {
				res.StopReason = event.StopError
				return res, terr
			}
			r.tr, r.native = t, false
			r.emit(event.Event{Kind: event.Warning, Iteration: iter, Err: err,
				Text: "the server takes no tool definitions for this model; the run goes on with the text protocol"})
			reply, err = r.ask(runCtx, iter, false)
		}
		if err != nil {
			if stop, ok := r.stopped(ctx, runCtx); ok {
				return r.force(ctx, runCtx, stop)
			}
			res.StopReason = event.StopError
			return res, err
		}
		if err := a.opts.hooks.AfterParse(runCtx, reply); err != nil {
			res.StopReason = event.StopError
			return res, err
		}
		step := Step{Iteration: iter, Kind: reply.Step.Kind, Thought: reply.Step.Thought, Reasoning: reply.Reasoning,
			Reply: reply.Text, ModelDuration: reply.Duration, Usage: reply.Usage}
		if reply.Err != nil {
			if err := r.parseFailed(iter, reply, step); err != nil {
				return res, err
			}
			continue
		}
		switch {
		case reply.rescued:
			res.Rescued++
		case !r.native && !r.canonical(reply):
			res.Recovered++
		}
		r.lastErr, r.repeats = nil, 0
		r.emit(event.Event{Kind: event.Thought, Iteration: iter, Duration: reply.Duration,
			Text: reply.Step.Thought, Reasoning: reply.Reasoning})
		if reply.Step.Kind == parser.KindFinal {
			step.Answer = reply.Step.FinalAnswer
			res.Steps = append(res.Steps, step)
			res.Answer, res.StopReason = reply.Step.FinalAnswer, event.StopFinalAnswer
			r.emit(event.Event{Kind: event.Final, Iteration: iter, Duration: reply.Duration, Text: res.Answer,
				Iterations: res.Iterations, StopReason: event.StopFinalAnswer, Usage: res.Usage})
			return res, nil
		}
		if err := r.act(runCtx, iter, reply, step); err != nil {
			if errors.Is(err, errRepeatedCall) {
				return r.force(ctx, runCtx, event.StopRepeatedCall)
			}
			res.StopReason = event.StopError
			return res, err
		}
	}
}

// stopped reports whether the run must stop because the caller cancelled
// it or its time ran out.
func (r *runState) stopped(ctx, runCtx context.Context) (event.StopReason, bool) {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return event.StopCancelled, true
	case runCtx.Err() != nil:
		return event.StopTimeout, true
	}
	return "", false
}

// ask makes one model call with the scratchpad so far and parses the reply.
func (r *runState) ask(ctx context.Context, iter int, forced bool) (*Reply, error) {
	a := r.a
	if size := r.tr.size(); size > maxPromptBytes {
		return nil, fmt.Errorf("agent: %w: %d bytes, more than the %d a run may send", ErrPromptTooLarge, size, maxPromptBytes)
	}
	r.checkWindow(ctx, iter)
	msgs := r.tr.messages()
	r.sent = r.tr.size()
	if err := a.opts.hooks.BeforeModel(ctx, &ModelRequest{Iteration: iter, Messages: msgs, Forced: forced}); err != nil {
		return nil, err
	}
	r.emit(event.Event{Kind: event.Model, Iteration: iter, Forced: forced, Messages: msgs})
	spans := a.startChat(ctx, iter, forced, msgs)
	defer spans.end()
	var mr generation
	var err error
	if r.native {
		mr, err = a.generateNative(ctx, msgs, !forced, iter, r.emit, spans)
	} else {
		mr, err = a.generate(ctx, msgs, r.constraint(forced), iter, r.emit, r.showTokens(iter), spans)
	}
	r.warnDropped(iter)
	r.warnRefused(iter)
	if err != nil && (r.fallBack(ctx, iter, err) || r.refit(iter, mr.attempts+1, err)) {
		return r.ask(ctx, iter, forced)
	}
	var me *model.Error
	if err != nil && !errors.Is(err, model.ErrContextFull) && errors.As(err, &me) && errors.Is(me, model.ErrContextOverflow) &&
		me.StatusCode != 0 && me.PromptTokens > 0 && r.sent > 0 {
		// The server counted the prompt it refused: the question's
		// share of it may be more than the window alone.
		r.bytesPerToken = float64(r.sent) / float64(me.PromptTokens)
		if me.ContextTokens > 0 {
			r.window = me.ContextTokens
		}
		if qerr := r.questionTooLong(ctx, r.question, err); qerr != nil {
			err = qerr
		}
	}
	r.iter = iter
	r.res.Usage.Add(mr.usage)
	if mr.model != "" {
		r.res.Model = mr.model
	}
	if p := mr.usage.PromptTokens; p > 0 && r.sent > 0 {
		// A server that reuses a cached prompt may count only the tokens
		// it did not have: a ratio no tokenizer gives is not a count.
		if bpt := float64(r.sent) / float64(p); bpt >= 1 && bpt <= 6 {
			r.bytesPerToken = bpt
		}
	}
	if err != nil {
		return nil, err
	}
	r.res.ModelCalls++
	reasoning, _ := parser.SplitReasoning(mr.text)
	if mr.reasoning != "" {
		reasoning = strings.TrimSpace(mr.reasoning + "\n" + reasoning)
	}
	reply := &Reply{Iteration: iter, Text: mr.text, Reasoning: reasoning, Duration: mr.duration, Usage: mr.usage,
		Finish: mr.finish, FinishWord: mr.finishWord, Model: mr.model, Server: mr.server, Attempts: mr.attempts}
	if r.native {
		a.readNative(reply, mr)
	} else {
		reply.Step, reply.Err = a.parser.ParseWith(mr.text, parser.Options{Truncated: mr.cut, Previous: r.pastSteps()})
	}
	spans.parsed(reply)
	return reply, nil
}

// showTokens returns the function that shows the streamed text of the reply
// of iteration iter, or nil when none is shown. Before the first piece it
// says which parameters the server refused, so that the warning that the
// agent cuts replies itself comes before the reply.
func (r *runState) showTokens(iter int) func(string) {
	show := r.a.opts.onToken
	if show == nil {
		return nil
	}
	first := true
	return func(s string) {
		if first {
			first = false
			r.warnDropped(iter)
		}
		show(s)
	}
}

// pastSteps are the calls of the run so far with the observations the
// model was shown, for the parser to know a reply that copies them.
func (r *runState) pastSteps() []parser.PastStep {
	var past []parser.PastStep
	for _, s := range r.res.Steps {
		if s.Kind == parser.KindAction && s.Action != "" {
			past = append(past, parser.PastStep{Step: parser.Step{Kind: s.Kind, Thought: s.Thought, Action: s.Action, Args: s.Args}, Observation: s.Observation})
		}
	}
	return past
}

// warnDropped says once a run which parameters the model's server refused
// and the model now leaves out.
func (r *runState) warnDropped(iter int) {
	d, ok := r.a.model.(model.Dropper)
	if !ok {
		return
	}
	for _, p := range d.Dropped() {
		if slices.Contains(r.dropped, p) {
			continue
		}
		r.dropped = append(r.dropped, p)
		what := "the temperature: the server's own is used"
		if p == "stop" {
			what = "stop sequences: the agent cuts replies itself"
		}
		r.emit(event.Event{Kind: event.Warning, Iteration: iter,
			Text: fmt.Sprintf("the server refused the parameter %q; calls are made without %s", p, what)})
	}
}

// fallBack makes the run go on with the fallback template (see
// WithFallbackTemplate) when err says that the server found the prompt
// longer than its context window, before the run's first step, and
// reports whether it did, for the prompt to be sent again.
func (r *runState) fallBack(ctx context.Context, iter int, err error) bool {
	a := r.a
	t, text := r.tr.(*textTranscript)
	if a.opts.fallback == nil || r.fellBack || !text || len(t.entries) > 0 || !errors.Is(err, model.ErrContextOverflow) {
		return false
	}
	a.fellBack.Store(true)
	tmpl, err2 := r.bind(ctx, iter)
	var next *textTranscript
	if err2 == nil {
		next, err2 = a.textTranscript(r.history, t.question, tmpl)
	}
	if err2 != nil {
		return false
	}
	r.tr, r.fellBack, r.res.FellBack = next, true, true
	said := "the prompt"
	var me *model.Error
	if errors.As(err, &me) && me.PromptTokens > 0 {
		said = fmt.Sprintf("the prompt of %d tokens", me.PromptTokens)
	}
	window := ""
	if errors.As(err, &me) && me.ContextTokens > 0 {
		window = fmt.Sprintf(" of %d tokens", me.ContextTokens)
	}
	what := said + " does not fit the model's context window" + window
	if errors.Is(err, model.ErrContextFull) {
		what = said + " left the reply no room in the model's context window" + window
	}
	r.emit(event.Event{Kind: event.Notice, Iteration: iter, Err: fmt.Errorf("%w: %w", ErrFallbackTemplate, err),
		Text: fmt.Sprintf("%s; the run goes on with the smaller template, %s", what, a.opts.fallback.Name())})
	return true
}

// contextWindow returns the model's context window in tokens: what the
// server said when it refused a prompt, else what the agent was told.
func (r *runState) contextWindow() int {
	if r.window > 0 {
		return r.window
	}
	return r.a.opts.contextWindow
}

// refit fits the text transcript again, once a run, after the server
// refused (or cut) a prompt as larger than its context window and said
// how many tokens the prompt is (llama-server), or at least the window it
// did not fit (Ollama): the tokens a byte are now known, or known to be
// more than thought. It reports whether the prompt now fits, to be sent
// again as attempt attempt of the call, which a retry event says.
func (r *runState) refit(iter, attempt int, err error) bool {
	var me *model.Error
	t, text := r.tr.(*textTranscript)
	if r.refitted || !text || !errors.As(err, &me) || !errors.Is(err, model.ErrContextOverflow) || r.sent <= 0 ||
		me.PromptTokens <= 0 && me.ContextTokens <= 0 {
		return false
	}
	prompt, said := me.PromptTokens, "a prompt of "+strconv.Itoa(me.PromptTokens)+" tokens"
	if prompt <= 0 {
		// More than the window: a quarter more is a guess that errs
		// towards leaving out more.
		prompt, said = me.ContextTokens+me.ContextTokens/4, "a prompt"
	}
	r.refitted = true
	if me.ContextTokens > 0 {
		r.window = me.ContextTokens
	}
	w := r.contextWindow()
	if w <= 0 {
		return false
	}
	r.bytesPerToken = float64(r.sent) / float64(prompt)
	turns, observations, newest, fits := t.fit(int(float64(w-replyReserve(w)) * r.bytesPerToken))
	r.fitTurns += turns
	r.fitObservations += observations
	r.fitNewest = r.fitNewest || newest
	full := errors.Is(err, model.ErrContextFull)
	if !fits || full && turns == 0 && observations == 0 && !newest {
		// A prompt that fitted with too little room for its reply,
		// and fits the same now, would fill the window again.
		return false
	}
	left := "fitted to it"
	if turns > 0 || observations > 0 || newest {
		left, r.fitSaid = "fitted to it: it leaves out "+leftOut(turns, observations, newest), true
	}
	msg := fmt.Sprintf("the server refused %s, more than its context window of %d tokens; the prompt was %s, and sent again", said, w, left)
	if full {
		msg = fmt.Sprintf("the reply filled the context window of %d tokens after %s; the prompt was %s, to leave the reply more room, and sent again",
			w, said, left)
	}
	r.emit(event.Event{Kind: event.Retry, Iteration: iter, Attempt: attempt, RetryReason: model.RetryPromptFitted, Err: err, Text: msg})
	return true
}

// checkWindow fits the text transcript into the model's context window
// before every call, and warns once when the prompt still nears it: the
// server refuses a prompt too long, or cuts it (Ollama's OpenAI-compatible
// endpoint), and the warning says what the model knows of making the
// window larger.
func (r *runState) checkWindow(ctx context.Context, iter int) {
	w := r.contextWindow()
	if w <= 0 {
		return
	}
	tokens := r.tokens(r.tr.size())
	limit := w * 8 / 10
	fitted := false // fitting left out something not yet said
	if t, ok := r.tr.(*textTranscript); ok {
		// The text transcript was fitted to the window: warn only when
		// even the system prompt, the question and the last step are
		// too many.
		limit = w - replyReserve(w)
		fitted = r.fitWindow(t)
		tokens = r.tokens(r.tr.size())
	}
	var left string
	if fitted {
		r.fitSaid = true
		left = "leaves out " + leftOut(r.fitTurns, r.fitObservations, r.fitNewest)
	}
	switch {
	case tokens > limit && !r.warned:
		r.warned = true
		where := "near"
		if tokens > w {
			where = "over"
		}
		if left != "" {
			left = ", though it " + left
		}
		win := model.WindowOf(ctx, r.a.model)
		if win.Cuts {
			left += "; the server may drop its beginning, where the instructions are"
		}
		r.warnWindow(iter, win, fmt.Sprintf("the prompt is about %d tokens, %s the context window of %d%s", tokens, where, w, left))
	case left != "":
		r.warnWindow(iter, model.WindowOf(ctx, r.a.model), fmt.Sprintf("to fit the context window of %d tokens, the prompt %s", w, left))
	}
}

// warnWindow warns that the prompt nears or passes the context window, or
// was fitted to it, as text says, with what the model knows of making the
// window larger: the warning's Err is a *model.Error that matches
// model.ErrContextOverflow.
func (r *runState) warnWindow(iter int, win model.Window, text string) {
	err := &model.Error{Fix: win.Fix, Detail: win.Detail, Hint: win.Hint, Err: windowError(text)}
	r.emit(event.Event{Kind: event.Warning, Iteration: iter, Text: err.Error(), Err: err})
}

// windowError is the warning that the prompt nears or passes the context
// window, or was fitted to it, in words that say which; it matches
// model.ErrContextOverflow, whose words it does not take.
type windowError string

func (e windowError) Error() string { return string(e) }

func (e windowError) Is(target error) bool { return target == model.ErrContextOverflow }

// replyReserve is the part of a context window of w tokens kept for the
// reply: Ollama counts the generated tokens in the window too.
func replyReserve(w int) int { return min(w/8, 512) }

// tokens estimates how many tokens a prompt of n bytes is: with the
// server's own count of the last prompt when it gave one, and at three
// bytes a token before, which errs towards fewer bytes a token, as text
// in other scripts than English has.
func (r *runState) tokens(n int) int {
	if r.bytesPerToken > 0 {
		return int(float64(n) / r.bytesPerToken)
	}
	return n / 3
}

// fitWindow fits the text transcript into the context window before a
// model call. It reports whether that left out something to say: the
// first time anything, and once more the first time the newest
// observation, the one the model needs next, had to be shortened too.
func (r *runState) fitWindow(t *textTranscript) bool {
	w := r.contextWindow()
	bpt := r.bytesPerToken
	if bpt <= 0 {
		bpt = 3
	}
	turns, observations, newest, _ := t.fit(int(float64(w-replyReserve(w)) * bpt))
	r.fitTurns += turns
	r.fitObservations += observations
	say := (turns > 0 || observations > 0 || newest) && (!r.fitSaid || (newest && !r.fitNewest))
	r.fitNewest = r.fitNewest || newest
	return say
}

// leftOut says what fitting the context window left out.
func leftOut(turns, observations int, newest bool) string {
	var parts []string
	if turns > 0 {
		parts = append(parts, plural(turns, "earlier question and its answer", "earlier questions and their answers"))
	}
	if observations > 0 {
		parts = append(parts, "most of "+plural(observations, "old observation", "old observations"))
	}
	if newest {
		parts = append(parts, "part of the newest observation")
	}
	return strings.Join(parts, " and ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// parseFailed shows the model what was wrong with its reply, and ends the
// run when the model makes the same mistake too many times in a row.
func (r *runState) parseFailed(iter int, reply *Reply, step Step) error {
	msg := r.correction(reply.Err)
	step.Error, step.Observation = msg, msg
	r.res.Steps = append(r.res.Steps, step)
	r.res.ParseErrors++
	r.emit(event.Event{Kind: event.ParseError, Iteration: iter, Duration: reply.Duration, Text: msg, Err: reply.Err, Reasoning: reply.Reasoning})
	if sameParseError(r.lastErr, reply.Err) {
		r.repeats++
	} else {
		r.lastErr, r.repeats = reply.Err, 1
	}
	if r.repeats >= r.a.opts.maxParseRepeats {
		r.res.StopReason = event.StopRepeatedParseError
		return &RepeatedParseError{Times: r.repeats, Err: reply.Err, Correction: msg}
	}
	r.tr.addReply(reply, msg)
	r.emit(event.Event{Kind: event.Observation, Iteration: iter, Text: msg, Failed: true})
	return nil
}

// correction is what the model is told of a reply the agent could not
// use, in the protocol the run speaks; the first of a run reminds it of
// the format too, in short.
func (r *runState) correction(err error) string {
	var msg, format string
	switch {
	case r.native:
		msg = nativeCorrection(err)
	case r.bound != nil && r.bound.object:
		msg, format = r.a.objectCorrection(err), objectFormat
	default:
		msg, format = err.Error(), parser.FormatReminder
	}
	if format != "" && !r.reminded {
		r.reminded = true
		msg += "\n\n" + format
	}
	return msg
}

// RepeatedParseError is the error of a run that ended because the model
// made the same mistake in its reply too many times in a row. It matches
// ErrRepeatedParseError, and ErrTokenLimit when the replies were cut at
// the bound on their tokens.
type RepeatedParseError struct {
	// Times is how many times in a row the model made the mistake.
	Times int
	// Err is the parser's error of the last reply.
	Err error
	// Correction is what the model was told of it.
	Correction string
}

func (e *RepeatedParseError) Error() string {
	if e.cut() {
		return fmt.Sprintf("agent: %v: %v, %d times in a row", ErrRepeatedParseError, ErrTokenLimit, e.Times)
	}
	return fmt.Sprintf("agent: %v: %d times in a row: %s", ErrRepeatedParseError, e.Times, e.Correction)
}

// Unwrap returns ErrRepeatedParseError, and ErrTokenLimit for replies cut
// at the bound on their tokens.
func (e *RepeatedParseError) Unwrap() []error {
	if e.cut() {
		return []error{ErrRepeatedParseError, ErrTokenLimit}
	}
	return []error{ErrRepeatedParseError}
}

// cut reports whether the replies were cut at the bound on their tokens.
func (e *RepeatedParseError) cut() bool { return errors.Is(e.Err, parser.ErrTruncated) }

func sameParseError(a, b error) bool {
	if a == nil || b == nil {
		return false
	}
	var pa, pb *parser.Error
	if errors.As(a, &pa) && errors.As(b, &pb) && pa.Err != nil {
		return errors.Is(pa.Err, pb.Err)
	}
	return a.Error() == b.Error()
}

// act runs the tool a step asks for, through the hooks, and appends the
// step and its observation to the scratchpad. Tool failures become
// observations; only a hook's error ends the run.
func (r *runState) act(ctx context.Context, iter int, reply *Reply, step Step) error {
	a, parsed := r.a, reply.Step
	key := parsed.Action + " " + prompt.FormatArgs(parsed.Args)
	if earlier, ok := r.calls[key]; ok {
		return r.repeated(iter, reply, step, earlier)
	}
	call := &ToolCall{Iteration: iter, Tool: parsed.Action, Args: parsed.Args}
	d, err := a.opts.hooks.BeforeTool(ctx, call)
	if err != nil {
		return err
	}
	if d.Args != nil {
		call.Args = d.Args
	}
	parsed.Args = call.Args
	step.Action, step.Args = call.Tool, call.Args
	r.emit(event.Event{Kind: event.Action, Iteration: iter, Tool: call.Tool, Args: call.Args})

	var obs Observation
	// A tool's error is cut as its output is: an error text can be as
	// large as an output (an MCP result with isError, a server's page).
	limit := a.reg.Limits().MaxObservation
	ctx, span := a.startTool(ctx, call, reply)
	defer func() { a.endTool(span, obs, d.Deny) }()
	if d.Deny {
		reason := d.Reason
		if reason == "" {
			reason = "the user did not allow it"
		}
		obs.Err = fmt.Errorf("the call was not run: %s", reason)
		obs.Text = "Error: " + obs.Err.Error()
	} else {
		start := time.Now()
		// Secrets go before the cut: a secret cut in two is no longer
		// found, and its first half would reach the model.
		out, err := a.reg.CallWhole(ctx, call.Tool, call.Args)
		obs = Observation{Text: tools.Truncate(a.redact(out), limit), Err: err, Duration: time.Since(start)}
		if err != nil {
			obs.Text = tools.Truncate(a.redact("Error: "+err.Error()), limit)
		}
		if err := a.opts.hooks.AfterTool(ctx, call, &obs); err != nil {
			return err
		}
	}
	obs.Text = a.redact(obs.Text) // a hook may have changed it
	if obs.Err != nil {
		step.Error = tools.Truncate(a.redact(obs.Err.Error()), limit)
	}
	step.Observation, step.ToolDuration = obs.Text, obs.Duration
	r.res.Steps = append(r.res.Steps, step)
	r.calls[key] = &pastCall{iter: iter, observation: obs.Text}
	r.tr.addStep(reply, parsed, obs.Text+r.stepsLeft(iter))
	r.emit(event.Event{Kind: event.Observation, Iteration: iter, Duration: obs.Duration, Tool: call.Tool, Text: obs.Text,
		Failed: obs.Err != nil, Err: obs.Err})
	return nil
}

// errRepeatedCall ends the loop of a model that made the same call a
// third time.
var errRepeatedCall = errors.New("the same call a third time")

// pastCall is a tool call made earlier in the run.
type pastCall struct {
	iter        int
	observation string
	repeats     int
}

// repeated answers a call the model made before with the same arguments:
// the second time with the earlier result and a word to move on, without
// running the tool again; the third time it ends the loop.
func (r *runState) repeated(iter int, reply *Reply, step Step, earlier *pastCall) error {
	parsed := reply.Step
	earlier.repeats++
	if earlier.repeats >= 2 {
		return errRepeatedCall
	}
	text := fmt.Sprintf("You made this same call at step %d, and it gave:\n%s\n"+
		"Do not call %s with these arguments again: use that result, try other arguments or another tool, "+
		"or give your final answer.", earlier.iter, earlier.observation, parsed.Action)
	step.Action, step.Args, step.Observation = parsed.Action, parsed.Args, text
	r.res.Steps = append(r.res.Steps, step)
	r.tr.addStep(reply, parsed, text+r.stepsLeft(iter))
	r.emit(event.Event{Kind: event.Action, Iteration: iter, Tool: parsed.Action, Args: parsed.Args})
	r.emit(event.Event{Kind: event.Observation, Iteration: iter, Tool: parsed.Action, Text: text, Failed: true})
	return nil
}

// stepsLeft tells the model, in its observation, how many steps it has
// left when few are: the system prompt stays the same all run long.
func (r *runState) stepsLeft(iter int) string {
	switch left := r.a.opts.maxIterations - iter; {
	case left == 1:
		return "\n(1 step left: give your final answer next.)"
	case left == 2:
		return "\n(2 steps left before you must give your final answer.)"
	}
	return ""
}

// force ends a run that reached a limit: unless the caller cancelled it, it
// asks the model once more, without tools, for its best final answer.
func (r *runState) force(ctx, runCtx context.Context, reason event.StopReason) (*Result, error) {
	a, res := r.a, r.res
	res.StopReason = reason
	if reason == event.StopCancelled {
		return res, fmt.Errorf("agent: cancelled: %w", context.Cause(ctx))
	}
	limit := &LimitError{Reason: reason, MaxIterations: a.opts.maxIterations, Timeout: a.opts.timeout}
	fctx := runCtx
	if reason == event.StopTimeout {
		if a.opts.reserve() <= 0 {
			return res, limit
		}
		var cancel context.CancelFunc
		fctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), r.start.Add(a.opts.timeout))
		defer cancel()
	}
	limit.Asked = true
	r.tr.addFinalRequest()
	iter := res.Iterations + 1
	reply, err := r.ask(fctx, iter, true)
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			res.StopReason = event.StopCancelled
			return res, fmt.Errorf("agent: cancelled: %w", context.Cause(ctx))
		}
		limit.Err = err
		return res, limit
	}
	if err := a.opts.hooks.AfterParse(fctx, reply); err != nil {
		res.StopReason = event.StopError
		return res, err
	}
	if errors.Is(reply.Err, parser.ErrTruncated) {
		limit.Err = ErrTokenLimit
		return res, limit
	}
	answer := reply.Step.FinalAnswer
	if reply.Err != nil || reply.Step.Kind != parser.KindFinal {
		// A model that still will not write the protocol: its plain text
		// is the best answer there is, unless it is another tool call.
		_, visible := parser.SplitReasoning(reply.Text)
		if reply.Err == nil || strings.Contains(strings.ToLower(visible), "action") {
			return res, limit
		}
		answer = strings.TrimSpace(visible)
	}
	res.Steps = append(res.Steps, Step{Iteration: iter, Kind: parser.KindFinal, Thought: reply.Step.Thought,
		Reasoning: reply.Reasoning, Answer: answer, Reply: reply.Text, ModelDuration: reply.Duration, Usage: reply.Usage})
	res.Answer, res.Forced = answer, true
	r.emit(event.Event{Kind: event.Final, Iteration: iter, Duration: reply.Duration, Text: answer, Reasoning: reply.Reasoning,
		Iterations: res.Iterations, Forced: true, StopReason: reason, Usage: res.Usage})
	return res, nil
}

// promptData describes the registry's tools for the prompt.
func (a *Agent) promptData(question string) prompt.Data {
	d := prompt.Data{Context: a.opts.system, Question: question}
	for _, t := range a.reg.List() {
		s := t.Schema()
		pt := prompt.Tool{Name: t.Name(), Description: t.Description(), Primary: s.Primary}
		for _, arg := range s.Args {
			pt.Args = append(pt.Args, prompt.Arg{Name: arg.Name, Type: arg.Type, Description: arg.Description, Required: arg.Required})
		}
		d.Tools = append(d.Tools, pt)
	}
	names := make([]string, len(d.Tools))
	for i, t := range d.Tools {
		names[i] = t.Name
	}
	d.ToolNames = strings.Join(names, ", ")
	return d
}

// redact removes from s the secrets of the agent's redactor (see
// [WithRedactor]), or returns s as it is without one.
func (a *Agent) redact(s string) string {
	if r := a.opts.redactor; r != nil {
		return r.Redact(s)
	}
	return s
}
