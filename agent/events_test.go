package agent

import (
	"github.com/react-agent/react-agent/agent/event"

	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// kinds lists events as "kind:iteration".
func kinds(events []event.Event) string {
	s := make([]string, len(events))
	for i, e := range events {
		s[i] = string(e.Kind) + ":" + string(rune('0'+e.Iteration))
	}
	return strings.Join(s, " ")
}

// find returns the first event of kind k.
func find(t *testing.T, events []event.Event, k event.Kind) event.Event {
	t.Helper()
	for _, e := range events {
		if e.Kind == k {
			return e
		}
	}
	t.Fatalf("no %s event in %s", k, kinds(events))
	return event.Event{}
}

func TestRunEvents(t *testing.T) {
	blocked := func(context.CancelFunc) llms.Model {
		return modelFunc(func(ctx context.Context, _ []llms.MessageContent, _ llms.CallOptions) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
	}
	replies := func(rs ...string) func(context.CancelFunc) llms.Model {
		return func(context.CancelFunc) llms.Model { return scripted(rs...) }
	}
	tests := []struct {
		name     string
		model    func(cancel context.CancelFunc) llms.Model
		opts     []Option
		want     string
		wantStop event.StopReason // of the last event
		check    func(t *testing.T, events []event.Event)
	}{
		{
			name:  "a two-step run shows each model call before its reply",
			model: replies(action("add", `{"a": 1, "b": 2}`), final("3")),
			want:  "model:1 thought:1 action:1 observation:1 model:2 thought:2 final:2", wantStop: event.StopFinalAnswer,
			check: func(t *testing.T, events []event.Event) {
				if e := find(t, events, event.Observation); e.Tool != "add" || e.Text != "3" || e.Failed {
					t.Errorf("observation %+v", e)
				}
				if e := events[len(events)-1]; e.Text != "3" || e.Iterations != 2 || e.Forced || e.Duration <= 0 || e.Elapsed <= 0 {
					t.Errorf("final %+v", e)
				}
				e := find(t, events, event.Model)
				for _, want := range []string{"--- system ---\n", "\n\n--- user ---\n", "Question: q"} {
					if !strings.Contains(e.Prompt(), want) {
						t.Errorf("the prompt lacks %q:\n%s", want, e.Prompt())
					}
				}
				if !strings.HasPrefix(e.Prompt(), "--- system ---\n") || e.Forced {
					t.Errorf("model event %+v", e)
				}
				if e := events[4]; !strings.Contains(e.Prompt(), "Observation: 3") {
					t.Errorf("the second prompt lacks the observation:\n%s", e.Prompt())
				}
			},
		},
		{
			name:  "a reply that cannot be parsed gives a parse error, then its observation",
			model: replies("Thought: hmm", final("ok")),
			want:  "model:1 parse_error:1 observation:1 model:2 thought:2 final:2", wantStop: event.StopFinalAnswer,
			check: func(t *testing.T, events []event.Event) {
				pe, obs := events[1], events[2]
				if pe.Text == "" || obs.Text != pe.Text || obs.Tool != "" || !obs.Failed {
					t.Errorf("parse error %+v, observation %+v", pe, obs)
				}
			},
		},
		{
			name:     "the same parse error repeated ends the run with an error",
			model:    replies("Thought: hmm", "Thought: hmm?", "Thought: hmmm"),
			want:     "model:1 parse_error:1 observation:1 model:2 parse_error:2 observation:2 model:3 parse_error:3 error:3",
			wantStop: event.StopRepeatedParseError,
		},
		{
			name:  "a forced answer is asked for in a model call of its own",
			model: replies(action("echo", `{"text": "a"}`), final("best guess")),
			opts:  []Option{WithMaxIterations(1)},
			want:  "model:1 thought:1 action:1 observation:1 model:2 final:2", wantStop: event.StopMaxIterations,
			check: func(t *testing.T, events []event.Event) {
				if e := events[4]; !e.Forced {
					t.Errorf("the forced call's event %+v", e)
				}
				if e := events[5]; !e.Forced || e.Iterations != 1 || e.Text != "best guess" {
					t.Errorf("final %+v", e)
				}
			},
		},
		{
			name: "a cancelled run ends with an error that says so",
			model: func(cancel context.CancelFunc) llms.Model {
				return modelFunc(func(ctx context.Context, _ []llms.MessageContent, _ llms.CallOptions) (string, error) {
					cancel()
					return "", ctx.Err()
				})
			},
			want: "model:1 error:1", wantStop: event.StopCancelled,
		},
		{
			name:  "a run out of time without a grace period ends with an error",
			model: blocked,
			opts:  []Option{WithTimeout(10 * time.Millisecond), WithGracePeriod(0)},
			want:  "model:1 error:1", wantStop: event.StopTimeout,
		},
		{
			name: "a model call that fails for good ends the run with an error",
			model: func(context.CancelFunc) llms.Model {
				return modelFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (string, error) {
					return "", errors.New("API returned unexpected status code: 401: bad key")
				})
			},
			want: "model:1 error:1", wantStop: event.StopError,
			check: func(t *testing.T, events []event.Event) {
				if e := events[1]; !strings.Contains(e.Text, "bad key") {
					t.Errorf("error %+v", e)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var events []event.Event
			opts := append([]Option{fastRetries(), WithEvents(func(e event.Event) {
				if e.Kind == event.Model {
					// The messages are valid during the call only: keep
					// a copy of them for the checks.
					e.Messages = slices.Clone(e.Messages)
				}
				events = append(events, e)
			})}, tt.opts...)
			res, _ := New(tt.model(cancel), registry(t), opts...).Run(ctx, "q")
			if got := kinds(events); got != tt.want {
				t.Fatalf("events %q, want %q", got, tt.want)
			}
			if last := events[len(events)-1]; last.StopReason != tt.wantStop || res.StopReason != tt.wantStop {
				t.Errorf("the last event stops with %q and the result with %q, want %q", last.StopReason, res.StopReason, tt.wantStop)
			}
			if tt.check != nil {
				tt.check(t, events)
			}
		})
	}
}
