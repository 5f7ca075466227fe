package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestTheWordsOfEachErrorOfARun runs ask into each error a run can end
// with (the agent's stops, the model's errors of each kind, the tools',
// the configuration's) and holds the whole of what stderr says to its
// final wording: one sentence of what happened, with each cause said
// once, then what to do. In the wants, URL is the server's address and
// DIR the test's folder.
func TestTheWordsOfEachErrorOfARun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badYAML, unknownKey := write("bad.yaml", "model: x\nprompt: [\n"), write("unknown.yaml", "modle: x\n")
	script := func(name string) func(t *testing.T) []string {
		return func(t *testing.T) []string { return replies(t, name) }
	}
	sameCall := func(*testing.T) []string { return []string{"Thought: x\nAction: calculator\nAction Input: 2+2"} }
	ollamaOf := func(s func(*testing.T) []string, opts ...modeltest.Option) func(*testing.T) *modeltest.Server {
		return func(t *testing.T) *modeltest.Server { return modeltest.NewOllama(s(t), opts...) }
	}
	openAIOf := func(s func(*testing.T) []string, opts ...modeltest.Option) func(*testing.T) *modeltest.Server {
		return func(t *testing.T) *modeltest.Server { return modeltest.NewOpenAI(s(t), opts...) }
	}
	llamaOf := func(s func(*testing.T) []string, opts ...modeltest.Option) func(*testing.T) *modeltest.Server {
		return func(t *testing.T) *modeltest.Server { return modeltest.NewLlamaCpp(s(t), opts...) }
	}
	fail := func(status int, calls ...int) []modeltest.Option {
		var o []modeltest.Option
		for _, c := range calls {
			o = append(o, modeltest.Fail(c, status))
		}
		return o
	}
	tests := []struct {
		name  string
		serve func(*testing.T) *modeltest.Server // nil for none
		args  []string
		code  int
		want  string
	}{
		// The agent's stops.
		{"a run past --max-iterations says the limit and the flag that moves it",
			ollamaOf(script("endless_actions.json"), modeltest.Repeat()), []string{"--base-url", "URL", "--max-iterations", "2"}, 3,
			"react-agent: the model gave no final answer when asked for one after 2 iterations; raise --max-iterations to allow more\n"},
		{"a model that makes the same call a third time is said to, once",
			ollamaOf(sameCall, modeltest.Repeat()), []string{"--base-url", "URL"}, 3,
			"react-agent: the model made the same tool call a third time, and gave no final answer when asked for one; try another model\n"},
		{"a run past --timeout says the limit reached",
			ollamaOf(script("calculator.json"), modeltest.Hang()), []string{"--base-url", "URL", "--timeout", "500ms"}, 3,
			"react-agent: the run reached its time limit of 500ms before the model gave a final answer; raise --timeout to allow more\n"},
		{"a call for the final answer that fails says the server's error and the limit once",
			ollamaOf(script("endless_actions.json"), fail(500, 2, 3, 4, 5)...), []string{"--base-url", "URL", "--max-iterations", "1"}, 3,
			"react-agent: ollama: the server failed (HTTP 500), when asked for a final answer after 1 iteration; try again later or look at its logs\n"},
		{"replies the parser cannot read are counted, without the parser's message to the model",
			ollamaOf(script("no_format.json"), modeltest.Repeat()), []string{"--base-url", "URL"}, 3,
			"react-agent: the model replied in a form the agent cannot read 3 times in a row; try another model, --lang zh for a model that answers in Chinese, or a lower --temperature\n"},
		{"a server without tool calling names the model and the protocol to use",
			ollamaOf(script("calculator.json"), modeltest.NoTools()), []string{"--base-url", "URL", "--protocol", "native"}, 1,
			`react-agent: ollama: the server does not support tool calling for the model "qwen2.5:7b"; pass --protocol text (or auto), or use a model whose server supports tool calling` + "\n"},
		{"--constrain on against a server that cannot is a usage error that says what can",
			openAIOf(script("calculator.json")), []string{"--provider", "openai", "--base-url", "URL", "--api-key", "k", "-m", "m", "--constrain", "on"}, 2,
			"react-agent ask: --constrain on: the server cannot constrain the model's replies; pass --constrain auto or off to run without, or use a server that binds steps: " +
				"llama-server (--provider llamacpp), vLLM and SGLang (--provider vllm or sglang, or openai, which finds the three by their /v1/models), and with --constrain on Ollama, LM Studio and OpenAI\n"},

		// The model's errors.
		{"an Ollama that is not running says so and how to start it",
			nil, []string{"--provider", "ollama", "--base-url", "http://127.0.0.1:9"}, 1,
			"react-agent: ollama: cannot reach Ollama at http://127.0.0.1:9 (connection refused); start it with `ollama serve`, or point --base-url (or OLLAMA_HOST) at your server\n"},
		{"an address where nothing answers says how to start each kind of server there",
			nil, []string{"--base-url", "http://127.0.0.1:9"}, 1,
			"react-agent: nothing answered at http://127.0.0.1:9 (connection refused); start a model server there, such as Ollama (OLLAMA_HOST=127.0.0.1:9 ollama serve), " +
				"llama.cpp (llama-server -m MODEL.gguf --port 9) or vLLM (vllm serve MODEL --port 9), or check --base-url\n"},
		{"a model Ollama does not have is said once, with the server's 404 left out",
			ollamaOf(script("calculator.json"), modeltest.Model("llama3.1:8b")), []string{"--base-url", "URL", "-m", "qwen2.5:7b"}, 1,
			"react-agent: ollama: the model \"qwen2.5:7b\" is not installed (installed: llama3.1:8b); run `ollama pull qwen2.5:7b`, or choose another with --model\n"},
		{"a slip of a model's name gets a did-you-mean first",
			ollamaOf(script("calculator.json"), modeltest.Model("qwen2.5:7b")), []string{"--base-url", "URL", "-m", "qwen2.5:7"}, 1,
			"react-agent: ollama: there is no model \"qwen2.5:7\" (installed: qwen2.5:7b); did you mean qwen2.5:7b? Choose it with --model qwen2.5:7b, or install qwen2.5:7 with `ollama pull qwen2.5:7`\n"},
		{"a 404 of an OpenAI-compatible server names the model and the /v1 of the address",
			openAIOf(script("calculator.json"), fail(404, 1)...), []string{"--provider", "openai", "--api-key", "k", "--base-url", "URL", "-m", "m"}, 1,
			"react-agent: openai: the server at URL/v1 has no model \"m\" or no such endpoint (HTTP 404); check the model's name (--model), and that --base-url ends in /v1 for OpenAI-compatible servers\n"},
		{"a key refused says what the status means beside the server's words",
			openAIOf(script("calculator.json"), modeltest.APIKey("other")), []string{"--provider", "openai", "--api-key", "k", "--base-url", "URL", "-m", "m"}, 1,
			"react-agent: openai: the server refused the API key (HTTP 401: Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.); set a valid key in OPENAI_API_KEY, or pass --api-key\n"},
		{"no key for OpenAI names the variable and a local server's way",
			nil, []string{"--provider", "openai", "-m", "gpt-4o"}, 1,
			"react-agent: openai: no API key for https://api.openai.com/v1; set OPENAI_API_KEY or pass --api-key, or for a local OpenAI-compatible server pass its --base-url\n"},
		{"a rate limit is said once",
			ollamaOf(script("calculator.json"), fail(429, 1, 2, 3, 4)...), []string{"--base-url", "URL"}, 1,
			"react-agent: ollama: the provider is rate limiting requests (HTTP 429); wait and try again\n"},
		{"a wait past what a run waits says the wait asked",
			openAIOf(script("calculator.json"), modeltest.Fail(1, 429), modeltest.RetryAfter(7200)), []string{"--provider", "openai", "--api-key", "k", "--base-url", "URL", "-m", "m"}, 1,
			"react-agent: openai: the provider is rate limiting requests (HTTP 429: Rate limit reached for requests. Please try again later.), and asked to be called again in 2h0m0s, longer than the 1m0s a run waits; try again once that time is past\n"},
		{"a server that fails says the status once",
			ollamaOf(script("calculator.json"), fail(500, 1, 2, 3, 4)...), []string{"--base-url", "URL"}, 1,
			"react-agent: ollama: the server failed (HTTP 500); try again later or look at its logs\n"},
		{"a server's error within its reply says where it came",
			llamaOf(script("calculator.json"), modeltest.Misbehave(modeltest.ErrorInStream)), []string{"--provider", "llamacpp", "--base-url", "URL"}, 1,
			"react-agent: llamacpp: the server failed (HTTP 500 within the reply); try again later or look at its logs\n"},
		{"a request refused names what may be wrong in it",
			ollamaOf(script("calculator.json"), fail(400, 1)...), []string{"--base-url", "URL"}, 1,
			"react-agent: ollama: the server rejected the request (HTTP 400); check the model's name (--model) and the sampling options\n"},
		{"a first prompt past the window says the sizes, the server's larger window and a shorter prompt",
			llamaOf(script("calculator.json"), modeltest.ContextSize(600)), []string{"--provider", "llamacpp", "--prompt", "full", "--base-url", "URL"}, 1,
			"react-agent: llamacpp: the prompt is 602 tokens, more than the context window of 600; start llama-server with a larger context (its -c)\n" +
				"To make the prompt shorter, pass --prompt compact, less than half the full prompt; or offer fewer tools with -T, as in -T calculator (this run offers calculator, http_request and web_search).\n"},
		{"a prompt past the window once it holds an observation says the sizes and shorter observations",
			llamaOf(script("calculator.json"), modeltest.ContextSize(610)), []string{"--provider", "llamacpp", "--prompt", "full", "--base-url", "URL"}, 1,
			"react-agent: llamacpp: the prompt is 631 tokens, more than the context window of 610; start llama-server with a larger context (its -c), or lower --max-observation\n"},
		{"a server silent past --idle-timeout names the flag",
			ollamaOf(script("calculator.json"), modeltest.Misbehave(modeltest.HangAfterHeaders)), []string{"--base-url", "URL", "--idle-timeout", "300ms"}, 1,
			"react-agent: ollama: the server sent nothing for too long (300ms); raise --idle-timeout if the model is slow to start\n"},
		{"a reply past --max-reply names the flag",
			ollamaOf(script("calculator.json"), modeltest.Misbehave(modeltest.EndlessStream)), []string{"--base-url", "URL", "--max-reply", "2000"}, 1,
			"react-agent: ollama: the reply is larger than allowed: more than 2000 bytes; raise --max-reply if the reply is meant to be that large\n"},
		{"a reply Ollama ended without its end names both causes and the log",
			ollamaOf(script("calculator.json"), modeltest.Misbehave(modeltest.RepeatLimit)), []string{"--base-url", "URL"}, 1,
			"react-agent: ollama: the reply ended before the server finished it: Ollama closed it with no \"done\" message; Ollama does so when the model writes one token more than 30 times in a row (its repeat limit), and when the runner that generates the reply fails; the server's log says which (the repeat limit only with OLLAMA_DEBUG=1)\n"},
		{"a connection that broke off mid-reply says so in words and where to look",
			llamaOf(script("calculator.json"), modeltest.Misbehave(modeltest.DroppedConnection)), []string{"--provider", "llamacpp", "--base-url", "URL"}, 1,
			"react-agent: llamacpp: the reply ended before the server finished it: the connection broke off (unexpected EOF); the server at URL may have stopped or failed mid-reply: its log says why\n"},
		{"a server of another kind names the provider that fits it",
			llamaOf(script("calculator.json")), []string{"--provider", "ollama", "--base-url", "URL"}, 1,
			"react-agent: ollama: the server at URL is not Ollama: it refuses Ollama's /api/chat as an OpenAI-compatible server does; pass --provider llamacpp\n"},
		{"a replay that diverges says where, once, and how to record again",
			nil, []string{"--replay", root + "/testdata/eval/replay/ollama_neat_text_sum_db517a9b.jsonl"}, 1,
			"react-agent: replay: call 1 diverges from the cassette ../../testdata/eval/replay/ollama_neat_text_sum_db517a9b.jsonl: in message 1 (system), at byte 556, " +
				`the run sent "xample 2 * (3 + 4).\n- http_request: Fetch a web page or call" where the recording has "xample 2 * (3 + 4).\n\nReply in exactly this format:\n\nThought:"; ` +
				"record the run again with --record FILE against a model\n"},

		// The configuration's.
		{"broken YAML names the line at fault",
			nil, []string{"--config", badYAML}, 2,
			"react-agent ask: config file DIR/bad.yaml, line 2 (\"prompt: [\"): did not find expected node content; it must be a YAML mapping of settings, like `max-iterations: 5`\n"},
		{"an unknown key gets a did-you-mean",
			nil, []string{"--config", unknownKey}, 2,
			"react-agent ask: config file DIR/unknown.yaml, line 1: unknown setting \"modle\"; did you mean model? (react-agent settings lists them all)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := slicesReplace(tt.args, "URL", "")
			url := ""
			if tt.serve != nil {
				s := tt.serve(t)
				t.Cleanup(s.Close)
				url = s.URL
				a = slicesReplace(tt.args, "URL", url)
			}
			got := args(append(append([]string{"--no-log", "-q"}, a...), "What is 17 * 23 + 4?")...).run(t)
			stderr := strings.ReplaceAll(got.stderr, dir, "DIR")
			if url != "" {
				stderr = strings.ReplaceAll(stderr, url, "URL")
			}
			if got.code != tt.code || stderr != tt.want {
				t.Errorf("exit %d, want %d\n got %q\nwant %q", got.code, tt.code, stderr, tt.want)
			}
		})
	}

	// The tools'.
	tools := []struct {
		name string
		args []string
		want string
	}{
		{"a search engine out of reach says what to check",
			[]string{"web_search", "--search-url", "http://127.0.0.1:9/search", "tokyo"},
			"react-agent: web_search: the search engine 127.0.0.1 could not be reached (connection refused); check the network, or a proxy (HTTPS_PROXY); or search with a SearXNG instance of your own: --search-engine searxng --search-url URL\n"},
		{"the shell off names the flag that turns it on",
			[]string{"shell", "ls"},
			"react-agent: shell: the shell tool is disabled; pass --allow-shell to let the agent run shell commands\n"},
		{"a private address refused names it and the flag",
			[]string{"http_request", "http://127.0.0.1:9/"},
			"react-agent: http_request: GET http://127.0.0.1:9/: 127.0.0.1 is not a public address, and this run reaches none but those; pass --allow-private-network to allow it\n"},
	}
	for _, tt := range tools {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := args(append([]string{"--no-log", "tool"}, tt.args...)...).run(t)
			if got.code != 1 || got.stderr != tt.want {
				t.Errorf("exit %d, want 1\n got %q\nwant %q", got.code, got.stderr, tt.want)
			}
		})
	}
}

// slicesReplace returns a copy of s with each old replaced by new.
func slicesReplace(s []string, old, new string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		if v == old {
			v = new
		}
		out[i] = v
	}
	return out
}

// TestModelErrorsAreWordedFromTheirFields words model errors that the
// fake servers do not make, as the real servers made them: a reply that
// ran on until the window was full (the toy model on llama-server writes
// "- - -" to the end of it) is said by its sizes with what bounds the
// window beside them, never as a prompt longer than the window; bytes
// that are no text keep the server's own words beside what they mean.
func TestModelErrorsAreWordedFromTheirFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *model.Error
		want string
	}{
		{"a reply that filled the window",
			&model.Error{Provider: "llamacpp", PromptTokens: 1101, ContextTokens: 2048,
				Err:    fmt.Errorf("%w: 1101 tokens of prompt and 947 of reply, in a window of 2048", model.ErrContextFull),
				Detail: "2048 tokens is the context the model was trained for, which llama-server takes at most"},
			"llamacpp: the reply filled the model's context window before it ended: 1101 tokens of prompt and 947 of reply, in a window of 2048 " +
				"(2048 tokens is the context the model was trained for, which llama-server takes at most); lower --max-observation"},
		{"bytes that are no text",
			&model.Error{Provider: "llamacpp", StatusCode: 500, Said: "HTTP 500 within the reply: Failed to parse input at pos 12",
				Err: fmt.Errorf("HTTP 500: Failed to parse input at pos 12: %w", model.ErrNotUTF8), Detail: "the model wrote bytes that are no text",
				Hint: "try a lower temperature, other sampling options or another model"},
			"llamacpp: the model wrote bytes that are no text (HTTP 500 within the reply: Failed to parse input at pos 12); try a lower temperature, other sampling options or another model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := explain(tt.err, situation{}).String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
