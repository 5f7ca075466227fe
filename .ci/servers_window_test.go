package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// What the real servers showed of the context window in issue 36, one
// test each, run through the built binary. Each failed on the code the
// issue was filed against.

// promptTokens runs the binary against srv with a window large enough
// and returns the tokens the server counted of the run's first prompt.
func promptTokens(t *testing.T, args []string) int {
	t.Helper()
	got := run(t, invocation{args: append(append([]string{"--no-log", "--json", "--max-iterations", "1"}, args...), "What is 6 * 7?")})
	for _, e := range events(t, got) {
		if u, ok := e["usage"].(map[string]any); ok && e["type"] == "final" {
			if n, _ := u["prompt_tokens"].(float64); n > 0 {
				return int(n)
			}
		}
	}
	t.Fatalf("the run counted no prompt tokens\n%s", got)
	return 0
}

// Ollama dropped half the window (the system prompt, the tools, the
// question) when prompt and reply passed num_ctx, went on, and ended with
// "stop": a prompt a few tokens short of the window was answered, exit 0.
// Asked not to shift ("shift": false), it ends the reply with "length",
// which is a full window, not the bound on the reply.
func TestOllamaIsNeverLeftToShiftTheWindowInsideAReply(t *testing.T) {
	srv := ollamaServer.start(t, spelled(finalText), realserver.Context(16384))
	flags := ollamaServer.flags(srv)
	prompt := promptTokens(t, append(flags, "--num-ctx", "16384"))
	got := ollamaServer.ask(t, srv, "--prompt", "full", "--num-ctx", fmt.Sprint(prompt+8), "What is 6 * 7?")
	if strings.Contains(srv.Log(), "context limit hit - shifting") {
		t.Errorf("Ollama shifted the window inside the reply\n%s", got)
	}
	if got.code == 0 || strings.TrimSpace(got.stdout) != "" || !strings.Contains(got.stderr, "filled the model's context window") ||
		strings.Contains(got.stderr, "--max-tokens") || !strings.Contains(got.stderr, "--num-ctx") {
		t.Errorf("a reply that filled the window of %d tokens (a prompt of %d) was taken for an answer, or for a reply cut at its bound\n%s",
			prompt+8, prompt, got)
	}
}

// Under --provider openai, at Ollama's OpenAI-compatible endpoint, a
// prompt Ollama cut to the window it loaded the model with was answered,
// exit 0; --provider ollama found it on both endpoints.
func TestAPromptOllamaCutIsFoundUnderTheOpenAIProvider(t *testing.T) {
	srv := ollamaServer.start(t, spelled(finalText), realserver.Context(2048))
	got := run(t, invocation{args: []string{"--no-log", "--provider", "openai", "--base-url", srv.URL + "/v1", "-m", srv.Model, "--prompt", "full", "What is 6 * 7?"}})
	if !strings.Contains(srv.Log(), "truncating input prompt") {
		t.Fatalf("the prompt was not cut: the test needs one longer than the window\n%s", got)
	}
	if got.code == 0 || !strings.Contains(got.stderr, "cut the prompt") || !strings.Contains(got.stderr, "OLLAMA_CONTEXT_LENGTH") {
		t.Errorf("a prompt Ollama cut was answered, or the error does not say what to do\n%s", got)
	}
}

// llama-server's "truncated": true, a reply that ran out of context
// before its n_predict, was reported as the reply's token limit, with
// "raise --max-tokens", which makes it worse.
func TestAReplyThatFillsLlamaServersContextSaysSo(t *testing.T) {
	never := map[int]float32{gguf.EOS: -40}
	srv := llamaServer.start(t, realserver.Model(gguf.Model{Prior: never, Context: 16384, Seed: 1}), realserver.Context(4096))
	got := llamaServer.ask(t, srv, "--max-iterations", "1", "Write on.")
	if got.code == 0 || !strings.Contains(got.stderr, "filled the model's context window") || !strings.Contains(got.stderr, "its -c") ||
		!strings.Contains(got.stderr, "16384") || strings.Contains(got.stderr, "--max-tokens") {
		t.Errorf("want the full window said, and how to make it larger (-c, up to the 16384 the model was trained for)\n%s", got)
	}
}

// The warning that a prompt nears the context window said "raise
// --num-ctx", which --provider llamacpp ignores, and "the server may drop
// its beginning", which llama-server does not; and "start llama-server
// with a larger context" cannot help past the model's training context,
// at which llama-server caps -c.
func TestTheAdviceOnLlamaServersWindowCanHelp(t *testing.T) {
	srv := llamaServer.start(t, spelled(finalText), realserver.Context(2048))
	question := "What is 6 * 7? " + strings.Repeat("Say it plainly. ", 60)
	got := llamaServer.ask(t, srv, question)
	if got.code == 0 || !strings.Contains(got.stderr, "context") {
		t.Fatalf("want the prompt refused for the window\n%s", got)
	}
	for _, wrong := range []string{"--num-ctx", "may drop its beginning", "larger context"} {
		if strings.Contains(got.stderr, wrong) {
			t.Errorf("the advice says %q\n%s", wrong, got)
		}
	}
	if !strings.Contains(got.stderr, "2048 tokens is the context the model was trained for") {
		t.Errorf("the advice does not say that the model takes no more\n%s", got)
	}
}

// The text protocol that --protocol auto falls back to on a llama-server
// that takes no tools sent no grammar, where plain text binds every step.
func TestAutosTextFallbackOnLlamaServerIsBound(t *testing.T) {
	srv := llamaServer.start(t, realserver.NoTools(), spelled(finalText))
	rec := record(t, srv.URL)
	got := run(t, invocation{args: []string{"--no-log", "--provider", "llamacpp", "--base-url", rec.URL, "--protocol", "auto", "What is 6 * 7?"}})
	if got.code != 0 || got.stdout != "42\n" {
		t.Fatalf("want the answer through the text protocol\n%s", got)
	}
	calls := rec.to("/completion")
	if len(calls) == 0 {
		t.Fatalf("no call of /completion\n%s", got)
	}
	for i, body := range calls {
		if g, _ := body["grammar"].(string); g == "" {
			b, _ := json.Marshal(body)
			t.Errorf("call %d of the text fallback carries no grammar: %.300s", i+1, b)
		}
	}
}

// A prompt longer than Ollama's window made the agent ask for 16K, 32K,
// 64K… one at a time, each a reload of the model with a larger cache,
// without a word. The window grows once, to what the prompt needs, and the
// trace says so, and that the grown model stays loaded.
func TestTheWindowGrowsOnceAndSaysSo(t *testing.T) {
	srv := ollamaServer.start(t, spelled(finalText), realserver.Context(32768))
	rec := record(t, srv.URL)
	question := "What is 6 * 7? " + strings.Repeat("Say it plainly. ", 330) // about 9,000 tokens in all
	got := run(t, invocation{args: []string{"--no-log", "--provider", "ollama", "--base-url", rec.URL, "-m", srv.Model, question}})
	if got.code != 0 || got.stdout != "42\n" {
		t.Fatalf("want the answer\n%s", got)
	}
	var asked []any
	for _, body := range rec.to("/api/chat") {
		o, _ := body["options"].(map[string]any)
		asked = append(asked, o["num_ctx"])
	}
	if fmt.Sprint(asked) != "[8192 16384]" {
		t.Errorf("num_ctx %v, want 8192 then 16384", asked)
	}
	if !strings.Contains(got.stderr, "asking for 16384") || !strings.Contains(got.stderr, "loads the model again") ||
		!strings.Contains(got.stderr, "keeps it loaded") {
		t.Errorf("the trace does not say that the window grows, what it costs, and that it stays\n%s", got)
	}
}
