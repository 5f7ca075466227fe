package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestNamesTypedGetSuggestions mistypes what people type by name: each
// error says what was meant, and what there is.
func TestNamesTypedGetSuggestions(t *testing.T) {
	config := writeFile(t, "config.yaml", "modle: qwen2.5:7b\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a provider", []string{"--provider", "olama", "hi"}, `unknown provider "olama"; did you mean ollama? The providers are ollama, openai,`},
		{"a provider of models", []string{"models", "--provider", "opnai"}, `did you mean openai?`},
		{"a language", []string{"--lang", "fr", "hi"}, `unknown language "fr"; the languages are en and zh`},
		{"a tool", []string{"tool", "calculatr", "2+2"}, `unknown tool "calculatr"; did you mean calculator? The tools are calculator, http_request and web_search`},
		{"a protocol", []string{"--protocol", "nativ", "hi"}, `did you mean native?`},
		{"a setting in the config file", []string{"--config", config, "hi"}, `unknown setting "modle"; did you mean model? (react-agent settings lists them all)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := args(tt.args...).run(t)
			if got.code != exitUsage || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit 2 and %q\n%s", tt.want, got)
			}
		})
	}
	t.Run("the config file's error does not list every setting", func(t *testing.T) {
		t.Parallel()
		if got := args("--config", config, "hi").run(t); strings.Contains(got.stderr, "max-observation") {
			t.Errorf("the error lists the settings:\n%s", got)
		}
	})
}

// TestABoundStepIsANoticeNotAWarning runs on a llama-server that binds
// steps to the tools: the trace says so as a note, and --json as a
// notice.
func TestABoundStepIsANoticeNotAWarning(t *testing.T) {
	t.Parallel()
	s := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat())
	defer s.Close()
	got := args("--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "note: constrained: ") || strings.Contains(got.stderr, "warning") {
		t.Fatalf("want a note, not a warning\n%s", got)
	}
	got = args("-q", "--json", "--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || !strings.Contains(got.stdout, `{"type":"notice","iteration":1,"message":"constrained: `) || strings.Contains(got.stdout, `"warning"`) {
		t.Fatalf("want a notice event, no warning\n%s", got)
	}
}

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
		if stop, _ := setting(got.stdout, "stop"); stop != `["\nObservation" "\nobservation" "\n**Observation" "\n观察"]` {
			t.Errorf("stop shows %s, not the stop sequences sent", stop)
		}
	})
}
