package logs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// schemaV1 is the first schema as it shipped, written out here rather
// than taken from migrations, so that a change to migrations[0] shows.
const schemaV1 = `CREATE TABLE runs (
		id INTEGER PRIMARY KEY, conversation TEXT NOT NULL, started_at INTEGER NOT NULL, finished_at INTEGER,
		question TEXT NOT NULL, context TEXT NOT NULL DEFAULT '', provider TEXT NOT NULL DEFAULT '',
		model TEXT NOT NULL DEFAULT '', protocol TEXT NOT NULL DEFAULT '', answer TEXT NOT NULL DEFAULT '',
		stop_reason TEXT NOT NULL DEFAULT '', error TEXT NOT NULL DEFAULT '',
		prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
		total_tokens INTEGER NOT NULL DEFAULT 0, duration_ns INTEGER NOT NULL DEFAULT 0);
	CREATE INDEX runs_conversation ON runs (conversation, id);
	CREATE INDEX runs_started ON runs (started_at);
	CREATE TABLE events (
		id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		iteration INTEGER NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL DEFAULT '',
		reasoning TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL DEFAULT '', args TEXT NOT NULL DEFAULT '',
		failed INTEGER NOT NULL DEFAULT 0, forced INTEGER NOT NULL DEFAULT 0, stop_reason TEXT NOT NULL DEFAULT '',
		duration_ns INTEGER NOT NULL DEFAULT 0, elapsed_ns INTEGER NOT NULL DEFAULT 0);
	CREATE INDEX events_run ON events (run_id, id);
	PRAGMA user_version = 1;`

// rawDB opens path with the driver alone, as an older program would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenMigratesAVersion1Database(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "logs.db")
	db := rawDB(t, path)
	if _, err := db.Exec(schemaV1); err != nil {
		t.Fatal(err)
	}
	_, err := db.Exec(`INSERT INTO runs (id, conversation, started_at, finished_at, question, provider, model, protocol, answer, stop_reason)
		VALUES (1, 'old0001', 1700000000000000000, 1700000001000000000, 'How tall is Everest?', 'ollama', 'qwen2.5:7b', 'text', '8849 m', 'final_answer');
		INSERT INTO events (run_id, iteration, kind, tool, args) VALUES (1, 1, 'action', 'web_search', '{"query":"everest height"}');
		INSERT INTO events (run_id, iteration, kind, tool, text) VALUES (1, 1, 'observation', 'web_search', 'Mount Everest is 8,848.86 metres tall.');`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	s.db.QueryRow("PRAGMA user_version").Scan(&v)
	if v != len(migrations) {
		t.Fatalf("schema version %d after Open, want %d", v, len(migrations))
	}
	tests := []struct {
		name, text string
	}{
		{"a question written before the migration is found", "everest tall"},
		{"an observation written before the migration is found", "metres"},
		{"an action's arguments written before the migration are found", "height"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := s.List(ctx, Query{Text: tt.text})
			if err != nil || len(list) != 1 || list[0].ID != "old0001" || list[0].Status != StatusAnswered {
				t.Fatalf("List(%q) = %+v, %v; want the old conversation, answered", tt.text, list, err)
			}
		})
	}
	t.Run("runs written after the migration are found too", func(t *testing.T) {
		rec, err := s.Start(ctx, Run{Conversation: "old0001", Question: "And K2?"})
		if err != nil {
			t.Fatal(err)
		}
		rec.Finish(ctx, Outcome{Answer: "8611 m", StopReason: "final_answer"})
		turns, err := s.Turns(ctx, "old0001")
		if err != nil || len(turns) != 2 || turns[0].Answer != "8849 m" || turns[1].Question != "And K2?" {
			t.Fatalf("Turns = %+v, %v", turns, err)
		}
		if list, _ := s.List(ctx, Query{Text: "8611"}); len(list) != 1 {
			t.Fatalf("the new answer is not found: %+v", list)
		}
	})
}

func TestOpenTwiceMigratesOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "logs.db")
	for range 2 {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}

func TestOpenRefusesANewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	db := rawDB(t, path)
	if _, err := db.Exec("CREATE TABLE runs (id INTEGER PRIMARY KEY); PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(context.Background(), path)
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open = %v, want ErrNewerSchema", err)
	}
}

// TestOpenMigratesAVersion2Database opens a log as the version 2 schema
// left it, whose index could not search for qwen2.5 or 2+2: after Open,
// its runs are found by such words and have a server URL column.
func TestOpenMigratesAVersion2Database(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "logs.db")
	db := rawDB(t, path)
	for v, m := range migrations[:2] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
		db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v+1))
	}
	_, err := db.Exec(`INSERT INTO runs (id, conversation, started_at, finished_at, question, provider, model, answer, stop_reason)
		VALUES (1, 'old0002', 1700000000000000000, 1700000001000000000, 'Is qwen2.5 good at 2+2?', 'ollama', 'qwen2.5:7b', 'yes', 'final_answer');
		INSERT INTO events (run_id, iteration, kind, text) VALUES (1, 1, 'observation', 'it wrote e-mail');`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`SELECT rowid FROM runs_fts WHERE runs_fts MATCH '"qwen2.5"'`); err == nil {
		t.Fatal("the version 2 index searches for phrases; this test proves nothing")
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, text := range []string{"qwen2.5", "2+2", "e-mail"} {
		if list, err := s.List(ctx, Query{Text: text}); err != nil || len(list) != 1 {
			t.Errorf("List(%q) = %+v, %v; want the old run", text, list, err)
		}
	}
	runs, err := s.Runs(ctx, "old0002")
	if err != nil || runs[0].BaseURL != "" || runs[0].Model != "qwen2.5:7b" {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	checkIndex(t, s)
}

// TestARunKeepsHowItAskedTheModel opens a log as the version 3 schema
// left it, whose runs did not keep their prompt, language and tools: after
// Open, an older run reads with none, and a new run keeps them, with the
// prompt it went on with when that changed.
func TestARunKeepsHowItAskedTheModel(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "logs.db")
	db := rawDB(t, path)
	for v, m := range migrations[:3] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
		db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v+1))
	}
	if _, err := db.Exec(`INSERT INTO runs (conversation, started_at, finished_at, question, provider, model, protocol, answer, stop_reason)
		VALUES ('old0003', 1700000000000000000, 1700000001000000000, 'What is 2+2?', 'ollama', 'qwen2.5:7b', 'text', '4', 'final_answer')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Start(ctx, Run{Conversation: "old0003", Question: "And 3+3?", Provider: "llamacpp", Protocol: "text",
		Prompt: "full", Lang: "en", Tools: []string{"calculator", "web_search"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Finish(ctx, Outcome{Answer: "6", StopReason: "final_answer", Prompt: "compact"}); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx, "old0003")
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	if old := runs[0]; old.Prompt != "" || old.Lang != "" || old.Tools != nil || old.Protocol != "text" {
		t.Errorf("the older run reads as %+v", old)
	}
	if r := runs[1]; r.Prompt != "compact" || r.Lang != "en" || strings.Join(r.Tools, ",") != "calculator,web_search" || r.PromptFile != "" {
		t.Errorf("the new run reads as %+v", r)
	}
}
