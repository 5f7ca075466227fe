package cli

import (
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestOptionValueIsNoFlag checks -o KEY VALUE, as llm writes it, when the
// value was left out: the next flag is not taken for it.
func TestOptionValueIsNoFlag(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Repeat())
	got := args("-o", "seed", "--base-url", s.URL, "2+2?").run(t)
	if got.code != exitUsage || !strings.Contains(got.stderr, "-o seed needs a value before --base-url") {
		t.Fatalf("want exit 2 and what to write\n%s", got)
	}
	if s.Calls() != 0 {
		t.Errorf("the model was asked %d times", s.Calls())
	}
	got = args("-q", "-o", "seed", "-1", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 {
		t.Errorf("a negative value is a value\n%s", got)
	}
}

// TestFlagsAreNamedAsWritten checks the words of flag errors: a one-letter
// flag is named with one dash, and a missing value says what it is.
func TestFlagsAreNamedAsWritten(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		not  string
	}{
		{"-V", []string{"-V"}, "unknown flag -V; the version is --version", "--V"},
		{"-x", []string{"-x"}, "unknown flag -x; the one-letter flags are -a (--attach), -m (--model)", "--x"},
		{"-x in a group", []string{"-qx", "hi"}, "unknown flag -x;", "--x"},
		{"-m without a value", []string{"-m"}, "-m (--model) needs a value: a model's name, like qwen2.5:7b", "a value: a value"},
		{"--since without a value", []string{"logs", "--since"}, "--since needs a value: a date, like 2026-11-01", "a value: a value"},
		{"a flag of another command", []string{"tools", "--since", "7d"}, "unknown flag --since; it is a flag of logs", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := args(tt.args...).run(t)
			if got.code != exitUsage || !strings.Contains(got.stderr, tt.want) || tt.not != "" && strings.Contains(got.stderr, tt.not) {
				t.Fatalf("want exit 2 and %q\n%s", tt.want, got)
			}
		})
	}
}
