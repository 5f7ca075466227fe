package cli

import (
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
