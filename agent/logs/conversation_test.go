package logs

import (
	"context"
	"path/filepath"
	"testing"
)

func TestConversationRecordsRunsInTurn(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	c := s.Conversation("", Run{Provider: "ollama", Model: "qwen2.5:7b", Protocol: "text"})
	c.Add(Event{Kind: "thought", Text: "before any run: dropped"})

	c.Begin(ctx, "What is 2+2?", "")
	c.Add(Event{Kind: "final", Iteration: 1, Text: "4"})
	c.End(ctx, Outcome{Answer: "4", StopReason: "final_answer"})
	c.Begin(ctx, "And times 10?", "piped text")
	c.Add(Event{Kind: "final", Iteration: 1, Text: "40"})
	c.End(ctx, Outcome{Answer: "40", StopReason: "final_answer"})
	c.End(ctx, Outcome{Answer: "ended twice"})
	first := c.ID()

	c.Restart()
	c.Begin(ctx, "Something else", "")
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if c.ID() == first || len(first) != 12 {
		t.Fatalf("IDs %q then %q: want a new 12-digit ID after Restart", first, c.ID())
	}
	runs, err := s.Runs(ctx, first)
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs = %d, %v; want 2", len(runs), err)
	}
	if r := runs[1]; r.Question != "And times 10?" || r.Context != "piped text" || r.Answer != "40" || r.Model != "qwen2.5:7b" || len(r.Events) != 1 {
		t.Errorf("second run: %+v", r)
	}
	later, _ := s.Runs(ctx, c.ID())
	if len(later) != 1 || later[0].Status != StatusUnfinished {
		t.Errorf("the run after Restart: %+v", later)
	}
}

func TestConversationKeepsWriteErrors(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "logs.db"))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Conversation("x", Run{})
	s.Close()
	c.Begin(context.Background(), "q", "")
	c.Add(Event{Kind: "thought"})
	if c.Err() == nil {
		t.Fatal("writing to a closed store reported no error")
	}
}
