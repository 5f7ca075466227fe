package cli

import (
	"strings"
	"testing"
)

// TestCompletion asks react-agent __complete what fits at the cursor, as
// the shells' scripts do: commands, each command's own flags, flag
// values, tools, help's topics, settings.
func TestCompletion(t *testing.T) {
	tests := []struct {
		words     []string
		want, not []string
	}{
		{[]string{"to"}, []string{"tools", "tool"}, []string{"chat"}},
		{[]string{""}, []string{"ask", "logs", "completion"}, []string{"help", "version", "__complete"}},
		{[]string{"ask", "--max-i"}, []string{"--max-iterations"}, nil},
		{[]string{"logs", "--"}, []string{"--since", "--limit", "--answer"}, []string{"--allow-shell"}},
		{[]string{"--provider", ""}, []string{"ollama", "openai"}, nil},
		{[]string{"--provider=op"}, []string{"--provider=openai"}, []string{"--provider=ollama"}},
		{[]string{"chat", "--protocol", "na"}, []string{"native"}, []string{"text"}},
		{[]string{"eval", "--protocol", ""}, []string{"constrained"}, nil},
		{[]string{"-q", "tools", "--js"}, []string{"--json"}, nil},
		{[]string{"tool", "calc"}, []string{"calculator"}, nil},
		{[]string{"help", "co"}, []string{"config", "constrain", "completion", "compared"}, []string{"chat"}},
		{[]string{"settings", "set", "max-it"}, []string{"max-iterations"}, nil},
		{[]string{"models", ""}, []string{"default"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words, " "), func(t *testing.T) {
			t.Parallel()
			got := run(t, invocation{args: append([]string{"__complete"}, tt.words...)})
			var words []string
			for _, line := range strings.Split(strings.TrimSpace(got.stdout), "\n") {
				w, _, _ := strings.Cut(line, "\t")
				words = append(words, w)
			}
			for _, w := range tt.want {
				if !contains(words, w) {
					t.Errorf("completes to %v, without %s", words, w)
				}
			}
			for _, w := range tt.not {
				if contains(words, w) {
					t.Errorf("completes to %v, with %s", words, w)
				}
			}
		})
	}
	if got := run(t, invocation{args: []string{"__complete", "--attach", ""}}); !strings.Contains(got.stdout, "::files") {
		t.Errorf("--attach: want files\n%s", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
