package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestAnEvaluationOfManyQuestionsReusesItsConnectionsAndKeepsLittle asks
// 300 questions two at a time of a server found at its address, whose
// every reply is 400 KB of thought before the answer. Once, each question
// made a model of its own, with a transport of its own never closed
// (3,000 questions left 1,353 sockets open), and the outcomes kept every
// reply whole (268 MB at 300 questions). Now the runs share one model
// and its connections, a handful in all, and the process stays under
// 150 MB, measured as its largest resident set.
func TestAnEvaluationOfManyQuestionsReusesItsConnectionsAndKeepsLittle(t *testing.T) {
	const questions = 300
	reply := "Thought: " + strings.Repeat("I think about it some more. ", (400<<10)/28) + "\nFinal Answer: 4"
	s := modeltest.NewOllama([]string{reply}, modeltest.Repeat(), modeltest.Pieces(32<<10))
	t.Cleanup(s.Close)
	var set strings.Builder
	for i := range questions {
		fmt.Fprintf(&set, `{"id": "q%d", "question": "What is 2 + 2?", "expect": "4"}`+"\n", i+1)
	}
	path := filepath.Join(t.TempDir(), "set.jsonl")
	if err := os.WriteFile(path, []byte(set.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in := invocation{args: []string{"eval", "-j", "2", "--max-tokens", "-1", "--models", "m@" + s.URL, path}}
	r := start(t, in)
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		r.cmd.Process.Kill()
		<-done
		t.Fatalf("still running after 10 minutes\n%s", r.outcome())
	}
	got := r.outcome()
	if got.code != 0 || !strings.Contains(got.stdout, fmt.Sprintf("%d/%d 100%%", questions, questions)) {
		t.Fatalf("want every question answered right\n%s", got)
	}
	if s.Calls() != questions {
		t.Errorf("the server got %d calls, want %d", s.Calls(), questions)
	}
	// Asking the server which it is takes one, the model a few.
	if n := s.Connections(); n > 8 {
		t.Errorf("%d questions opened %d connections to the server, want a handful", questions, n)
	}
	rss := r.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("%d connections; largest resident set %d MB", s.Connections(), rss>>10)
	if rss > 150<<10 {
		t.Errorf("the evaluation took %d MB at most, over 150 MB", rss>>10)
	}
}
