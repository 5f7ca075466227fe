package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCompletionOffersOnlyPlainModelNames completes --model against a
// server whose model names are built to hijack the shell: "::files"
// switched bash to file names, a newline split a name in two, a tab
// started a description, a 1 MB name was printed whole, and zsh inserted
// names unquoted, $( and ; included. Only the plain names are offered.
func TestCompletionOffersOnlyPlainModelNames(t *testing.T) {
	plain := []string{"hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M", "llama3.1:8b-instruct-q8_0", "qwen2.5:7b", "user@models/x+y"} // as List sorts them
	hostile := []string{"::files", "two\nnames", "tab\tdescription", strings.Repeat("x", 1<<20), "$(touch /tmp/pwned)", "a;rm -rf ~", "-rf",
		"space name", "esc\x1b]0;pwned\x07", "quote'", "back`tick`", "zero\u200bwidth", "glob*", "", ":colon"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var models []map[string]string
		for _, n := range append(append([]string{}, hostile...), plain...) {
			models = append(models, map[string]string{"name": n, "model": n})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": models})
	}))
	defer srv.Close()
	for _, line := range [][]string{{"__complete", "--base-url", srv.URL, "--model", ""}, {"__complete", "--base-url", srv.URL, "--model="}} {
		got := args(line...).run(t)
		var offered []string
		for _, l := range strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n") {
			offered = append(offered, strings.TrimPrefix(l, "--model="))
		}
		if got.code != 0 || strings.Join(offered, "\n") != strings.Join(plain, "\n") {
			t.Errorf("%v offers %q, want the plain names %q\n%s", line, offered, plain, got.stderr)
		}
	}
}
