package agent

import (
	"github.com/react-agent/react-agent/agent/event"

	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
)

// generation is what a model call produced, before it is parsed: the
// model's Reply, typed, and what the agent makes of it.
type generation struct {
	text      string
	reasoning string
	calls     []llms.ToolCall // the native protocol's tool calls
	usage     model.Usage
	// finish says why the reply ended, and finishWord in the server's
	// word; cut means the reply stopped at its token limit.
	finish     model.FinishReason
	finishWord string
	cut        bool
	model      string        // the model the server says wrote the reply, or ""
	server     model.Address // the server that answered, when known
	duration   time.Duration
	attempts   int // the attempts the call took
}

// generationOf returns what the agent keeps of r.
func generationOf(r *model.Reply) generation {
	return generation{text: r.Text, reasoning: r.Reasoning, calls: r.ToolCalls, usage: r.Usage, finish: r.Finish,
		finishWord: r.FinishWord, cut: r.Finish == model.FinishLength, model: r.Model, server: r.Server}
}

// generate asks the model for the next reply, with the stop sequences,
// making a failed call again as the retry policy says (see withRetries).
// When the stop sequences cut the reply short inside a reasoning block,
// where they must not apply, it asks again without them and cuts the
// reply itself, outside reasoning only. The reply's text is passed to
// onToken, when not nil, as it streams.
func (a *Agent) generate(ctx context.Context, msgs []llms.MessageContent, con *model.Constraint, iter int, emit func(event.Event), onToken func(string), spans *chatSpans) (generation, error) {
	start := time.Now()
	notice := noticeOf(iter, emit)
	r, err := a.withRetries(ctx, iter, emit, spans, func(ctx context.Context) (generation, error) {
		return a.callOnce(ctx, msgs, a.opts.stops, con, onToken, notice)
	})
	if _, open := parser.ReasoningEnd(r.text); err == nil && len(a.opts.stops) > 0 && open {
		attempts := r.attempts
		spans.retrying(model.RetryStopsInReasoning, nil, 0)
		emit(event.Event{Kind: event.Retry, Iteration: iter, Attempt: attempts + 1, RetryReason: model.RetryStopsInReasoning,
			Text: "model call made again at once, as " + model.RetryStopsInReasoning.Words()})
		r, err = a.withRetries(ctx, iter, emit, spans, func(ctx context.Context) (generation, error) {
			return a.callOnce(ctx, msgs, nil, con, onToken, notice)
		})
		r.attempts += attempts
	}
	r.duration = time.Since(start)
	return r, err
}

// generateNative asks the model for the next reply in the native
// protocol, with the tools unless withTools is false, making a failed
// call again as the retry policy says.
func (a *Agent) generateNative(ctx context.Context, msgs []llms.MessageContent, withTools bool, iter int, emit func(event.Event), spans *chatSpans) (generation, error) {
	start := time.Now()
	notice := noticeOf(iter, emit)
	r, err := a.withRetries(ctx, iter, emit, spans, func(ctx context.Context) (generation, error) {
		return a.callNative(ctx, msgs, withTools, notice)
	})
	r.duration = time.Since(start)
	return r, err
}

// noticeOf returns the function that passes what a model says of a call
// of iteration iter, such as a context window that grows, on as a warning:
// it costs the server memory and time.
func noticeOf(iter int, emit func(event.Event)) func(string) {
	return func(msg string) { emit(event.Event{Kind: event.Warning, Iteration: iter, Text: msg}) }
}

// maxSameTries bounds the attempts of a call that failed in a way the
// same request is likely to meet again: a server that took the request
// and then sent nothing for the idle time (seldom only slow, and each
// attempt costs the whole idle time), and a reply Ollama cut (at its
// repeat limit the model, at temperature 0, writes the same again).
const maxSameTries = 2

// maxAtOnce bounds the attempts a call makes again at once, because the
// model changed what it sends (a parameter or a constraint left out, a
// larger context window) or the connection it sends it on: each change
// is made once, so a few are all there can be.
const maxAtOnce = 4

// maxRetryAfter caps the wait a server's Retry-After may ask for: a
// server that asks for longer ends the run, saying what it asked.
const maxRetryAfter = time.Minute

// withRetries makes a model call, and makes it again as the agent's one
// retry policy says, each time with a retry event that says which
// attempt, after what wait, and why. A call the model says to make again
// at once (a refused parameter now left out, a kept-alive connection the
// server closed) is made again without a wait, up to maxAtOnce times,
// besides the retries of transient failures (the Option WithRetries),
// which wait as long as the server asked (up to maxRetryAfter, past which
// the run ends) or with exponential backoff. A server that fell silent,
// and a reply Ollama cut, are tried again only once (see maxSameTries).
func (a *Agent) withRetries(ctx context.Context, iter int, emit func(event.Event), spans *chatSpans, call func(context.Context) (generation, error)) (generation, error) {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = a.opts.backoffInitial
	b.MaxInterval = a.opts.backoffMax
	b.Reset()
	retried, atOnce, silent, cut := 0, 0, 0, 0
	for attempt := 1; ; attempt++ {
		r, err := spans.attempt(ctx, call)
		r.attempts = attempt
		switch {
		case err == nil:
			return r, nil
		case errors.Is(err, ErrToolsRefused):
			return r, err
		case ctx.Err() != nil:
			return r, context.Cause(ctx)
		}
		me := model.Classify(ctx, err)
		switch {
		case errors.Is(me, model.ErrIdle):
			silent++
		case errors.Is(me, model.ErrStreamCut):
			cut++
		}
		var wait time.Duration
		switch {
		case !me.Temporary:
			return r, me
		case me.Retry.AtOnce():
			if atOnce++; atOnce > maxAtOnce {
				return r, me
			}
		case me.RetryAfter > maxRetryAfter:
			return r, &WaitTooLongError{Wait: me.RetryAfter, Most: maxRetryAfter, Err: me}
		case retried >= a.opts.retries || silent >= maxSameTries || cut >= maxSameTries:
			return r, me
		case me.RetryAfter > 0:
			retried++
			wait = me.RetryAfter
		default:
			retried++
			wait = b.NextBackOff()
		}
		spans.retrying(me.Retry, me, wait)
		emit(event.Event{Kind: event.Retry, Iteration: iter, Attempt: attempt + 1, Wait: wait, RetryReason: me.Retry, Err: me,
			Text: retryText(me, wait)})
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return r, context.Cause(ctx)
			case <-t.C:
			}
		}
	}
}

// retryText says in words that a call that failed with e is made again
// after wait.
func retryText(e *model.Error, wait time.Duration) string {
	if e.Retry.AtOnce() {
		return "model call made again at once, as " + e.Retry.Words() + ": " + model.Brief(e)
	}
	return "model call failed, retrying in " + wait.Round(time.Millisecond).String() + ": " + model.Brief(e)
}

// WaitTooLongError is the error of a model call whose server asked to be
// called again after longer than the agent waits: the run ends with what
// it asked.
type WaitTooLongError struct {
	// Wait is what the server asked for (its Retry-After), up to
	// model.MaxRetryAfter; Most is the longest the agent waits.
	Wait, Most time.Duration
	// Err is the call's error.
	Err *model.Error
}

func (e *WaitTooLongError) Error() string {
	asked := e.Wait.String()
	if e.Wait >= model.MaxRetryAfter {
		asked = "a year or more"
	}
	return fmt.Sprintf("%s; the server asked to be called again in %s, longer than the %s a run waits", model.Brief(e.Err), asked, e.Most)
}

// Unwrap returns the call's error.
func (e *WaitTooLongError) Unwrap() error { return e.Err }

// callOnce makes one attempt of a model call, bound by con when not nil,
// passing the reply's text to onToken as it streams, but for what the
// agent cuts.
func (a *Agent) callOnce(ctx context.Context, msgs []llms.MessageContent, stops []string, con *model.Constraint, onToken, notice func(string)) (generation, error) {
	if a.opts.callTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, a.opts.callTimeout, model.ErrTimeout)
		defer cancel()
	}
	// Replies are always streamed, whether anyone shows them or not, so
	// that the generation stops as soon as the reply holds a complete
	// action, also from servers that ignore stop sequences.
	// The reasoning a server sends apart from the reply is kept as it
	// comes (a reply the agent cuts itself has no response to take it
	// from), and shown before the reply.
	think := &thinking{show: onToken}
	if onToken != nil {
		onToken = func(s string) { think.end(); think.show(s) }
	}
	cutter := newStreamCutter(a.parser, onToken)
	reply, err := a.gen.Generate(ctx, model.Request{Messages: msgs, Stop: stops, Constraint: con,
		OnText: cutter.write, OnReasoning: think.write, OnNotice: notice})
	think.end()
	if err == nil && ctx.Err() != nil && cutMidway(reply, cutter) {
		// The call was stopped (Ctrl-C, a time limit) while the reply
		// streamed, and the client kept what had come: that is no reply,
		// and is not parsed as one.
		err = context.Cause(ctx)
	}
	if err != nil {
		if errors.Is(err, errStreamCut) {
			return generation{text: cutter.text(), reasoning: think.text.String()}, nil
		}
		if cause := context.Cause(ctx); errors.Is(cause, model.ErrTimeout) {
			return generation{}, &model.Error{Err: model.ErrTimeout, Temporary: true, Retry: model.RetryTimeout}
		}
		return generation{}, err
	}
	r := generationOf(reply)
	if cutter.streamed && cutter.cut < 0 {
		// A label that ends the action may have come last, whole only
		// once the stream ended ("\nObservation").
		if i := a.parser.ActionEnd(r.text); i >= 0 {
			r.text, r.cut = r.text[:i], false // the step ended before the server's cut
		}
		cutter.finish(len(r.text))
	}
	return r, nil
}

// cutMidway reports whether r, returned without an error by a call whose
// context has ended, is what had come when it ended rather than a whole
// reply: nothing at all, or a streamed reply without the server's reason
// for stopping.
func cutMidway(r *model.Reply, cutter *streamCutter) bool {
	if r == nil || r.Text == "" {
		return true
	}
	return cutter.streamed && r.Finish == model.FinishUnknown && r.FinishWord == ""
}
