package logs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/react-agent/react-agent/agent/event"
)

// childLog is the variable that makes the test binary a child process
// that logs one run to the log it names, for TestManyProcessesLogAtOnce.
const childLog = "REACT_AGENT_TEST_CHILD_LOG"

func TestMain(m *testing.M) {
	if path := os.Getenv(childLog); path != "" {
		os.Exit(logOneRun(path))
	}
	os.Exit(m.Run())
}

// logOneRun logs a run of five events to the log at path, as one command
// does, and returns the process's exit status.
func logOneRun(path string) int {
	ctx := context.Background()
	s, err := OpenSession(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s.Begin(ctx, "What is 17 * 23 + 4?", "")
	for i := range 5 {
		s.Event(event.Event{Kind: event.Thought, Iteration: i + 1, Text: "thinking"})
	}
	s.End(ctx, Outcome{Answer: "395", StopReason: "final_answer"})
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestManyProcessesLogAtOnce has eight processes log a run each to a new
// log at once, as commands started together do: each run is kept whole.
// Once, the check of the log's path held a descriptor of the file, whose
// closing dropped SQLite's locks (they belong to the process), and runs
// were lost or failed with "locking protocol".
func TestManyProcessesLogAtOnce(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	for round := range 3 {
		path := filepath.Join(t.TempDir(), "logs.db")
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				cmd := exec.Command(exe)
				cmd.Env = append(os.Environ(), childLog+"="+path)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("round %d, process %d: %v\n%s", round, i, err, out)
				}
			})
		}
		wg.Wait()
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.List(context.Background(), Query{})
		if err != nil || len(list) != n {
			t.Fatalf("round %d: %d conversations logged (%v), want %d", round, len(list), err, n)
		}
		for _, c := range list {
			runs, err := s.Runs(context.Background(), c.ID)
			if err != nil || len(runs) != 1 || runs[0].Status != StatusAnswered || len(runs[0].Events) != 5 {
				t.Errorf("round %d: conversation %s: %+v, %v", round, c.ID, runs, err)
			}
		}
		s.Close()
	}
}
