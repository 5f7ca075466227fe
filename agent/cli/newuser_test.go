package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// TestTheLogSaysWhatItNeeds searches the log for nothing it holds,
// deletes without an ID, completes IDs, and prints the latest answer
// alone.
func TestTheLogSaysWhatItNeeds(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "logs.db")
	env := []string{"REACT_AGENT_LOG_DB=" + db}
	if got := run(t, invocation{args: append(append([]string{"-q"}, demo...), "What is 17 * 23 + 4?"), env: env}); got.code != 0 {
		t.Fatalf("the run failed\n%s", got)
	}
	got := run(t, invocation{args: []string{"logs", "-q", "tokyo"}, env: env})
	if got.code != 0 || got.stdout != "" || !strings.Contains(got.stderr, `no conversation in the log matches -q "tokyo"`) {
		t.Errorf("logs -q with no match: want it said on stderr\n%s", got)
	}
	got = run(t, invocation{args: []string{"logs", "delete"}, env: env})
	if got.code != exitUsage || !strings.Contains(got.stderr, "logs delete needs the ID of the conversation to delete") {
		t.Errorf("logs delete without an ID: want what it needs\n%s", got)
	}
	list := run(t, invocation{args: []string{"logs", "--json"}, env: env})
	var convs []struct{ ID string }
	if err := json.Unmarshal([]byte(list.stdout), &convs); err != nil || len(convs) != 1 {
		t.Fatalf("logs --json: %v\n%s", err, list)
	}
	for _, sub := range []string{"show", "delete"} {
		got = run(t, invocation{args: []string{"__complete", "logs", sub, ""}, env: env})
		if !strings.HasPrefix(got.stdout, convs[0].ID+"\tWhat is 17 * 23 + 4?\n") {
			t.Errorf("logs %s <Tab> does not offer the ID\n%s", sub, got)
		}
	}
	for _, args := range [][]string{{"logs", "-r"}, {"logs", "show", "--answer", convs[0].ID[:4]}} {
		if got = run(t, invocation{args: args, env: env}); got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" {
			t.Errorf("%s: want the answer alone\n%s", strings.Join(args, " "), got)
		}
	}
}

// TestNoLogIsN runs with -n, as llm's users write --no-log: nothing is
// logged.
func TestNoLogIsN(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "logs.db")
	got := run(t, invocation{args: append(append([]string{"-q", "-n"}, demo...), "What is 17 * 23 + 4?"), env: []string{"REACT_AGENT_LOG_DB=" + db}})
	if _, err := os.Stat(db); got.code != 0 || err == nil {
		t.Fatalf("want the answer and no log\n%s", got)
	}
}

// TestParseSaysWhatItWaitsFor runs parse at a terminal with nothing piped:
// it says what to paste and how to end; a pipe gets no such line.
func TestParseSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel()
	got := invocation{args: []string{"parse"}, stdin: "Final Answer: 4", terminal: true, width: 80}.run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "reading a model's reply from the terminal; paste it, then press Ctrl-D") {
		t.Errorf("at a terminal: want what parse waits for\n%s", got)
	}
	if got = (invocation{args: []string{"parse"}, stdin: "Final Answer: 4"}).run(t); got.stderr != "" {
		t.Errorf("from a pipe: want nothing on stderr\n%s", got)
	}
}

// TestTheShellOffIsSaidOnScreen has the model ask for the shell, which is
// off: the screen says how to allow it, the model's observation aside.
func TestTheShellOffIsSaidOnScreen(t *testing.T) {
	t.Parallel()
	s := ollama(t, "shell_confirm.json")
	got := args("--base-url", s.URL, "What does the shell say?").run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "note: the model asked for the shell, which is off: pass --allow-shell") {
		t.Fatalf("want a note naming --allow-shell\n%s", got)
	}
}

// TestSettingsAreKeptFromTheCommandLine sets and unsets settings, and the
// default model, as llm's users do, and reads them back.
func TestSettingsAreKeptFromTheCommandLine(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + home}
	config := filepath.Join(home, "react-agent", "config.yaml")
	steps := []struct {
		args []string
		code int
		want string // in the config file after the step, or on stderr when code is not 0
	}{
		{[]string{"settings", "set", "max-iterations", "4"}, 0, "max-iterations: 4\n"},
		{[]string{"models", "default", "llama3.1:8b"}, 0, "max-iterations: 4\nmodel: llama3.1:8b\n"},
		{[]string{"settings", "set", "system", "null"}, 0, "max-iterations: 4\nmodel: llama3.1:8b\nsystem: \"null\"\n"},
		{[]string{"settings", "unset", "system"}, 0, "max-iterations: 4\nmodel: llama3.1:8b\n"},
		{[]string{"settings", "set", "max-iterations", "lots"}, exitUsage, "max-iterations takes a whole number"},
		{[]string{"settings", "set", "yes", "true"}, exitUsage, "chosen for one run"},
		{[]string{"settings", "set", "modle", "x"}, exitUsage, "did you mean model?"},
		{[]string{"settings", "unset", "max-iterations"}, 0, "model: llama3.1:8b\n"},
	}
	for _, s := range steps {
		got := run(t, invocation{args: s.args, env: env})
		data, _ := os.ReadFile(config)
		if got.code != s.code || s.code == 0 && string(data) != s.want || s.code != 0 && !strings.Contains(got.stderr, s.want) {
			t.Fatalf("%s: want exit %d and %q\n%s\n--- the file:\n%s", strings.Join(s.args, " "), s.code, s.want, got, data)
		}
	}
	if info, err := os.Stat(config); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the config file's mode: %v, %v", info.Mode(), err)
	}
	if got := run(t, invocation{args: []string{"models", "default"}, env: env}); got.stdout != "llama3.1:8b\n" {
		t.Errorf("models default: want the model set\n%s", got)
	}
	if model, source := setting(run(t, invocation{args: []string{"settings"}, env: env}).stdout, "model"); model != "llama3.1:8b" || source != config {
		t.Errorf("settings shows model %q from %q", model, source)
	}
	t.Run("a mistake in the file does not stop its fix", func(t *testing.T) {
		os.WriteFile(config, []byte("modle: x\n"), 0o600)
		if got := run(t, invocation{args: []string{"settings", "unset", "modle"}, env: env}); got.code != 0 {
			t.Fatalf("settings unset modle: want exit 0\n%s", got)
		}
		if got := run(t, invocation{args: []string{"settings"}, env: env}); got.code != 0 {
			t.Errorf("the file is not fixed\n%s", got)
		}
	})
}

// TestModelsShowTheDefaultSizeAndDate lists an Ollama server's models:
// the default one is marked, and each has its size and date.
func TestModelsShowTheDefaultSizeAndDate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"models": [{"name": "qwen2.5:7b", "size": 4683087332, "modified_at": "2026-10-20T10:00:00.123456+02:00"},
			{"name": "llama3.1:8b", "size": 4920753328, "modified_at": "2026-11-02T09:00:00Z"}, {"name": "odd", "modified_at": "yesterday"}]}`)
	}))
	defer srv.Close()
	got := args("models", "--base-url", srv.URL).run(t)
	lines := strings.Split(strings.TrimSpace(got.stdout), "\n")
	if got.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "llama3.1:8b  4.9 GB  2026-11-0") ||
		!strings.HasPrefix(lines[2], "qwen2.5:7b   4.7 GB  2026-10-20  (default)") || strings.TrimSpace(lines[1]) != "odd" {
		t.Fatalf("want the models with their size and date, the default marked\n%s", got)
	}
	got = args("models", "--json", "--base-url", srv.URL).run(t)
	if !strings.Contains(got.stdout, `"name": "qwen2.5:7b",
    "size": 4683087332,
    "modified": "2026-10-20T10:00:00.123456+02:00",
    "default": true`) {
		t.Errorf("--json: want size, date and the default\n%s", got)
	}
}
