package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestAStoppedCallIsNoParseError stops a model call while its reply
// streams, with Ctrl-C and with --timeout, on Ollama and on an
// OpenAI-compatible server: what had come is no reply, and neither the
// trace, the events nor the log show a parse error or an observation.
func TestAStoppedCallIsNoParseError(t *testing.T) {
	reply := []string{"Thought: I will add.\nAction: calculator\nAction Input: 2+2"}
	servers := map[string]func() (*modeltest.Server, []string){
		"ollama": func() (*modeltest.Server, []string) {
			s := modeltest.NewOllama(reply, modeltest.Slow(300*time.Millisecond), modeltest.Pieces(8))
			return s, []string{"--base-url", s.URL}
		},
		"openai": func() (*modeltest.Server, []string) {
			s := modeltest.NewOpenAI(reply, modeltest.Slow(300*time.Millisecond), modeltest.Pieces(8))
			return s, []string{"--provider", "openai", "--base-url", s.URL + "/v1"}
		},
	}
	for name, start := range servers {
		for _, how := range []string{"Ctrl-C", "--timeout"} {
			t.Run(how+" on "+name, func(t *testing.T) {
				t.Parallel()
				s, flags := start()
				defer s.Close()
				db := filepath.Join(t.TempDir(), "logs.db")
				r := invocation{args: append(append([]string{"ask", "--stream"}, flags...), "hi"), signals: &fakeSignals{},
					env: []string{"REACT_AGENT_LOG_DB=" + db}}
				want := exitInterrupted
				if how == "--timeout" {
					r.args = append([]string{"--timeout", "800ms"}, r.args...)
					want = exitNoAnswer
				}
				done := make(chan outcome, 1)
				go func() { done <- r.run(t) }()
				if how == "Ctrl-C" {
					waitCalls(t, s)
					time.Sleep(500 * time.Millisecond) // a piece or two of the reply
					r.signals.interrupt()
				}
				got := <-done
				if got.code != want || strings.Contains(got.stderr, "parse error") || strings.Contains(got.stderr, "Observation") {
					t.Fatalf("want exit %d and no parse error\n%s", want, got)
				}
				logged := invocation{args: []string{"logs", "show", "--json"}, env: []string{"REACT_AGENT_LOG_DB=" + db}}.run(t)
				if strings.Contains(logged.stdout, `"parse_error"`) || strings.Contains(logged.stdout, `"observation"`) {
					t.Errorf("the log records what never happened:\n%s", logged.stdout)
				}
			})
		}
	}
	t.Run("--json shows only the interruption", func(t *testing.T) {
		t.Parallel()
		s, flags := servers["openai"]()
		defer s.Close()
		got := invocation{args: append(append([]string{"ask", "-q", "--json", "--stream", "--timeout", "800ms"}, flags...), "hi")}.run(t)
		for _, line := range strings.Split(strings.TrimSpace(got.stdout), "\n") {
			if strings.Contains(line, `"type":"parse_error"`) || strings.Contains(line, `"type":"observation"`) {
				t.Errorf("an event of what never happened: %s", line)
			}
		}
		if got.code != exitNoAnswer || !strings.Contains(got.stdout, `"stop_reason":"timeout"`) {
			t.Errorf("want exit 3 and the timeout\n%s", got)
		}
	})
}

// waitCalls waits until s has had a call.
func waitCalls(t *testing.T, s *modeltest.Server) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); s.Calls() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the model was never called")
		}
	}
}
