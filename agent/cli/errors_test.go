package cli

import (
	"strings"
	"testing"
)

// TestErrorsSayTheirLabelOnce checks that an error names its command or
// its source once, not twice.
func TestErrorsSayTheirLabelOnce(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"eval", "nope.jsonl"}, "react-agent eval: open nope.jsonl: no such file"},
		{[]string{"--replay", "nope.jsonl", "hi"}, "react-agent: replay: open nope.jsonl: no such file"},
		{[]string{"completion", "tcsh"}, `react-agent completion: unknown shell "tcsh"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			got := args(tt.args...).run(t)
			if !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want %q\n%s", tt.want, got)
			}
		})
	}
}
