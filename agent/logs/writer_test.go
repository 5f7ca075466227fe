package logs

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/event"
)

// lockLog takes the write lock of the log at path on a connection of its
// own, as another process writing to it would, and returns the function
// that frees it.
func lockLog(t *testing.T, path string) (unlock func()) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once bool
	unlock = func() {
		if !once {
			once = true
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			db.Close()
		}
	}
	t.Cleanup(unlock)
	return unlock
}

// logged returns the runs of session id that the log at path holds, as
// another process opening it reads them.
func logged(t *testing.T, path, id string) ([]Run, error) {
	t.Helper()
	store, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	return store.Runs(context.Background(), id)
}

// record records one run of steps events, as a nine-step run of the agent
// would, and returns how long it took.
func record(s *Session, question string, steps int) time.Duration {
	begin := time.Now()
	ctx := context.Background()
	s.Begin(ctx, question, "")
	for i := range steps {
		s.Event(event.Event{Kind: event.Thought, Iteration: i + 1, Text: fmt.Sprintf("step %d", i+1)})
	}
	s.End(ctx, Outcome{Answer: "done", StopReason: "final_answer"})
	return time.Since(begin)
}

// TestSessionNeverWaitsOnALockedLog records a run while another
// connection holds the log's write lock, as another process writing to
// the log does. Once, each event waited the busy timeout: a nine-step run
// took 38 s instead of 9. The run goes on at once, and its whole record is
// written when the lock frees.
func TestSessionNeverWaitsOnALockedLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	s := openSession(t, path)
	unlock := lockLog(t, path)
	took := record(s, "nine steps", 9)
	if took >= BusyTimeout {
		t.Fatalf("recording a run took %s with the log locked: it waited on the lock", took)
	}
	time.Sleep(200 * time.Millisecond)
	unlock()
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v, want every write done once the lock freed", err)
	}
	runs, err := logged(t, path, s.ID())
	if err != nil || len(runs) != 1 || len(runs[0].Events) != 9 || runs[0].Status != StatusAnswered {
		t.Fatalf("Runs = %+v, %v; want the answered run and its 9 events", runs, err)
	}
	if r := runs[0]; r.Finished.Sub(r.Started) > time.Second {
		t.Errorf("the run is logged as lasting from %s to %s: its times are when it was written, not when it ran", r.Started, r.Finished)
	}
}

// TestALockedLogOpensAtOnce opens a log, already up to date, while
// another process holds its write lock. Once, opening took the lock to
// check the schema: it waited the busy timeout, then the run went
// unlogged. It opens at once, and the run's record is written when the
// lock frees.
func TestALockedLogOpensAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	openSession(t, path).Close()
	unlock := lockLog(t, path)
	begin := time.Now()
	s := openSession(t, path)
	if took := time.Since(begin); took >= BusyTimeout/2 {
		t.Errorf("opening the locked log took %s", took)
	}
	record(s, "opened while locked", 2)
	unlock()
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v, want every write done once the lock freed", err)
	}
	if runs, err := logged(t, path, s.ID()); err != nil || len(runs) != 1 || len(runs[0].Events) != 2 {
		t.Fatalf("Runs = %+v, %v; want the run and its 2 events", runs, err)
	}
}

// TestSessionCloseSaysWhatWasNotWritten keeps the log locked past the
// time Close waits: Close gives up within a bound and says what was not
// written.
func TestSessionCloseSaysWhatWasNotWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	s := openSession(t, path, WithCloseWait(200*time.Millisecond))
	lockLog(t, path)
	record(s, "never written", 3)
	begin := time.Now()
	err := s.Close()
	if took := time.Since(begin); took > 200*time.Millisecond+BusyTimeout+2*time.Second {
		t.Errorf("Close took %s", took)
	}
	want := "another process kept the log locked for more than 200ms: 1 run's start, 3 events and 1 run's end not written"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Close = %v, want %q", err, want)
	}
}

// TestSessionDropsEventsPastItsBound fills the queue of a locked log past
// its bound: the events past it are dropped and counted, the run's start
// and end are kept, and what was kept is written when the lock frees.
func TestSessionDropsEventsPastItsBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	s := openSession(t, path)
	s.w.limit = 4 << 10
	unlock := lockLog(t, path)
	ctx := context.Background()
	s.Begin(ctx, "a long run", "")
	for i := range 100 {
		s.Event(event.Event{Kind: event.Observation, Iteration: i + 1, Text: strings.Repeat("x", 100)})
	}
	s.End(ctx, Outcome{Answer: "done", StopReason: "final_answer"})
	unlock()
	err := s.Close()
	if err == nil || !strings.Contains(err.Error(), "while more than 4 KiB waited to be written") || !strings.Contains(err.Error(), "events dropped") {
		t.Fatalf("Close = %v, want the dropped events counted", err)
	}
	runs, err := logged(t, path, s.ID())
	if err != nil || len(runs) != 1 || runs[0].Status != StatusAnswered || len(runs[0].Events) == 0 || len(runs[0].Events) >= 100 {
		t.Fatalf("Runs = %+v, %v; want the answered run with the events kept", runs, err)
	}
}
