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

// TestThePromptFlagChoosesTheSystemPrompt asks with each built-in prompt,
// from the flag and from the environment, and evaluates with the compact
// one: the system message the server gets is the chosen one.
func TestThePromptFlagChoosesTheSystemPrompt(t *testing.T) {
	t.Parallel()
	const (
		full    = "You are a careful assistant."
		compact = "Answer the question. Use a tool when it helps.\n\nTools:\n- calculator: Evaluate an arithmetic expression and return the number. Input: {\"expression\": string}\n"
	)
	tests := []struct {
		name string
		in   func(url string) invocation
		want string
	}{
		{"the full prompt by default", func(url string) invocation {
			return args("-q", "--base-url", url, "What is 17 * 23 + 4?")
		}, full},
		{"--prompt compact", func(url string) invocation {
			return args("-q", "--prompt", "compact", "--base-url", url, "What is 17 * 23 + 4?")
		}, compact},
		{"REACT_AGENT_PROMPT=compact", func(url string) invocation {
			return invocation{args: []string{"-q", "--base-url", url, "What is 17 * 23 + 4?"}, env: []string{"REACT_AGENT_PROMPT=compact"}}
		}, compact},
		{"eval --prompt compact", func(url string) invocation {
			return args("eval", "--prompt", "compact", "--models", "ollama:qwen2.5:7b@"+url, root+"/testdata/eval/arithmetic.jsonl")
		}, "Answer the question. Use a tool when it helps.\n\nTools:\n- calculator:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ollama(t, "calculator.json", modeltest.Repeat())
			got := tt.in(s.URL).run(t)
			if s.Calls() == 0 {
				t.Fatalf("nothing reached the model\n%s", got)
			}
			msgs, _ := s.Request(0)["messages"].([]any)
			first, _ := msgs[0].(map[string]any)
			if system, _ := first["content"].(string); first["role"] != "system" || !strings.HasPrefix(system, tt.want) {
				t.Errorf("the system message starts %.120q, want %.120q\n%s", system, tt.want, got)
			}
		})
	}
}
