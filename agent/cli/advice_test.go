package cli

import (
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestABoundStepIsANoticeNotAWarning runs on a llama-server that binds
// steps to the tools: the trace says so as a note, and --json as a
// notice.
func TestABoundStepIsANoticeNotAWarning(t *testing.T) {
	t.Parallel()
	s := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat())
	defer s.Close()
	got := args("--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "note: constrained: ") || strings.Contains(got.stderr, "warning") {
		t.Fatalf("want a note, not a warning\n%s", got)
	}
	got = args("-q", "--json", "--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || !strings.Contains(got.stdout, `{"type":"notice","iteration":1,"message":"constrained: `) || strings.Contains(got.stdout, `"warning"`) {
		t.Fatalf("want a notice event, no warning\n%s", got)
	}
}

// TestTheShellOffIsSaidOnScreen has the model ask for the shell, which is
// off: the screen says how to allow it, the model's observation aside.
func TestTheShellOffIsSaidOnScreen(t *testing.T) {
	t.Parallel()
	s := ollama(t, "shell_confirm.json")
	got := args("--base-url", s.URL, "What does the shell say?").run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "note: the model asked for the shell, which is off: pass --allow-shell") {
		t.Fatalf("want a note naming --allow-shell\n%s", got)
	}
}
