package logs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// searchLog writes a log of 20,480 realistic runs in dir, for the search
// benchmarks: 20 runs written as the agent writes them, then copied in
// SQL, with the full-text indexes rebuilt. It returns the log's path.
func searchLog(b *testing.B, dir string) string {
	b.Helper()
	path := filepath.Join(dir, "logs.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range 20 {
		writeRealisticRun(b, s, i)
	}
	if err := doubleRuns(s, 10); err != nil { // 20 × 2¹⁰ = 20,480 runs
		b.Fatal(err)
	}
	return path
}

// doubleRuns copies every run of s and its events n times over.
func doubleRuns(s *Store, n int) error {
	ctx := context.Background()
	for range n {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var offset int64
		if err := tx.QueryRowContext(ctx, "SELECT max(id) FROM runs").Scan(&offset); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO runs (id, conversation, started_at, finished_at, question, context, provider, model,
			protocol, answer, stop_reason, error, prompt_tokens, completion_tokens, total_tokens, duration_ns, base_url)
			SELECT id + ?, conversation || '-' || ?, started_at, finished_at, question, context, provider, model,
			protocol, answer, stop_reason, error, prompt_tokens, completion_tokens, total_tokens, duration_ns, base_url
			FROM runs ORDER BY id`, offset, offset); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO events (run_id, iteration, kind, text, reasoning, tool, args, failed, forced,
			stop_reason, duration_ns, elapsed_ns)
			SELECT run_id + ?, iteration, kind, text, reasoning, tool, args, failed, forced, stop_reason, duration_ns, elapsed_ns
			FROM events ORDER BY id`, offset); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO events_fts (events_fts) VALUES ('rebuild');
		UPDATE runs SET indexed_upto = coalesce((SELECT max(id) FROM events WHERE run_id = runs.id), 0);`)
	return err
}

// BenchmarkSearchWords searches a log of 20,480 runs for texts of more and
// more words, and for one word typed again and again. 100 words are past
// MaxSearchWords: the search is refused at once.
func BenchmarkSearchWords(b *testing.B) {
	// Words of the runs, and the words they start, each of which finds
	// every run: the costliest search of a given length.
	var words []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(stepEvents(1)[2].Text + " " + stepEvents(1)[0].Reasoning)) {
		w = strings.Trim(w, ".,:()")
		for i := 1; i <= len(w); i++ {
			if !seen[w[:i]] && !strings.ContainsAny(w[:i], ".,:()") {
				seen[w[:i]] = true
				words = append(words, w[:i])
			}
		}
	}
	distinct := func(n int) string {
		if n > len(words) {
			panic(fmt.Sprintf("%d words, want %d", len(words), n))
		}
		return strings.Join(words[:n], " ")
	}
	path := searchLog(b, b.TempDir())
	for _, tt := range []struct{ name, text string }{
		{"1 word", "tokyo"},
		{"4 words", "tokyo population million people"},
		{"16 words", distinct(16)},
		{"100 words", distinct(100)},
		{"a word 150 times", strings.Repeat("tokyo ", 150)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s, err := Open(context.Background(), path)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			for b.Loop() {
				s.List(ctx, Query{Text: tt.text, Limit: 20})
			}
		})
	}
}
