package cli

import (
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
