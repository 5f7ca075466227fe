package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
