package cli

import (
	"strings"
	"testing"
)

// TestHelpFitsAndListsTheFlagsACommandTakes reads every command's help as
// a person would: it fits 100 columns, and lists the flags the command
// reads, not those of ask.
func TestHelpFitsAndListsTheFlagsACommandTakes(t *testing.T) {
	tests := []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--help"}, []string{"react-agent chat"}, nil},
		{[]string{"help"}, []string{"react-agent logs"}, nil},
		{[]string{"ask", "--help"}, []string{"--max-iterations", "--attach", "-s, --system"}, nil},
		{[]string{"chat", "--help"}, []string{"--max-iterations"}, []string{"--attach"}},
		{[]string{"settings", "--help"}, []string{"--max-iterations"}, nil},
		{[]string{"models", "--help"}, []string{"--provider", "--base-url", "--json"}, []string{"--max-iterations", "--allow-shell", "--attach"}},
		{[]string{"tools", "--help"}, []string{"--allow-shell", "--mcp-config", "--json"}, []string{"--max-iterations", "--provider", "--yes "}},
		{[]string{"tool", "--help"}, []string{"--allow-shell", "--yes"}, []string{"--max-iterations", "--provider"}},
		{[]string{"logs", "--help"}, []string{"--since", "--log-db"}, []string{"--max-iterations", "--allow-shell"}},
		{[]string{"parse", "--help"}, []string{"--jsonl"}, []string{"--max-iterations"}},
		{[]string{"eval", "--help"}, []string{"--models"}, []string{"--continue"}},
		{[]string{"completion", "--help"}, []string{"bash"}, []string{"--max-iterations"}},
		{[]string{"help", "logs"}, []string{"--since"}, []string{"react-agent chat"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got := run(t, invocation{args: tt.args})
			if got.code != 0 {
				t.Fatalf("exit %d\n%s", got.code, got)
			}
			for _, line := range strings.Split(got.stdout, "\n") {
				if n := len([]rune(line)); n >= 100 {
					t.Errorf("a line of %d columns: %q", n, line)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("the help lacks %s\n%s", w, got.stdout)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got.stdout, w) {
					t.Errorf("the help lists %s, which the command does not take\n%s", w, got.stdout)
				}
			}
		})
	}
}
