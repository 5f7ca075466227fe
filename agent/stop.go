package agent

import (
	"errors"
	"fmt"
	"time"

	"github.com/react-agent/react-agent/agent/event"
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
