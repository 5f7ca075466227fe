package agent

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/event"
)

// TestARunStoppedAtALimitSaysWhichInItsFields stops runs at each limit
// without an answer: the error is a LimitError that names the limit with
// its value (the iterations, the time limit that was reached), whether
// the model was asked for an answer and why that gave none, and matches
// ErrNoAnswer.
func TestARunStoppedAtALimitSaysWhichInItsFields(t *testing.T) {
	again := action("echo", `{"text": "a"}`)
	tests := []struct {
		name    string
		replies []string
		opts    []Option
		want    LimitError
		is      error
		message string
	}{
		{"a model that gives no answer when asked after its iterations", []string{again, action("echo", `{"text": "b"}`)},
			[]Option{WithMaxIterations(1)}, LimitError{Reason: event.StopMaxIterations, MaxIterations: 1, Asked: true}, nil,
			"agent: stopped after 1 iteration, and the model gave no final answer when asked"},
		{"a model that makes the same call a third time", []string{again, again, again, again},
			nil, LimitError{Reason: event.StopRepeatedCall, MaxIterations: 10, Asked: true}, nil,
			"agent: the model made the same call a third time, and gave no final answer when asked"},
		{"a run whose time ran out with no time kept to ask", []string{action("slow", `{"input": "x"}`)},
			[]Option{WithTimeout(50 * time.Millisecond), WithGracePeriod(0)},
			LimitError{Reason: event.StopTimeout, MaxIterations: 10, Timeout: 50 * time.Millisecond}, nil,
			"agent: timed out after 50ms, with no time left to ask for a final answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(scripted(tt.replies...), registry(t), tt.opts...).Run(context.Background(), "What is 17 + 25?")
			var le *LimitError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is no LimitError", err)
			}
			got := *le
			if tt.want.Err == nil {
				got.Err = nil
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !errors.Is(err, ErrNoAnswer) || tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%v does not match ErrNoAnswer and %v", err, tt.is)
			}
			if err.Error() != tt.message {
				t.Errorf("message %q, want %q", err.Error(), tt.message)
			}
		})
	}
}
