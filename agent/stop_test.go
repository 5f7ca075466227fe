package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
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

// TestAQuestionLongerThanTheWindowIsSaidSo asks llama-server with a
// window of 2048 tokens questions of several sizes: one sure not to fit
// by its size is refused before any call, one the server finds too long
// is said to be the question's fault once the server counted it, and one
// that fits is answered.
func TestAQuestionLongerThanTheWindowIsSaidSo(t *testing.T) {
	words := func(n int) string { return "Summarize this: " + strings.Repeat("the quick brown fox jumps. ", n/27) }
	tests := []struct {
		name     string
		question string
		calls    int
		sent     bool // the error holds the server's refusal
		fits     bool
	}{
		{"a question of 75 KB is not sent", words(75 << 10), 0, false, false},
		{"a question of 10 KB is refused by the server, and said to be too long", words(10 << 10), 1, true, false},
		{"a question of 3 KB fits", words(3 << 10), 2, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewLlamaCpp([]string{action("echo", `{"text": "a"}`), final("done")}, modeltest.ContextSize(2048))
			defer s.Close()
			m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: s.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(m, registry(t)).Run(context.Background(), tt.question)
			if s.Calls() != tt.calls {
				t.Errorf("%d calls, want %d", s.Calls(), tt.calls)
			}
			if tt.fits {
				if err != nil {
					t.Fatalf("a question that fits: %v", err)
				}
				return
			}
			var q *QuestionTooLongError
			if !errors.As(err, &q) || !errors.Is(err, model.ErrContextOverflow) {
				t.Fatalf("want a QuestionTooLongError that matches ErrContextOverflow, got %v", err)
			}
			if q.Window.Max != 2048 || q.Tokens <= 2048-256 || q.Tokens > len(tt.question)/3 || (q.Err != nil) != tt.sent {
				t.Errorf("got %d tokens in a window of %d, the refusal %v", q.Tokens, q.Window.Max, q.Err)
			}
			if q.Window.Hint == "" {
				t.Errorf("the window does not say how to make it larger: %+v", q.Window)
			}
		})
	}
}
