package event

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
)

func TestEventMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"a model call leaves out the prompt",
			Event{Kind: Model, Iteration: 1, Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "long")}, Elapsed: time.Second},
			`{"type":"model","iteration":1,"forced":false}`},
		{"a chat's event carries its turn",
			Event{Kind: Model, Turn: 2, Iteration: 1},
			`{"type":"model","turn":2,"iteration":1,"forced":false}`},
		{"a model call asking for a forced answer",
			Event{Kind: Model, Iteration: 3, Forced: true},
			`{"type":"model","iteration":3,"forced":true}`},
		{"a thought with reasoning",
			Event{Kind: Thought, Iteration: 1, Text: "add them", Reasoning: "hmm", Duration: 1200 * time.Millisecond},
			`{"type":"thought","iteration":1,"text":"add them","reasoning":"hmm","duration_ms":1200}`},
		{"a thought without reasoning leaves it out",
			Event{Kind: Thought, Iteration: 1},
			`{"type":"thought","iteration":1,"text":"","duration_ms":0}`},
		{"an action",
			Event{Kind: Action, Iteration: 1, Tool: "calculator", Args: map[string]any{"expression": "17*23+4"}},
			`{"type":"action","iteration":1,"tool":"calculator","args":{"expression":"17*23+4"}}`},
		{"an action without arguments has an empty object",
			Event{Kind: Action, Iteration: 1, Tool: "now"},
			`{"type":"action","iteration":1,"tool":"now","args":{}}`},
		{"an observation",
			Event{Kind: Observation, Iteration: 1, Tool: "calculator", Text: "395", Duration: 3 * time.Millisecond},
			`{"type":"observation","iteration":1,"tool":"calculator","content":"395","error":false,"duration_ms":3}`},
		{"an observation after a parse error has no tool",
			Event{Kind: Observation, Iteration: 1, Text: "no action", Failed: true},
			`{"type":"observation","iteration":1,"tool":"","content":"no action","error":true,"duration_ms":0}`},
		{"a final answer",
			Event{Kind: Final, Iteration: 2, Text: "395", Iterations: 2, StopReason: StopFinalAnswer, Duration: 800 * time.Millisecond},
			`{"type":"final","iteration":2,"answer":"395","iterations":2,"forced":false,"stop_reason":"final_answer","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0},"duration_ms":800}`},
		{"a forced answer",
			Event{Kind: Final, Iteration: 3, Text: "maybe", Iterations: 2, Forced: true, StopReason: StopMaxIterations},
			`{"type":"final","iteration":3,"answer":"maybe","iterations":2,"forced":true,"stop_reason":"max_iterations","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0},"duration_ms":0}`},
		{"the error that ends a run",
			Event{Kind: Error, Iteration: 2, Text: "boom", StopReason: StopError},
			`{"type":"error","iteration":2,"message":"boom","stop_reason":"error"}`},
		{"a parse error",
			Event{Kind: ParseError, Iteration: 1, Text: "no action", Reasoning: "hmm", Duration: time.Second},
			`{"type":"parse_error","iteration":1,"message":"no action"}`},
		{"a warning",
			Event{Kind: Warning, Iteration: 1, Text: "retrying"},
			`{"type":"warning","iteration":1,"message":"retrying"}`},
		{"a call made again, with its attempt, its wait and why",
			Event{Kind: Retry, Iteration: 1, Attempt: 2, Wait: 1500 * time.Millisecond, RetryReason: model.RetryServerError, Text: "model call failed, retrying in 1.5s: boom"},
			`{"type":"retry","iteration":1,"attempt":2,"wait_ms":1500,"reason":"server_error","message":"model call failed, retrying in 1.5s: boom"}`},
		{"a duration is cut to whole milliseconds",
			Event{Kind: Observation, Iteration: 1, Tool: "t", Duration: 1999 * time.Microsecond},
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
		{Kind: Model, Iteration: 1},
		{Kind: Thought, Iteration: 1, Text: "a <b> & c"},
		{Kind: Action, Iteration: 1, Tool: "bad", Args: map[string]any{"f": func() {}}},
		{Kind: Warning, Iteration: 1, Text: "w"},
		{Kind: Final, Iteration: 1, Text: "x", Iterations: 1, StopReason: StopFinalAnswer},
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
			`{"type":"final","iteration":1,"answer":"x","iterations":1,"forced":false,"stop_reason":"final_answer","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0},"duration_ms":0}`,
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
