package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestToolOptionsAreUsageErrors checks that tool settings no tool can
// work with exit 2 and name their flag.
func TestToolOptionsAreUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown search engine", []string{"tools", "--search-engine", "bing"}, "--search-engine"},
		{"a negative tool timeout", []string{"tools", "--tool-timeout", "-5s"}, "--tool-timeout"},
		{"searxng without its address", []string{"tools", "--search-engine", "searxng"}, "--search-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: tt.args})
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit 2 naming %s\n%s", tt.want, got)
			}
		})
	}
}

// TestTimeoutBoundsTheWholeRun runs against a server that never answers:
// --timeout 2s ends the run, forced answer included, within a second of
// it, with exit status 3.
func TestTimeoutBoundsTheWholeRun(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Hang())
	start := time.Now()
	got := run(t, invocation{args: []string{"ask", "-q", "--timeout", "2s", "--base-url", s.URL, "hi"}})
	if took := time.Since(start); got.code != 3 || took > 3500*time.Millisecond {
		t.Fatalf("exit %d after %s, want 3 within about 3s\n%s", got.code, took, got)
	}
}

// TestPipedTextAndAttachmentsReachTheModel pipes a text and attaches a
// file to a question: the model gets the question and both texts.
func TestPipedTextAndAttachmentsReachTheModel(t *testing.T) {
	s := ollama(t, "calculator.json")
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("Ship on Tuesday.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "-a", notes, "Summarize this"}, stdin: "The meeting moved to Friday.\n"})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	body := fmt.Sprint(s.Request(0))
	for _, want := range []string{"Summarize this", "The meeting moved to Friday.", "Ship on Tuesday.", "--- stdin ---", "--- " + notes + " ---"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model did not get %q:\n%.600s", want, body)
		}
	}
	big := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "Summarize this"}, stdin: strings.Repeat("a", 2<<20)})
	if big.code != 2 || !strings.Contains(big.stderr, "more than the 1048576 bytes") {
		t.Errorf("2 MiB piped: want exit 2 and the limit\n%s", big)
	}
}

// TestAModelThatNeverFollowsTheFormat gets the same unreadable reply three
// times: the trace shows the parser's message once, and the run ends with
// exit 3 and advice on what to try.
func TestAModelThatNeverFollowsTheFormat(t *testing.T) {
	s := ollama(t, "no_format.json", modeltest.Repeat())
	got := run(t, invocation{args: []string{"ask", "--base-url", s.URL, "What is 17 * 23 + 4?"}})
	if got.code != 3 || !strings.Contains(got.stderr, "does not follow the reply format: try another model") {
		t.Fatalf("want exit 3 and advice\n%s", got)
	}
	if n := strings.Count(got.stderr, "the same as before"); n != 2 {
		t.Errorf("the parser's message is repeated in full; %d short repeats\n%s", n, got)
	}
}

// TestBashCompletion sources the bash completion script and completes a
// command and a flag with it, as bash would on Tab.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	script := run(t, invocation{args: []string{"completion", "bash"}})
	if script.code != 0 {
		t.Fatalf("exit %d\n%s", script.code, script)
	}
	check := script.stdout + `
COMP_WORDS=(react-agent to); COMP_CWORD=1; _react_agent; echo "commands: ${COMPREPLY[*]}"
COMP_WORDS=(react-agent ask --max-i); COMP_CWORD=2; _react_agent; echo "flags: ${COMPREPLY[*]}"
`
	out, err := exec.Command("bash", "-c", check).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "commands: tools tool") || !strings.Contains(string(out), "flags: --max-iterations") {
		t.Fatalf("bash completed:\n%s (%v)", out, err)
	}
	for _, shell := range []string{"zsh", "fish"} {
		if got := run(t, invocation{args: []string{"completion", shell}}); got.code != 0 || !strings.Contains(got.stdout, "--max-iterations") && !strings.Contains(got.stdout, "-l max-iterations") {
			t.Errorf("completion %s: exit %d\n%s", shell, got.code, got)
		}
	}
}
