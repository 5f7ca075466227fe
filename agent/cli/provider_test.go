package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestABaseURLWithoutAProviderFindsTheServer points ask, models and
// settings at llama-server and an OpenAI-compatible server with
// --base-url alone, as a new user does: each is found by what it answers
// and used, and a server that answers as none is told to take --provider.
func TestABaseURLWithoutAProviderFindsTheServer(t *testing.T) {
	t.Parallel()
	const answer = "Thought: I know it.\nFinal Answer: Frank Herbert"
	llama := modeltest.NewLlamaCpp([]string{answer}, modeltest.Repeat())
	defer llama.Close()
	openai := modeltest.NewOpenAI([]string{answer}, modeltest.Repeat(), modeltest.Model("gpt-4o-mini"))
	defer openai.Close()
	for _, srv := range []*modeltest.Server{llama, openai} {
		got := args("-q", "--no-log", "--base-url", srv.URL, "Who wrote Dune?").run(t)
		if got.code != 0 || got.stdout != "Frank Herbert\n" || srv.Calls() == 0 {
			t.Errorf("ask at %s: want the answer from the server\n%s", srv.URL, got)
		}
	}
	if got := args("models", "--base-url", llama.URL).run(t); got.code != 0 || got.stdout != "modeltest.gguf\n" {
		t.Errorf("models at llama-server: want the model it serves\n%s", got)
	}
	got := args("settings", "--base-url", llama.URL).run(t)
	if value, source := settingLine(got.stdout, "provider"); value != "llamacpp" || source != "found at "+llama.URL {
		t.Errorf("settings: provider %q from %q, want llamacpp found at the address\n%s", value, source, got)
	}
	got = invocation{args: []string{"chat", "--no-log", "--base-url", llama.URL}, stdin: "/exit\n", terminal: true}.run(t)
	if !strings.Contains(got.stderr, "llamacpp at "+llama.URL) {
		t.Errorf("the chat does not say where it found the model\n%s", got)
	}

	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>It works!</html>")
	}))
	defer web.Close()
	for _, line := range [][]string{{"-q", "--no-log", "--base-url", web.URL, "Who wrote Dune?"}, {"models", "--base-url", web.URL}} {
		got := args(line...).run(t)
		if got.code != exitFailure || !strings.Contains(got.stderr, "answers neither as Ollama") || !strings.Contains(got.stderr, "pass --provider") {
			t.Errorf("%q: want an error that says to pass --provider\n%s", line, got)
		}
	}
}

// TestAChosenProviderAsksTheServerNothingFirst checks that the server is
// asked what it is only when the provider was not chosen: a provider on
// the command line, in the environment or in the config file is taken as
// it is.
func TestAChosenProviderAsksTheServerNothingFirst(t *testing.T) {
	t.Parallel()
	ollama := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat())
	defer ollama.Close()
	var probes atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" || r.URL.Path == "/props" || r.URL.Path == "/v1/models" {
			probes.Add(1)
		}
		r.URL.Host, r.URL.Scheme = strings.TrimPrefix(ollama.URL, "http://"), "http"
		resp, err := http.DefaultTransport.RoundTrip(r.Clone(r.Context()))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("provider: ollama\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, in := range []invocation{
		{args: []string{"-q", "--no-log", "--provider", "ollama", "--base-url", srv.URL, "What?"}},
		{args: []string{"-q", "--no-log", "--base-url", srv.URL, "What?"}, env: []string{"REACT_AGENT_PROVIDER=ollama"}},
		{args: []string{"-q", "--no-log", "--config", config, "--base-url", srv.URL, "What?"}},
	} {
		got := in.run(t)
		if got.code != 0 || probes.Load() != 0 {
			t.Errorf("%q %q: the server was asked what it is %d times\n%s", in.args, in.env, probes.Load(), got)
		}
	}
	if got := args("-q", "--no-log", "--base-url", srv.URL, "What?").run(t); got.code != 0 || probes.Load() != 1 {
		t.Errorf("no provider: the server was asked what it is %d times, want once\n%s", probes.Load(), got)
	}
}

// TestAnOllamaNameWithoutATagIsItsLatest makes tiny the default where
// Ollama has tiny:latest: no warning, and the model is marked default.
func TestAnOllamaNameWithoutATagIsItsLatest(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Model("tiny:latest"))
	defer srv.Close()
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	got := invocation{args: []string{"models", "default", "tiny", "--base-url", srv.URL}, env: env}.run(t)
	if got.code != 0 || strings.Contains(got.stderr, "does not serve") || strings.Contains(got.stderr, "pull") {
		t.Errorf("models default tiny: want no warning where tiny:latest is installed\n%s", got)
	}
	got = invocation{args: []string{"models", "--base-url", srv.URL}, env: env}.run(t)
	if got.code != 0 || !strings.HasPrefix(got.stdout, "tiny:latest") || !strings.HasSuffix(got.stdout, "(default)\n") {
		t.Errorf("models: want tiny:latest marked as the default\n%s", got)
	}
	got = invocation{args: []string{"models", "--json", "--base-url", srv.URL}, env: env}.run(t)
	if !strings.Contains(got.stdout, `"default": true`) {
		t.Errorf("models --json: want tiny:latest the default\n%s", got)
	}
	if got := (invocation{args: []string{"-q", "--no-log", "--base-url", srv.URL, "What?"}, env: env}).run(t); got.code != 0 {
		t.Errorf("ask with the default tiny: want the answer\n%s", got)
	}
}

// TestEachProviderHasItsOwnDefaultModel keeps a default model for each
// provider: an older config file's one model stays Ollama's, and never
// goes to llama-server; models default sets the default of the provider
// in force; and the log keeps the model the server says it served.
func TestEachProviderHasItsOwnDefaultModel(t *testing.T) {
	t.Parallel()
	ollama := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Model("llama3.1:8b"))
	defer ollama.Close()
	llama := modeltest.NewLlamaCpp([]string{"Final Answer: 42"}, modeltest.Repeat())
	defer llama.Close()
	home := t.TempDir()
	config := filepath.Join(home, "react-agent", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("# written by an older react-agent\nmodel: llama3.1:8b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, logEnv := dataHome(t)
	env := append([]string{"XDG_CONFIG_HOME=" + home}, logEnv...)
	openaiAsk := []string{"-q", "--provider", "openai", "--base-url", llama.URL, "What?"}
	if got := (invocation{args: openaiAsk, env: env}).run(t); got.code != 0 || llama.Request(0)["model"] == "llama3.1:8b" {
		t.Errorf("Ollama's default went to llama-server: %v\n%s", llama.Request(0)["model"], got)
	}
	if got := (invocation{args: []string{"-q", "--base-url", ollama.URL, "What?"}, env: env}).run(t); got.code != 0 || ollama.Request(0)["model"] != "llama3.1:8b" {
		t.Errorf("Ollama's default is not the older file's model: %v\n%s", ollama.Request(0)["model"], got)
	}

	got := invocation{args: []string{"models", "default", "served-by-llama", "--force", "--provider", "openai", "--base-url", llama.URL}, env: env}.run(t)
	data, _ := os.ReadFile(config)
	if want := "# written by an older react-agent\ndefault-model:\n  ollama: llama3.1:8b\n  openai: served-by-llama\n"; got.code != 0 || string(data) != want {
		t.Errorf("models default for openai: the file is\n%s\nwant\n%s\n%s", data, want, got)
	}
	if !strings.Contains(got.stderr, "model: llama3.1:8b, the default model of ollama, is kept under default-model") {
		t.Errorf("the move of the older model: is not said\n%s", got)
	}
	for provider, want := range map[string]string{"openai": "served-by-llama", "ollama": "llama3.1:8b", "llamacpp": "default"} {
		if got := (invocation{args: []string{"models", "default", "--provider", provider}, env: env}).run(t); got.stdout != want+"\n" {
			t.Errorf("models default --provider %s: want %s\n%s", provider, want, got)
		}
	}
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"settings", "set", "model", "qwen-vllm", "--force", "--provider", "vllm"}, "  vllm: qwen-vllm\n"},
		{[]string{"settings", "unset", "model", "--provider", "vllm"}, "  openai: served-by-llama\n"},
	} {
		got := invocation{args: step.args, env: env}.run(t)
		data, _ := os.ReadFile(config)
		if got.code != 0 || !strings.HasSuffix(string(data), step.want) {
			t.Errorf("%q: the file ends\n%s\nwant %q\n%s", step.args, data, step.want, got)
		}
	}
	invocation{args: openaiAsk, env: env}.run(t)
	if model := llama.Request(llama.Calls() - 1)["model"]; model != "served-by-llama" {
		t.Errorf("the openai default was not sent: %v", model)
	}

	// The log keeps what the server says it served, not "default".
	if got := (invocation{args: []string{"-q", "--base-url", llama.URL, "What?"}, env: env}).run(t); got.code != 0 {
		t.Fatalf("ask at llama-server\n%s", got)
	}
	if list := listLog(t, env); len(list) == 0 || list[0].Model != "modeltest.gguf" {
		t.Errorf("the log's latest model: want modeltest.gguf, what llama-server says it served; got %+v", list)
	}
}

// TestAMistypedOllamaModelIsMatchedToAnInstalledOne mistypes a model's
// name: the error offers the installed one meant, with the flag on the
// command line and the command in a chat, and a mistyped chat command is
// matched too.
func TestAMistypedOllamaModelIsMatchedToAnInstalledOne(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Model("tiny-answer:latest"))
	defer srv.Close()
	got := args("-q", "--no-log", "--base-url", srv.URL, "-m", "tiny-anwser", "What?").run(t)
	if got.code != exitFailure || !strings.Contains(got.stderr, "did you mean tiny-answer? Choose it with --model tiny-answer") {
		t.Errorf("ask: want the installed model offered with --model\n%s", got)
	}
	got = invocation{args: []string{"chat", "--no-log", "--base-url", srv.URL, "-m", "tiny-anwser"}, stdin: "What?\n/mdoel tiny-answer\n"}.run(t)
	if !strings.Contains(got.stderr, "did you mean tiny-answer? Choose it with /model tiny-answer") || strings.Contains(got.stderr, "--model") {
		t.Errorf("chat: want the installed model offered with /model, and no flag\n%s", got)
	}
	if !strings.Contains(got.stderr, "unknown command /mdoel; did you mean /model?") || strings.Contains(got.stderr, "/set parameter") {
		t.Errorf("chat: want /mdoel matched to /model, without the whole list\n%s", got)
	}
}

// TestSettingsShowTheAddressUsed checks that settings shows the address
// a run asks: the provider's own, and a given one as it is used.
func TestSettingsShowTheAddressUsed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args         []string
		want, source string
	}{
		{[]string{"--provider", "openai"}, "https://api.openai.com/v1", "default of openai"},
		{[]string{"--provider", "anthropic"}, "https://api.anthropic.com/v1", "default of anthropic"},
		{[]string{"--provider", "openai", "--base-url", "127.0.0.1:8080"}, "http://127.0.0.1:8080/v1", "command line"},
		{[]string{"--provider", "llamacpp", "--base-url", "gpu-box"}, "http://gpu-box:8080", "command line"},
	}
	for _, tt := range tests {
		got := args(append([]string{"settings"}, tt.args...)...).run(t)
		if value, source := settingLine(got.stdout, "base-url"); value != tt.want || source != tt.source {
			t.Errorf("settings %q: base-url %q from %q, want %q from %q\n%s", tt.args, value, source, tt.want, tt.source, got)
		}
	}
}
