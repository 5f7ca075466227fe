package cli

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/logs"
)

// TestNoLogIsN runs with -n, as llm's users write --no-log: nothing is
// logged.
func TestNoLogIsN(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "logs.db")
	got := run(t, invocation{args: append(append([]string{"-q", "-n"}, demo...), "What is 17 * 23 + 4?"), env: []string{"REACT_AGENT_LOG_DB=" + db}})
	if _, err := os.Stat(db); got.code != 0 || err == nil {
		t.Fatalf("want the answer and no log\n%s", got)
	}
}

// noticing is a writer of a run's stderr that says when text holding a
// word is written.
type noticing struct {
	mu   sync.Mutex
	b    bytes.Buffer
	word string
	seen chan struct{}
}

func (w *noticing) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if w.seen != nil && strings.Contains(w.b.String(), w.word) {
		close(w.seen)
		w.seen = nil
	}
	return len(p), nil
}

func (w *noticing) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestCtrlCStopsTheWaitOnALockedLog ends a run, of ask and of chat, while
// another process holds the log: it says that it waits for the log, and a
// Ctrl-C then ends the wait at once, with the answer given and a word on
// what the log is missing.
func TestCtrlCStopsTheWaitOnALockedLog(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"ask", []string{"ask", "What is 17 * 23 + 4?"}, ""},
		{"chat", []string{"chat"}, "What is 17 * 23 + 4?\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "logs.db")
			in := invocation{args: append(append([]string{"-q"}, demo...), tt.args[1:]...), stdin: tt.stdin,
				env: []string{"REACT_AGENT_LOG_DB=" + db}, signals: &fakeSignals{}}
			in.args = append([]string{tt.args[0]}, in.args...)
			if first := run(t, invocation{args: append(append([]string{"-q"}, demo...), "What is 17 * 23 + 4?"), env: in.env}); first.code != 0 {
				t.Fatalf("the run that makes the log: %s", first)
			}
			store, err := sql.Open("sqlite", db)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			conn, err := store.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(context.Background(), "ROLLBACK")

			var stdout bytes.Buffer
			stderr := &noticing{word: "waiting for the run log", seen: make(chan struct{})}
			seen := stderr.seen
			done := make(chan int, 1)
			go func() { done <- testEnv(t, in, &stdout, stderr).run(in.args) }()
			select {
			case <-seen:
			case code := <-done:
				t.Fatalf("exit %d before waiting for the log\n%s", code, stderr)
			case <-time.After(logs.DefaultCloseWait):
				t.Fatalf("no word of the wait\n%s", stderr)
			}
			pressed := time.Now()
			in.signals.interrupt()
			select {
			case code := <-done:
				if took := time.Since(pressed); took > 2*time.Second {
					t.Errorf("the run ended %s after Ctrl-C", took)
				}
				if code != 0 || !strings.Contains(stdout.String(), "395") ||
					!strings.Contains(stderr.String(), "the run log is incomplete: interrupted while another process held it") {
					t.Errorf("exit %d\n--- stdout:\n%s\n--- stderr:\n%s", code, stdout.String(), stderr)
				}
			case <-time.After(logs.DefaultCloseWait):
				t.Fatalf("Ctrl-C did not stop the wait\n%s", stderr)
			}
		})
	}
}
