package logs

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// calculatorRun is a run as the agent reports "What is 17 * 23 + 4?".
func calculatorRun(conversation string) (Run, []Event, Outcome) {
	r := Run{Conversation: conversation, Question: "What is 17 * 23 + 4?", Provider: "ollama", Model: "qwen2.5:7b", Protocol: "text"}
	events := []Event{
		{Kind: "thought", Iteration: 1, Text: "I will use the calculator.", Reasoning: "Multiply first.", Duration: 1200 * time.Millisecond, Elapsed: 1200 * time.Millisecond},
		{Kind: "action", Iteration: 1, Tool: "calculator", Args: map[string]any{"expression": "17 * 23 + 4"}, Elapsed: 1201 * time.Millisecond},
		{Kind: "observation", Iteration: 1, Tool: "calculator", Text: "395", Duration: time.Millisecond, Elapsed: 1202 * time.Millisecond},
		{Kind: "final", Iteration: 2, Text: "17 * 23 + 4 = 395", StopReason: "final_answer", Duration: 800 * time.Millisecond, Elapsed: 2 * time.Second},
	}
	o := Outcome{Answer: "17 * 23 + 4 = 395", StopReason: "final_answer", Usage: Usage{1722, 88, 1810}, Duration: 2 * time.Second}
	return r, events, o
}

// write records a run: its start, its events and, unless o is nil, its end.
func write(t testing.TB, s *Store, r Run, events []Event, o *Outcome) int64 {
	t.Helper()
	ctx := context.Background()
	rec, err := s.Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := rec.Add(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if o != nil {
		if err := rec.Finish(ctx, *o); err != nil {
			t.Fatal(err)
		}
	}
	return rec.ID()
}

func TestARunReadsBackAsItWasWritten(t *testing.T) {
	s := openTemp(t)
	r, events, o := calculatorRun("c1")
	start := time.Now()
	write(t, s, r, events, &o)

	runs, err := s.Runs(context.Background(), "c1")
	if err != nil || len(runs) != 1 {
		t.Fatalf("Runs = %d runs, %v", len(runs), err)
	}
	got := runs[0]
	if got.Question != r.Question || got.Provider != "ollama" || got.Model != "qwen2.5:7b" || got.Protocol != "text" {
		t.Errorf("the run's question and model: %+v", got)
	}
	if got.Answer != o.Answer || got.StopReason != "final_answer" || got.Usage != o.Usage || got.Duration != o.Duration {
		t.Errorf("the run's end: %+v", got)
	}
	if got.Status != StatusAnswered {
		t.Errorf("status %q, want %q", got.Status, StatusAnswered)
	}
	if got.Started.Before(start.Add(-time.Second)) || got.Finished.Before(got.Started) {
		t.Errorf("started %v, finished %v", got.Started, got.Finished)
	}
	if !reflect.DeepEqual(got.Events, events) {
		t.Errorf("events differ:\n got %+v\nwant %+v", got.Events, events)
	}
}

// TestTheEndKeepsTheModelTheServerServed ends runs with and without the
// model the server says it served: the run's model is that one, or the
// model asked for.
func TestTheEndKeepsTheModelTheServerServed(t *testing.T) {
	s := openTemp(t)
	r, _, o := calculatorRun("c1")
	r.Provider, r.Model = "llamacpp", "default"
	write(t, s, r, nil, &o)
	o.Model = "qwen2.5-7b-instruct-q4_k_m.gguf"
	write(t, s, r, nil, &o)
	runs, err := s.Runs(context.Background(), "c1")
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs = %d runs, %v", len(runs), err)
	}
	if runs[0].Model != "default" || runs[1].Model != "qwen2.5-7b-instruct-q4_k_m.gguf" {
		t.Errorf("models %q and %q, want the one asked for, then the one served", runs[0].Model, runs[1].Model)
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		name    string
		outcome *Outcome
		want    Status
	}{
		{"a run with no end is unfinished", nil, StatusUnfinished},
		{"a cancelled run is interrupted", &Outcome{StopReason: "cancelled", Error: "context canceled"}, StatusInterrupted},
		{"a run that ended without an answer failed", &Outcome{StopReason: "error", Error: "cannot reach Ollama"}, StatusFailed},
		{"a forced answer is an answer", &Outcome{Answer: "42", StopReason: "max_iterations"}, StatusAnswered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTemp(t)
			r, events, _ := calculatorRun("c")
			write(t, s, r, events[:2], tt.outcome)
			runs, err := s.Runs(context.Background(), "c")
			if err != nil {
				t.Fatal(err)
			}
			if runs[0].Status != tt.want || len(runs[0].Events) != 2 {
				t.Fatalf("status %q with %d events, want %q with 2", runs[0].Status, len(runs[0].Events), tt.want)
			}
			list, _ := s.List(context.Background(), Query{})
			if len(list) != 1 || list[0].Status != tt.want {
				t.Fatalf("List shows %+v, want status %q", list, tt.want)
			}
		})
	}
}

func TestAnUnfinishedRunIsReadableFromAnotherConnection(t *testing.T) {
	// The writer is left open, never finishing, as a killed process
	// leaves its file.
	s := openTemp(t)
	r, events, _ := calculatorRun("killed")
	write(t, s, r, events[:3], nil)

	other, err := Open(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	runs, err := other.Runs(context.Background(), "killed")
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Status != StatusUnfinished || !runs[0].Finished.IsZero() || len(runs[0].Events) != 3 || runs[0].Events[2].Text != "395" {
		t.Fatalf("want an unfinished run with its three events, got %+v", runs[0])
	}
}

func TestStartNeedsAConversation(t *testing.T) {
	s := openTemp(t)
	if _, err := s.Start(context.Background(), Run{Question: "hi"}); err == nil {
		t.Fatal("Start without a conversation ID succeeded")
	}
}

func TestNewIDsDiffer(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if len(id) != 12 || seen[id] {
			t.Fatalf("ID %q is not 12 digits or repeats", id)
		}
		seen[id] = true
	}
}

func TestAFailedWriteNamesTheEvent(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "logs.db"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Start(ctx, Run{Conversation: "c", Question: "q"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for kind, want := range map[string]string{"action": "logging an action event: ", "observation": "logging an observation event: ", "thought": "logging a thought event: "} {
		if err := rec.Add(ctx, Event{Kind: kind}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Add(%s) = %v, want it to start %q", kind, err, want)
		}
	}
}
