package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
)

func TestEventMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"a model call leaves out the prompt",
			Event{Kind: EventModel, Iteration: 1, Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "long")}, Elapsed: time.Second},
			`{"type":"model","iteration":1,"forced":false}`},
		{"a model call asking for a forced answer",
			Event{Kind: EventModel, Iteration: 3, Forced: true},
			`{"type":"model","iteration":3,"forced":true}`},
		{"a thought with reasoning",
			Event{Kind: EventThought, Iteration: 1, Text: "add them", Reasoning: "hmm", Duration: 1200 * time.Millisecond},
			`{"type":"thought","iteration":1,"text":"add them","reasoning":"hmm","duration_ms":1200}`},
		{"a thought without reasoning leaves it out",
			Event{Kind: EventThought, Iteration: 1},
			`{"type":"thought","iteration":1,"text":"","duration_ms":0}`},
		{"an action",
			Event{Kind: EventAction, Iteration: 1, Tool: "calculator", Args: map[string]any{"expression": "17*23+4"}},
			`{"type":"action","iteration":1,"tool":"calculator","args":{"expression":"17*23+4"}}`},
		{"an action without arguments has an empty object",
			Event{Kind: EventAction, Iteration: 1, Tool: "now"},
			`{"type":"action","iteration":1,"tool":"now","args":{}}`},
		{"an observation",
			Event{Kind: EventObservation, Iteration: 1, Tool: "calculator", Text: "395", Duration: 3 * time.Millisecond},
			`{"type":"observation","iteration":1,"tool":"calculator","content":"395","error":false,"duration_ms":3}`},
		{"an observation after a parse error has no tool",
			Event{Kind: EventObservation, Iteration: 1, Text: "no action", Failed: true},
			`{"type":"observation","iteration":1,"tool":"","content":"no action","error":true,"duration_ms":0}`},
		{"a final answer",
			Event{Kind: EventFinal, Iteration: 2, Text: "395", Iterations: 2, StopReason: StopFinalAnswer, Duration: 800 * time.Millisecond},
			`{"type":"final","iteration":2,"answer":"395","iterations":2,"forced":false,"stop_reason":"final_answer","duration_ms":800}`},
		{"a forced answer",
			Event{Kind: EventFinal, Iteration: 3, Text: "maybe", Iterations: 2, Forced: true, StopReason: StopMaxIterations},
			`{"type":"final","iteration":3,"answer":"maybe","iterations":2,"forced":true,"stop_reason":"max_iterations","duration_ms":0}`},
		{"the error that ends a run",
			Event{Kind: EventError, Iteration: 2, Text: "boom", StopReason: StopError},
			`{"type":"error","iteration":2,"message":"boom","stop_reason":"error"}`},
		{"a parse error",
			Event{Kind: EventParseError, Iteration: 1, Text: "no action", Reasoning: "hmm", Duration: time.Second},
			`{"type":"parse_error","iteration":1,"message":"no action"}`},
		{"a warning",
			Event{Kind: EventWarning, Iteration: 1, Text: "retrying"},
			`{"type":"warning","iteration":1,"message":"retrying"}`},
		{"a duration is cut to whole milliseconds",
			Event{Kind: EventObservation, Iteration: 1, Tool: "t", Duration: 1999 * time.Microsecond},
			`{"type":"observation","iteration":1,"tool":"t","content":"","error":false,"duration_ms":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.e)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// failingWriter fails every write after the first ok ones.
type failingWriter struct {
	ok     int
	writes int
	b      strings.Builder
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.ok {
		return 0, errors.New("broken pipe")
	}
	return w.b.Write(p)
}

func TestJSONLines(t *testing.T) {
	events := []Event{
		{Kind: EventModel, Iteration: 1},
		{Kind: EventThought, Iteration: 1, Text: "a <b> & c"},
		{Kind: EventAction, Iteration: 1, Tool: "bad", Args: map[string]any{"f": func() {}}},
		{Kind: EventWarning, Iteration: 1, Text: "w"},
		{Kind: EventFinal, Iteration: 1, Text: "x", Iterations: 1, StopReason: StopFinalAnswer},
	}
	tests := []struct {
		name       string
		ok         int
		wantLines  []string
		wantWrites int
	}{
		{"each event is one line, and one that cannot be encoded is left out", 10, []string{
			`{"type":"model","iteration":1,"forced":false}`,
			`{"type":"thought","iteration":1,"text":"a <b> & c","duration_ms":0}`,
			`{"type":"warning","iteration":1,"message":"w"}`,
			`{"type":"final","iteration":1,"answer":"x","iterations":1,"forced":false,"stop_reason":"final_answer","duration_ms":0}`,
		}, 4},
		{"events after a failed write are dropped", 1, []string{
			`{"type":"model","iteration":1,"forced":false}`,
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &failingWriter{ok: tt.ok}
			write := JSONLines(w)
			for _, e := range events {
				write(e)
			}
			if got, want := w.b.String(), strings.Join(tt.wantLines, "\n")+"\n"; got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if w.writes != tt.wantWrites {
				t.Errorf("%d writes, want %d", w.writes, tt.wantWrites)
			}
		})
	}
}

// kinds lists events as "kind:iteration".
func kinds(events []Event) string {
	s := make([]string, len(events))
	for i, e := range events {
		s[i] = string(e.Kind) + ":" + string(rune('0'+e.Iteration))
	}
	return strings.Join(s, " ")
}

// find returns the first event of kind k.
func find(t *testing.T, events []Event, k EventKind) Event {
	t.Helper()
	for _, e := range events {
		if e.Kind == k {
			return e
		}
	}
	t.Fatalf("no %s event in %s", k, kinds(events))
	return Event{}
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
		wantStop StopReason // of the last event
		check    func(t *testing.T, events []Event)
	}{
		{
			name:  "a two-step run shows each model call before its reply",
			model: replies(action("add", `{"a": 1, "b": 2}`), final("3")),
			want:  "model:1 thought:1 action:1 observation:1 model:2 thought:2 final:2", wantStop: StopFinalAnswer,
			check: func(t *testing.T, events []Event) {
				if e := find(t, events, EventObservation); e.Tool != "add" || e.Text != "3" || e.Failed {
					t.Errorf("observation %+v", e)
				}
				if e := events[len(events)-1]; e.Text != "3" || e.Iterations != 2 || e.Forced || e.Duration <= 0 || e.Elapsed <= 0 {
					t.Errorf("final %+v", e)
				}
				e := find(t, events, EventModel)
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
			want:  "model:1 parse_error:1 observation:1 model:2 thought:2 final:2", wantStop: StopFinalAnswer,
			check: func(t *testing.T, events []Event) {
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
			wantStop: StopRepeatedParseError,
		},
		{
			name:  "a forced answer is asked for in a model call of its own",
			model: replies(action("echo", `{"text": "a"}`), final("best guess")),
			opts:  []Option{WithMaxIterations(1)},
			want:  "model:1 thought:1 action:1 observation:1 model:2 final:2", wantStop: StopMaxIterations,
			check: func(t *testing.T, events []Event) {
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
			want: "model:1 error:1", wantStop: StopCancelled,
		},
		{
			name:  "a run out of time without a grace period ends with an error",
			model: blocked,
			opts:  []Option{WithTimeout(10 * time.Millisecond), WithGracePeriod(0)},
			want:  "model:1 error:1", wantStop: StopTimeout,
		},
		{
			name: "a model call that fails for good ends the run with an error",
			model: func(context.CancelFunc) llms.Model {
				return modelFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (string, error) {
					return "", errors.New("API returned unexpected status code: 401: bad key")
				})
			},
			want: "model:1 error:1", wantStop: StopError,
			check: func(t *testing.T, events []Event) {
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
			var events []Event
			opts := append([]Option{fastRetries(), WithEvents(func(e Event) {
				if e.Kind == EventModel {
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
