package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools/mcp"
)

// TestABoundStepIsANoticeNotAWarning runs on a llama-server that binds
// steps to the tools: the trace says so as a note with -v only, as a
// detail of how the run goes, and --json as a notice.
func TestABoundStepIsANoticeNotAWarning(t *testing.T) {
	t.Parallel()
	s := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat())
	defer s.Close()
	got := args("--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || strings.Contains(got.stderr, "constrained") || strings.Contains(got.stderr, "warning") {
		t.Fatalf("want no note, and no warning, without -v\n%s", got)
	}
	got = args("-v", "--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "note: constrained: ") || strings.Contains(got.stderr, "warning") {
		t.Fatalf("want a note with -v, not a warning\n%s", got)
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

// TestAModelOllamaStopsForLoopingIsToldWhatToChange runs a model that
// Ollama stops for writing one token over and over: the call is made
// twice, and the error says what Ollama did and which flags to change.
func TestAModelOllamaStopsForLoopingIsToldWhatToChange(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Misbehave(modeltest.RepeatLimit))
	defer s.Close()
	got := args("-q", "--no-log", "--base-url", s.URL, "What is 6 * 7?").run(t)
	if got.code != 1 || s.Calls() != 2 || !strings.Contains(got.stderr, "Ollama stopped it, as it does when the model writes one token more than 30 times in a row") ||
		!strings.Contains(got.stderr, "raise --temperature") {
		t.Fatalf("want exit 1 after 2 calls, with what Ollama did and --temperature; %d calls\n%s", s.Calls(), got)
	}
}

// TestARemoteMCPServerThatDoesNotAnswerIsNotToldOfNpx checks the advice
// for an MCP server that did not answer in time: once a remote one was
// told that a server fetched with npx -y may need longer.
func TestARemoteMCPServerThatDoesNotAnswerIsNotToldOfNpx(t *testing.T) {
	t.Parallel()
	remote := advise(&mcp.StartError{Server: "far", URL: "https://mcp.example.com/mcp", Err: fmt.Errorf("no answer: %w", context.DeadlineExceeded)})
	if strings.Contains(remote, "npx") || !strings.Contains(remote, "check that the server is up at that address") {
		t.Errorf("a remote server's advice: %s", remote)
	}
	local := advise(&mcp.StartError{Server: "near", Err: fmt.Errorf("no answer: %w", context.DeadlineExceeded)})
	if !strings.Contains(local, "npx -y") {
		t.Errorf("a command's advice: %s", local)
	}
}
