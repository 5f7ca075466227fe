package agent

import (
	"github.com/react-agent/react-agent/agent/event"

	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
)

// generation is the text a model call produced, before it is parsed.
type generation struct {
	text      string
	reasoning string
	usage     model.Usage
	duration  time.Duration
	calls     []llms.ToolCall // the native protocol's tool calls
	cut       bool            // the server stopped the reply at its token limit
	model     string          // the model the server says wrote the reply, or ""
}

// generate asks the model for the next reply, with the stop sequences,
// retrying transient failures. When the stop sequences cut the reply short
// inside a reasoning block, where they must not apply, it asks again
// without them and cuts the reply itself, outside reasoning only.
// The reply's text is passed to onToken, when not nil, as it streams.
func (a *Agent) generate(ctx context.Context, msgs []llms.MessageContent, con *model.Constraint, iter int, emit func(event.Event), onToken func(string)) (generation, error) {
	start := time.Now()
	notice := noticeOf(iter, emit)
	r, err := a.withRetries(ctx, iter, emit, func(ctx context.Context) (generation, error) {
		return a.callOnce(ctx, msgs, a.opts.stops, con, onToken, notice)
	})
	if _, open := parser.ReasoningEnd(r.text); err == nil && len(a.opts.stops) > 0 && open {
		r, err = a.withRetries(ctx, iter, emit, func(ctx context.Context) (generation, error) {
			return a.callOnce(ctx, msgs, nil, con, onToken, notice)
		})
	}
	r.duration = time.Since(start)
	return r, err
}

// generateNative asks the model for the next reply in the native
// protocol, with the tools unless withTools is false, retrying transient
// failures.
func (a *Agent) generateNative(ctx context.Context, msgs []llms.MessageContent, withTools bool, iter int, emit func(event.Event)) (generation, error) {
	start := time.Now()
	notice := noticeOf(iter, emit)
	r, err := a.withRetries(ctx, iter, emit, func(ctx context.Context) (generation, error) {
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
// attempt costs the whole idle time), and a reply Ollama stopped because
// the model wrote one token over and over (at temperature 0 it writes
// the same again).
const maxSameTries = 2

// withRetries makes a model call, retrying transient failures with
// backoff and saying so in a warning. A server that fell silent, and a
// model Ollama stopped for repeating itself, are tried again only once
// (see maxSameTries).
func (a *Agent) withRetries(ctx context.Context, iter int, emit func(event.Event), call func(context.Context) (generation, error)) (generation, error) {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = a.opts.backoffInitial
	b.MaxInterval = a.opts.backoffMax
	silent, looped := 0, 0
	attempt := func() (generation, error) {
		r, err := call(ctx)
		if errors.Is(err, ErrToolsRefused) {
			return r, backoff.Permanent(err)
		}
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil {
			return r, backoff.Permanent(ctx.Err())
		}
		me := model.Classify(ctx, err)
		switch {
		case errors.Is(me, model.ErrIdle):
			silent++
		case errors.Is(me, model.ErrRepeatLimit):
			looped++
		}
		if !me.Temporary || silent >= maxSameTries || looped >= maxSameTries {
			return r, backoff.Permanent(me)
		}
		if me.RetryAfter > 0 {
			// Wait as long as the server asked, within reason; the run's
			// own time limit still ends the wait.
			return r, &waitThenRetry{err: me, wait: &backoff.RetryAfterError{Duration: min(me.RetryAfter, maxRetryAfter)}}
		}
		return r, me
	}
	return backoff.Retry(ctx, attempt,
		backoff.WithBackOff(b),
		backoff.WithMaxTries(uint(a.opts.retries)+1),
		backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, wait time.Duration) {
			emit(event.Event{Kind: event.Warning, Iteration: iter, Err: err,
				Text: "model call failed, retrying in " + wait.Round(time.Millisecond).String() + ": " + model.Brief(err)})
		}))
}

// callOnce makes one attempt of a model call, bound by con when not nil,
// passing the reply's text to onToken as it streams, but for what the
// agent cuts.
func (a *Agent) callOnce(ctx context.Context, msgs []llms.MessageContent, stops []string, con *model.Constraint, onToken, notice func(string)) (generation, error) {
	if a.opts.callTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, a.opts.callTimeout, model.ErrTimeout)
		defer cancel()
	}
	ctx = model.WithNotice(ctx, notice)
	opts := make([]llms.CallOption, 0, 4)
	if len(stops) > 0 {
		opts = append(opts, llms.WithStopWords(stops))
	}
	if con != nil {
		opts = append(opts, model.WithConstraint(con))
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
	opts = append(opts, llms.WithStreamingFunc(cutter.write), llms.WithStreamingReasoningFunc(think.write))
	resp, err := a.model.GenerateContent(ctx, msgs, opts...)
	think.end()
	if err == nil && ctx.Err() != nil && cutMidway(resp, cutter) {
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
			return generation{}, &model.Error{Err: model.ErrTimeout, Temporary: true}
		}
		return generation{}, err
	}
	if len(resp.Choices) == 0 {
		return generation{}, &model.Error{Err: errors.New("the model returned no reply"), Temporary: true}
	}
	c := resp.Choices[0]
	r := generation{text: c.Content, reasoning: c.ReasoningContent, usage: model.UsageOf(c), cut: model.AtTokenLimit(c.StopReason),
		model: model.ServedModel(c)}
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

// cutMidway reports whether resp, returned without an error by a call
// whose context has ended, is what had come when it ended rather than a
// whole reply: nothing at all, or a streamed reply without the server's
// reason for stopping.
func cutMidway(resp *llms.ContentResponse, cutter *streamCutter) bool {
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0].Content == "" {
		return true
	}
	return cutter.streamed && resp.Choices[0].StopReason == ""
}

// maxRetryAfter caps the wait a server's Retry-After asks for.
const maxRetryAfter = time.Minute

// waitThenRetry is a model error whose server asked to be tried again
// after a while: it is both the *model.Error and the backoff package's
// RetryAfterError, which sets the wait.
type waitThenRetry struct {
	err  *model.Error
	wait *backoff.RetryAfterError
}

func (e *waitThenRetry) Error() string   { return e.err.Error() }
func (e *waitThenRetry) Unwrap() []error { return []error{e.err, e.wait} }
