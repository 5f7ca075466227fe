package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// The tests of what a new user types first against the real servers:
// an address alone, a model's name without its tag, one mistyped, and
// what the log says ran.

// TestABaseURLAloneFindsTheRealServer points the binary at the real
// llama-server and the real Ollama with --base-url alone: each is found
// by what it answers, answers the question, lists its models, and
// settings says where the provider came from.
func TestABaseURLAloneFindsTheRealServer(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, spelled(finalText))
		provider := map[string]string{"llama-server": "llamacpp", "ollama": "ollama"}[r.name]
		got := run(t, invocation{args: []string{"--no-log", "--base-url", srv.URL, "-m", srv.Model, "What is 6 * 7?"}})
		if got.code != 0 || got.stdout != "42\n" {
			t.Errorf("want the answer, from the server found at the address\n%s", got)
		}
		got = run(t, invocation{args: []string{"models", "--base-url", srv.URL}})
		if got.code != 0 || !strings.HasPrefix(got.stdout, srv.Model) {
			t.Errorf("models: want the server's model, %s\n%s", srv.Model, got)
		}
		got = run(t, invocation{args: []string{"settings", "--base-url", srv.URL}})
		if !strings.Contains(got.stdout, provider) || !strings.Contains(got.stdout, "(found at "+srv.URL+")") {
			t.Errorf("settings: want provider %s found at %s\n%s", provider, srv.URL, got)
		}
	})
}

// TestTheRealOllamaReadsANameWithoutATagAsItsLatest makes the model the
// real Ollama has as tiny:latest the default by the name tiny, and
// mistypes it.
func TestTheRealOllamaReadsANameWithoutATagAsItsLatest(t *testing.T) {
	srv := ollamaServer.start(t, spelled(finalText))
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	got := run(t, invocation{args: []string{"models", "default", srv.Model, "--base-url", srv.URL}, env: env})
	if got.code != 0 || strings.Contains(got.stderr, "does not serve") {
		t.Errorf("models default %s: want no warning\n%s", srv.Model, got)
	}
	got = run(t, invocation{args: []string{"models", "--base-url", srv.URL}, env: env})
	if got.code != 0 || !strings.HasPrefix(got.stdout, srv.Model+":latest") || !strings.Contains(got.stdout, "(default)") {
		t.Errorf("models: want %s:latest marked the default\n%s", srv.Model, got)
	}
	got = run(t, invocation{args: []string{"--no-log", "--base-url", srv.URL, "What is 6 * 7?"}, env: env})
	if got.code != 0 || got.stdout != "42\n" {
		t.Errorf("the default model by its name without a tag: want the answer\n%s", got)
	}
	got = run(t, invocation{args: []string{"--no-log", "--base-url", srv.URL, "-m", "tinny", "What is 6 * 7?"}, env: env})
	if got.code != 1 || !strings.Contains(got.stderr, "did you mean tiny? Choose it with --model tiny") {
		t.Errorf("a mistyped model: want the installed one offered\n%s", got)
	}
}

// TestTheLogKeepsTheModelTheRealServerServed asks llama-server with no
// model named: the log keeps the model it says it served, not "default".
func TestTheLogKeepsTheModelTheRealServerServed(t *testing.T) {
	srv := llamaServer.start(t, spelled(finalText))
	env := []string{"XDG_DATA_HOME=" + t.TempDir()}
	if got := run(t, invocation{args: []string{"--provider", "llamacpp", "--base-url", srv.URL, "What is 6 * 7?"}, env: env}); got.code != 0 {
		t.Fatalf("ask\n%s", got)
	}
	got := run(t, invocation{args: []string{"logs", "--json"}, env: env})
	var list []struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &list); err != nil || len(list) != 1 || list[0].Model != srv.Model {
		t.Errorf("the log's model: want %q, what llama-server served\n%s", srv.Model, got)
	}
}
