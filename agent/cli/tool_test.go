package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestListsFitTheTerminal lists the tools and the settings on terminals
// of 80 and 60 columns: the tools' descriptions wrap, as help does, and
// the settings stand in aligned columns.
func TestListsFitTheTerminal(t *testing.T) {
	for _, width := range []int{60, 80} {
		t.Run("tools", func(t *testing.T) {
			t.Parallel()
			got := invocation{args: []string{"tools"}, terminal: true, width: width}.run(t)
			for _, line := range strings.Split(got.stdout, "\n") {
				if n := utf8.RuneCountInString(line); n >= width {
					t.Errorf("at %d columns, a line of %d: %q", width, n, line)
				}
			}
			if got.code != 0 || !strings.Contains(got.stdout, "\n    arguments:\n      expression  string  required, primary") {
				t.Errorf("the list lost its shape:\n%s", got)
			}
		})
		t.Run("/tools in chat", func(t *testing.T) {
			t.Parallel()
			got := invocation{args: []string{"chat", "-q", "--base-url", "http://127.0.0.1:9"}, stdin: "/tools\n", terminal: true, width: width}.run(t)
			for _, line := range strings.Split(got.stderr, "\n") {
				if n := utf8.RuneCountInString(line); n >= width {
					t.Errorf("at %d columns, a line of %d: %q", width, n, line)
				}
			}
		})
	}
	t.Run("settings", func(t *testing.T) {
		t.Parallel()
		got := args("settings", "-m", "qwen2.5:7b").run(t)
		column := -1
		for _, line := range strings.Split(strings.TrimSpace(got.stdout), "\n") {
			name, rest, _ := strings.Cut(line, " ")
			value := strings.TrimLeft(rest, " ")
			if len(value) > 30 || strings.HasPrefix(value, "(") {
				continue // a long value or an empty one
			}
			if at := len(line) - len(value); column < 0 {
				column = at
			} else if at != column {
				t.Errorf("the value of %s starts at column %d, not %d:\n%s", name, at, column, got.stdout)
			}
		}
		if stop, _ := settingLine(got.stdout, "stop"); stop != `["\nObservation" "\nobservation" "\n**Observation" "\n观察"]` {
			t.Errorf("stop shows %s, not the stop sequences sent", stop)
		}
	})
}

// TestToolWithoutArgumentsNeedsNoInput calls a plugin that declares no
// arguments, with no input, as its help says it may be: once the call
// failed with "unknown argument input". It runs, with {} on stdin; so
// does a tool whose arguments are all optional.
func TestToolWithoutArgumentsNeedsNoInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "tools.yaml")
	os.WriteFile(config, []byte(`tools:
  - name: stdin_back
    description: Says what it read.
    command: ["sh", "-c", "echo read; cat"]
    confirm: false
  - name: optional
    description: Takes an optional argument.
    command: ["sh", "-c", "echo read; cat"]
    args: [{name: days, type: integer}]
    confirm: false
`), 0o600)
	for _, name := range []string{"stdin_back", "optional"} {
		got := args("tool", "--tools-config", config, name).run(t)
		if got.code != 0 || strings.TrimSpace(got.stdout) != "read\n{}" {
			t.Errorf("tool %s: want it run with {} on stdin\n%s", name, got)
		}
	}
}
