package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/redact"
)

// stepEvents are the events of one realistic step: a thought with
// reasoning, a web search and its observation of about 1 KB.
func stepEvents(i int) []Event {
	obs := strings.Repeat(fmt.Sprintf("Result %d: Tokyo has a population of about 14 million people in the city proper (2024). ", i), 12)
	return []Event{
		{Kind: "thought", Iteration: i, Text: "I should look up the population of Tokyo first.",
			Reasoning: "The user wants the population divided by 1000, so I need the current population figure.",
			Duration:  900 * time.Millisecond, Elapsed: time.Duration(i) * time.Second},
		{Kind: "action", Iteration: i, Tool: "web_search", Args: map[string]any{"query": "population of Tokyo 2024"}},
		{Kind: "observation", Iteration: i, Tool: "web_search", Text: obs, Duration: 450 * time.Millisecond},
	}
}

// BenchmarkStep measures the time logging adds to one step of a run: the
// three events of a thought, an action and an observation, each written
// as it comes, redaction and full-text indexing included.
func BenchmarkStep(b *testing.B) {
	s := openTemp(b, WithSecrets("sk-test-0123456789"))
	ctx := context.Background()
	rec, err := s.Start(ctx, Run{Conversation: NewID(), Question: "What is the population of Tokyo divided by 1000?"})
	if err != nil {
		b.Fatal(err)
	}
	events := stepEvents(1)
	b.ResetTimer()
	for b.Loop() {
		for _, e := range events {
			if err := rec.Add(ctx, e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRedact measures redaction alone, on the text of one step.
func BenchmarkRedact(b *testing.B) {
	r := redact.New("sk-test-0123456789")
	events := stepEvents(1)
	for b.Loop() {
		for _, e := range events {
			r.Redact(e.Text)
			r.Redact(e.Reasoning)
		}
	}
}

// writeRealisticRun writes a run like most: a question, three steps, a
// final answer and the run's end.
func writeRealisticRun(b *testing.B, s *Store, i int) {
	ctx := context.Background()
	rec, err := s.Start(ctx, Run{Conversation: NewID(), Question: fmt.Sprintf("What is the population of Tokyo divided by %d?", 1000+i),
		Provider: "ollama", Model: "qwen2.5:7b", Protocol: "text"})
	if err != nil {
		b.Fatal(err)
	}
	for step := 1; step <= 3; step++ {
		for _, e := range stepEvents(step) {
			if err := rec.Add(ctx, e); err != nil {
				b.Fatal(err)
			}
		}
	}
	answer := "Tokyo's population of about 14,000,000 divided by 1000 is about 14,000."
	rec.Add(ctx, Event{Kind: "final", Iteration: 4, Text: answer, StopReason: "final_answer", Duration: 700 * time.Millisecond})
	rec.Finish(ctx, Outcome{Answer: answer, StopReason: "final_answer", Usage: Usage{4200, 310, 4510}, Duration: 5 * time.Second})
}

// BenchmarkSizePer1000Runs writes 1,000 realistic runs (three steps each,
// about 4 KB of text) to a new database and reports the size of its file
// once checkpointed, in KiB per 1,000 runs.
func BenchmarkSizePer1000Runs(b *testing.B) {
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "logs.db")
		s, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		for i := range 1000 {
			writeRealisticRun(b, s, i)
		}
		if _, err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			b.Fatal(err)
		}
		s.Close()
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(fi.Size())/1024, "KiB/1000runs")
	}
}
