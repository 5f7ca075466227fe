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

// TestHelpTakesEveryCommandItLists asks help for each command the
// overview lists, help and version included.
func TestHelpTakesEveryCommandItLists(t *testing.T) {
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := args("help", c.name).run(t)
			if got.code != 0 || !strings.HasPrefix(got.stdout, "Usage: react-agent ") {
				t.Fatalf("help %s: want its usage and exit 0\n%s", c.name, got)
			}
		})
	}
	if got := args("help", "nope").run(t); got.code != exitUsage || !strings.Contains(got.stderr, `no command or topic "nope"; react-agent help lists them`) {
		t.Errorf("help nope: want exit 2 and where the names are\n%s", got)
	}
}

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

// TestEvalFailsWhenRunsCannotRun evaluates a model whose server is not
// there: the table is printed, the exit status is 1, and the first cause
// is said without --failures.
func TestEvalFailsWhenRunsCannotRun(t *testing.T) {
	t.Parallel()
	got := args("eval", "--models", "ollama:m@http://127.0.0.1:9", root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != exitFailure || !strings.Contains(got.stdout, "0/6") {
		t.Fatalf("want the table and exit 1\n%s", got)
	}
	if !strings.Contains(got.stderr, "6 of 6 runs failed to run; the first, ollama:m@http://127.0.0.1:9 with text, question sum: ") ||
		!strings.Contains(got.stderr, "cannot reach Ollama at http://127.0.0.1:9") {
		t.Errorf("the cause is not said\n%s", got)
	}
	got = args("eval", "--json", "--models", "ollama:m@http://127.0.0.1:9", root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != exitFailure {
		t.Errorf("--json: want exit 1\n%s", got)
	}
	t.Run("a wrong answer is no failure to run", func(t *testing.T) {
		t.Parallel()
		s := modeltest.NewOllama([]string{"Final Answer: five"}, modeltest.Repeat())
		defer s.Close()
		got := args("eval", "--models", "ollama:m@"+s.URL, root+"/testdata/eval/arithmetic.jsonl").run(t)
		if got.code != 0 || !strings.Contains(got.stdout, "0/6") {
			t.Errorf("want exit 0 with every answer wrong\n%s", got)
		}
	})
}
