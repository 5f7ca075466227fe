package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestModelsShowTheDefaultSizeAndDate lists an Ollama server's models:
// the default one is marked, and each has its size and date.
func TestModelsShowTheDefaultSizeAndDate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" {
			fmt.Fprint(w, `{"version": "0.24.0"}`) // as Ollama tells itself
			return
		}
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
	if list := args("models", "list", "--base-url", srv.URL).run(t); list.code != 0 || list.stdout != got.stdout {
		t.Errorf("models list is not models, as logs list is logs\n%s", list)
	}
	if typo := args("models", "lsit").run(t); typo.code != exitUsage || !strings.Contains(typo.stderr, "did you mean list?") {
		t.Errorf("want a usage error that suggests list\n%s", typo)
	}
	got = args("models", "--json", "--base-url", srv.URL).run(t)
	if !strings.Contains(got.stdout, `"name": "qwen2.5:7b",
    "size": 4683087332,
    "modified": "2026-10-20T10:00:00.123456+02:00",
    "default": true`) {
		t.Errorf("--json: want size, date and the default\n%s", got)
	}
}

// TestAModelNameIsCheckedWhenSet sets the default model, and a chat's,
// to a name the server does not serve, as the ollama CLI asks the server
// first: the name is refused, with the name meant, and the setting stays
// as it was; a server that cannot be asked refuses too, unless --force.
func TestAModelNameIsCheckedWhenSet(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOllama([]string{"Thought: I know it.\nFinal Answer: 4"}, modeltest.Repeat(), modeltest.Models("qwen2.5:7b", "toy:latest"))
	defer s.Close()
	home := t.TempDir()
	config := filepath.Join(home, "react-agent", "config.yaml")
	env := []string{"XDG_CONFIG_HOME=" + home}
	steps := []struct {
		args []string
		code int
		says string
		file string // the config file after the step
	}{
		{[]string{"models", "default", "toyy", "--base-url", s.URL}, exitUsage,
			"does not serve toyy; did you mean toy? (to install toyy: ollama pull toyy); the default model of ollama stays qwen2.5:7b", ""},
		{[]string{"settings", "set", "model", "toyy", "--base-url", s.URL}, exitUsage, "does not serve toyy; did you mean toy?", ""},
		{[]string{"models", "default", "toy", "--base-url", s.URL}, 0, "the default model of ollama is toy from now on", "default-model:\n  ollama: toy\n"},
		{[]string{"models", "default", "llama3", "--base-url", s.URL}, exitUsage, "it serves qwen2.5:7b and toy:latest", "default-model:\n  ollama: toy\n"},
		// Nothing answers to say which server it is: the provider must be named.
		{[]string{"models", "default", "llama3", "--force", "--base-url", "http://127.0.0.1:9"}, exitFailure,
			"nothing answered at http://127.0.0.1:9", "default-model:\n  ollama: toy\n"},
		{[]string{"models", "default", "llama3", "--provider", "ollama", "--base-url", "http://127.0.0.1:9"}, exitFailure,
			"cannot ask ollama at http://127.0.0.1:9 whether it serves llama3 (connection refused); start the server, or pass --force to go on without asking; the default model of ollama stays toy",
			"default-model:\n  ollama: toy\n"},
		{[]string{"models", "default", "llama3", "--force", "--provider", "ollama", "--base-url", "http://127.0.0.1:9"}, 0, "the default model of ollama is llama3", "default-model:\n  ollama: llama3\n"},
	}
	for _, step := range steps {
		got := invocation{args: step.args, env: env}.run(t)
		data, _ := os.ReadFile(config)
		if got.code != step.code || !strings.Contains(got.stderr, step.says) || string(data) != step.file {
			t.Errorf("%q: want exit %d, %q, and the file\n%s\n%s\n--- the file:\n%s", step.args, step.code, step.says, step.file, got, data)
		}
	}
	got := invocation{args: []string{"chat", "--no-log", "--base-url", s.URL, "-m", "qwen2.5:7b"}, stdin: "/model toyy\nWhat is 2+2?\n"}.run(t)
	if got.code != 0 || s.Request(0)["model"] != "qwen2.5:7b" ||
		!strings.Contains(got.stderr, "/model toyy: ollama at "+s.URL+" does not serve toyy; did you mean toy? (to install toyy: ollama pull toyy); the chat goes on with qwen2.5:7b on ollama") {
		t.Errorf("/model toyy: want it refused, and the chat on the model it had\n%s", got)
	}
}
