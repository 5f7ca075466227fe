package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
)

// LimitError is the error of a run that reached a limit and got no final
// answer: the model gave none when asked for it, there was no time left
// to ask, or asking failed. It matches ErrNoAnswer, and what Err matches.
// Its fields say which limit was reached and how, for a caller that
// words it in its own terms.
type LimitError struct {
	// Reason is the limit reached: event.StopMaxIterations,
	// event.StopTimeout or event.StopRepeatedCall.
	Reason event.StopReason
	// MaxIterations is the run's bound on model calls (WithMaxIterations).
	MaxIterations int
	// Timeout is the run's time limit (WithTimeout), or 0 when the limit
	// reached was the deadline of the caller's context.
	Timeout time.Duration
	// Asked reports whether the model was asked for its final answer;
	// it was not when the time limit left no time for it (see
	// WithGracePeriod).
	Asked bool
	// Err is why asking gave no answer: nil when the model wrote none,
	// ErrTokenLimit when the answer was cut at the token limit of a
	// reply, or the error of the call that asked.
	Err error
}

// Limit says the limit reached in words: "stopped after 10 iterations",
// "timed out after 2m0s", "the model made the same call a third time".
func (e *LimitError) Limit() string {
	switch e.Reason {
	case event.StopMaxIterations:
		return "stopped after " + plural(e.MaxIterations, "iteration", "iterations")
	case event.StopTimeout:
		if e.Timeout > 0 {
			return "timed out after " + e.Timeout.String()
		}
		return "timed out: the deadline of the run's context passed"
	case event.StopRepeatedCall:
		return "the model made the same call a third time"
	}
	return "stopped: " + string(e.Reason)
}

func (e *LimitError) Error() string {
	switch {
	case !e.Asked:
		return fmt.Sprintf("agent: %s, with no time left to ask for a final answer", e.Limit())
	case e.Err == nil && e.Reason == event.StopRepeatedCall:
		return fmt.Sprintf("agent: %s, and gave no final answer when asked", e.Limit())
	case e.Err == nil:
		return fmt.Sprintf("agent: %s, and the model gave no final answer when asked", e.Limit())
	case errors.Is(e.Err, ErrTokenLimit):
		return fmt.Sprintf("agent: %s, and the answer asked for was cut off at the token limit of a reply", e.Limit())
	}
	return fmt.Sprintf("agent: %s, and asking for a final answer failed: %v", e.Limit(), e.Err)
}

// Unwrap returns ErrNoAnswer and Err.
func (e *LimitError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNoAnswer}
	}
	return []error{ErrNoAnswer, e.Err}
}

// QuestionTooLongError is the error of a run whose question alone is
// longer than the model's context window can hold: no prompt that holds
// it fits, however little else it holds, and a shorter prompt or fewer
// tools are of no help. It matches model.ErrContextOverflow.
type QuestionTooLongError struct {
	// Tokens is about how many tokens the question is: at least that
	// many, by its size, before the server counted a prompt of it.
	Tokens int
	// Window is what the model knows of its context window: Window.Max
	// is the most it holds, and its Fix, Detail and Hint say how it can
	// be larger, if at all.
	Window model.Window
	// Err is the server's refusal of the prompt that held the question,
	// or nil when the run found the question too long before sending it.
	Err error
}

func (e *QuestionTooLongError) Error() string {
	msg := fmt.Sprintf("agent: the question is about %d tokens, more than the model's context window of %d tokens holds", e.Tokens, e.Window.Max)
	if e.Err == nil {
		return msg + "; it was not sent"
	}
	return fmt.Sprintf("%s: %v", msg, e.Err)
}

// Unwrap returns model.ErrContextOverflow, and the server's refusal.
func (e *QuestionTooLongError) Unwrap() []error {
	if e.Err == nil {
		return []error{model.ErrContextOverflow}
	}
	return []error{model.ErrContextOverflow, e.Err}
}

// leastBytesPerToken is the most bytes a token of a prompt is before the
// server has counted one: no tokenizer gives fewer tokens, so that a
// question longer than the window by this count is sure not to fit.
const leastBytesPerToken = 8

// questionTooLong returns a QuestionTooLongError when question alone is
// sure to be longer than the model's context window, as it knows it,
// can hold with room for a reply, or nil. Before the server counted a
// prompt, a token is taken to be leastBytesPerToken bytes; after, as
// many as the server's count says. refused is the server's refusal of
// the prompt, when it refused one, whose window it says.
func (r *runState) questionTooLong(ctx context.Context, question string, refused error) error {
	win := model.WindowOf(ctx, r.a.model)
	if r.window > 0 {
		win.Tokens, win.Max = r.window, max(win.Max, r.window)
	}
	if win.Max <= 0 {
		win.Max = max(win.Tokens, r.a.opts.contextWindow)
	}
	if win.Max <= 0 {
		return nil
	}
	tokens := len(question) / leastBytesPerToken
	if r.bytesPerToken > 0 {
		tokens = int(float64(len(question)) / r.bytesPerToken)
	}
	if tokens <= win.Max-replyReserve(win.Max) {
		return nil
	}
	return &QuestionTooLongError{Tokens: tokens, Window: win, Err: refused}
}
