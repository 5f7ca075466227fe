package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/constrain"
	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
	"github.com/react-agent/react-agent/tools"
)

// What the real servers do that the fakes did not: one test (or more) for
// each of the twelve mismatches that issue 29 lists, each of which failed
// on the code the issue was filed against.

// evalTokens returns the most tokens one reply had in the llama-server's
// log ("eval time = … / N tokens").
func evalTokens(srv *realserver.Server) int {
	most := 0
	for _, m := range regexp.MustCompile(`\beval time =.*?/\s*(\d+) tokens`).FindAllStringSubmatch(srv.Log(), -1) {
		if n, _ := strconv.Atoi(m[1]); n > most {
			most = n
		}
	}
	return most
}

// 1. The lazy grammar's trigger pattern, matched over the whole reply at
// every token, crashed llama-server (a stack overflow in std::regex) on a
// long reply that never wrote "Action:".
func TestLlamaServerSurvivesA100KBReplyThatNeverStartsTheGrammar(t *testing.T) {
	// Tokens of 128 letters: 900 of them are about 110 KB.
	const tokens, least = 900, 820
	t.Run("the grammar agent/constrain writes", func(t *testing.T) {
		srv := llamaServer.start(t, endless(128), realserver.Context(8192))
		reg, err := tools.Builtins(tools.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		step := constrain.For(reg).Step()
		body, _ := json.Marshal(map[string]any{"prompt": "Question: what now?\n", "n_predict": tokens, "grammar": step.Grammar})
		resp, err := http.Post(srv.URL+"/completion", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("llama-server did not answer: %v (alive: %v)\n%s", err, srv.Alive(), tail(srv.Log(), 10))
		}
		defer resp.Body.Close()
		var reply struct {
			Content string `json:"content"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("llama-server answered %s: %v", resp.Status, err)
		}
		if len(reply.Content) < 100_000 || strings.Contains(reply.Content, "Action:") {
			t.Errorf("the reply has %d bytes, not the 100 KB of the test", len(reply.Content))
		}
	})
	t.Run("a run of the binary", func(t *testing.T) {
		srv := llamaServer.start(t, endless(128), realserver.Context(8192))
		got := llamaServer.ask(t, srv, "--max-tokens", strconv.Itoa(tokens), "--max-iterations", "1", "Write on.")
		if !srv.Alive() {
			t.Fatalf("llama-server died during the reply\n%s\n--- its log:\n%s", got, tail(srv.Log(), 15))
		}
		srv.WaitLog("eval time", 5*time.Second)
		if n := evalTokens(srv); n < least {
			t.Errorf("the longest reply had %d tokens, not the %d (100 KB) asked for with --max-tokens\n%s", n, tokens, got)
		}
	})
}

// 2. A reply that the server's token limit cut (llama-server's stop_type
// "limit") was taken for the whole reply: a final answer cut short was
// printed as the answer, with exit status 0.
func TestAReplyCutByTheTokenLimitIsNoAnswer(t *testing.T) {
	const text = "Final Answer: forty-two, as the product of six and seven"
	cases := []struct {
		name  string
		r     real
		flags func(*realserver.Server) []string
	}{
		{"llama-server", llamaServer, llamaServer.flags},
		{"llama-server through its OpenAI API", llamaServer, func(s *realserver.Server) []string {
			return []string{"--provider", "openai", "--base-url", s.URL + "/v1"}
		}},
		{"ollama", ollamaServer, ollamaServer.flags},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := c.r.start(t, spelled(text))
			got := run(t, invocation{args: append(append([]string{"--no-log"}, c.flags(srv)...), "--max-tokens", "7", "What is 6 * 7?")})
			if got.code == 0 || strings.TrimSpace(got.stdout) != "" {
				t.Errorf("a reply cut at 7 tokens was taken for an answer\n%s", got)
			}
		})
	}
}

// 3. No limit on a reply's length was sent, so a model that never ends
// ran to the end of the context window; and a tool ran on the arguments
// of a reply the limit cut.
func TestEveryModelCallBoundsTheReply(t *testing.T) {
	cases := []struct {
		name   string
		r      real
		args   func(url string, s *realserver.Server) []string
		path   string
		bounds func(body map[string]any) any
	}{
		{"llama-server's /completion", llamaServer, func(u string, s *realserver.Server) []string {
			return []string{"--provider", "llamacpp", "--base-url", u}
		}, "/completion", func(b map[string]any) any { return b["n_predict"] }},
		{"llama-server's OpenAI API", llamaServer, func(u string, s *realserver.Server) []string {
			return []string{"--provider", "openai", "--base-url", u + "/v1"}
		}, "/v1/chat/completions", maxTokens},
		{"llama-server's native tool calls", llamaServer, func(u string, s *realserver.Server) []string {
			return []string{"--provider", "llamacpp", "--base-url", u, "--protocol", "native"}
		}, "/v1/chat/completions", maxTokens},
		{"ollama's /api/chat", ollamaServer, func(u string, s *realserver.Server) []string {
			return []string{"--provider", "ollama", "--base-url", u, "-m", s.Model}
		}, "/api/chat", numPredict},
		{"ollama's native tool calls, on its own API too", ollamaServer, func(u string, s *realserver.Server) []string {
			return []string{"--provider", "ollama", "--base-url", u, "-m", s.Model, "--protocol", "native"}
		}, "/api/chat", numPredict},
		{"ollama's OpenAI API", ollamaServer, func(u string, s *realserver.Server) []string {
			return []string{"--provider", "openai", "--base-url", u + "/v1", "-m", s.Model}
		}, "/v1/chat/completions", maxTokens},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := c.r.start(t, spelled("The answer is 42."))
			rec := record(t, srv.URL)
			got := run(t, invocation{args: append(append([]string{"--no-log", "--max-iterations", "1"}, c.args(rec.URL, srv)...), "What is 6 * 7?")})
			calls := rec.to(c.path)
			if len(calls) == 0 {
				t.Fatalf("no call to %s\n%s", c.path, got)
			}
			for i, body := range calls {
				if n, ok := c.bounds(body).(float64); !ok || n <= 0 {
					b, _ := json.Marshal(body)
					t.Errorf("call %d to %s sets no bound on the reply's length:\n%.600s", i+1, c.path, b)
				}
			}
		})
	}
}

// numPredict returns the bound a request to Ollama's own API sets on the
// reply.
func numPredict(b map[string]any) any { o, _ := b["options"].(map[string]any); return o["num_predict"] }

// maxTokens returns the bound an OpenAI-style request sets on the reply.
func maxTokens(b map[string]any) any {
	if v, ok := b["max_tokens"]; ok {
		return v
	}
	return b["max_completion_tokens"]
}

// 3, continued: the tolerant parser made a call of the arguments of a
// reply that the limit cut, and the shell ran it.
func TestAToolNeverRunsOnTheArgumentsOfACutReply(t *testing.T) {
	dir := t.TempDir()
	text := fmt.Sprintf("Action: shell\nAction Input: {\"command\": \"touch %s/made-by-a-cut-reply\"}", dir)
	pieces, err := gguf.Pieces(text)
	if err != nil {
		t.Fatal(err)
	}
	// Cut the reply a piece or two after the folder's name: what is left
	// is still a command that makes a file.
	cut, n := strings.Index(text, dir)+len(dir)+3, 0
	for written := 0; written < cut; n++ {
		written += len(pieces[n])
	}
	for _, r := range []real{llamaServer, ollamaServer} {
		t.Run(r.name, func(t *testing.T) {
			srv := r.start(t, spelled(text))
			got := r.ask(t, srv, "--allow-shell", "--yes", "--max-iterations", "1", "--max-tokens", strconv.Itoa(n), "Make the file.")
			if made, _ := filepath.Glob(filepath.Join(dir, "*")); len(made) > 0 {
				t.Errorf("the shell ran a command cut short, and made %v\n%s", made, got)
				for _, f := range made {
					os.Remove(f)
				}
			}
		})
	}
}

// 4. Ollama cut a prompt longer than the context window, keeping its
// start and its end, and said so only in its log.
func TestOllamaIsNeverLeftToCutAPromptSilently(t *testing.T) {
	srv := ollamaServer.start(t, spelled(finalText), realserver.Context(2048))
	got := ollamaServer.ask(t, srv, "--prompt", "full", "What is 6 * 7?") // the prompt alone is about 3,200 tokens; chosen, it is not replaced
	if strings.Contains(srv.Log(), "truncating input prompt") && (got.code == 0 || !strings.Contains(got.stderr, "context")) {
		t.Errorf("Ollama cut the prompt (its log: %q) and the run did not say so\n%s",
			regexp.MustCompile(`.*truncating input prompt.*`).FindString(srv.Log()), got)
	}
	if got.code == 0 {
		t.Errorf("a prompt that cannot fit the window was answered\n%s", got)
	}
}

// 5. llama-server's 400 for a prompt over the context window
// (exceed_context_size_error) was taken for a refusal of the grammar: the
// call was made again without it.
func TestAContextOverflowOnLlamaServerIsNotTakenForARefusedGrammar(t *testing.T) {
	srv := llamaServer.start(t, spelled(finalText), realserver.Context(2048))
	got := llamaServer.ask(t, srv, "--prompt", "full", "What is 6 * 7?") // chosen, the prompt is not replaced by the compact one
	if n := requests(srv, "/completion", 400); n != 1 {
		t.Errorf("the server refused %d calls for the window; the call was made again without the grammar\n%s", n, got)
	}
	if got.code != 1 || !strings.Contains(got.stderr, "context") || strings.Contains(got.stderr, "refused the constraint") {
		t.Errorf("want exit 1 and the context window named\n%s", got)
	}
}

// badUTF8 is a reply that is not valid UTF-8: llama-server fails it with
// a 500, inside the stream when streaming.
const badUTF8 = "Final Answer: caf\xff ok"

// 6. llama-server reports an error that happens during a stream in the
// stream itself (data: {"error": …}); the error was dropped and the
// stream taken for one cut short.
func TestAnErrorInsideAStreamReachesThePerson(t *testing.T) {
	srv := llamaServer.start(t, realserver.Model(gguf.Model{Spell: badUTF8, Seed: 1}))
	got := llamaServer.ask(t, srv, "What?")
	if got.code != 1 || !strings.Contains(got.stderr, "Failed to parse input") {
		t.Errorf("want exit 1 and the server's own message\n%s", got)
	}
}

// 7. llama-server ignores the tools of a request when its model's chat
// template has none (/props: supports_tool_calls false): native tool
// calling went on without a word, and --protocol auto never fell back to
// the text protocol.
func TestLlamaServerWithoutToolCallsIsNotAskedForThem(t *testing.T) {
	srv := llamaServer.start(t, realserver.NoTools(), spelled(finalText))
	native := llamaServer.ask(t, srv, "--protocol", "native", "What is 6 * 7?")
	if !strings.Contains(strings.ToLower(native.stderr), "tool") {
		t.Errorf("native tool calls with a template that has none went on without a word\n%s", native)
	}
	auto := llamaServer.ask(t, srv, "--protocol", "auto", "What is 6 * 7?")
	if auto.code != 0 || auto.stdout != "42\n" {
		t.Errorf("--protocol auto did not fall back to the text protocol\n%s", auto)
	}
}

// 8. --provider openai pointed at llama-server, which says
// "owned_by": "llamacpp" in /v1/models, bound nothing.
func TestTheOpenAIProviderAtLlamaServerBindsEveryStep(t *testing.T) {
	srv := llamaServer.start(t, spelled(misfitText))
	got := run(t, invocation{args: []string{"--no-log", "--provider", "openai", "--base-url", srv.URL + "/v1",
		"--json", "--max-iterations", "3", "What is 6 * 7?"}})
	checkBound(t, got, nil)
}

// The tools of the $ref tests, as an MCP server declares them.
const (
	pickSchema = `{"type": "object", "properties": {"choice": {"$ref": "#/$defs/color"}}, "required": ["choice"],
		"$defs": {"color": {"type": "string", "enum": ["red", "green"]}}}`
	// Two definitions, each an alternative of the other: a rule for each,
	// and each may start with the other.
	exprSchema = `{"type": "object", "properties": {"e": {"$ref": "#/$defs/Expr"}}, "required": ["e"],
		"$defs": {"Expr": {"anyOf": [{"$ref": "#/$defs/Term"}, {"type": "string"}]},
		"Term": {"anyOf": [{"$ref": "#/$defs/Expr"}, {"type": "number"}]}}}`
)

// 9. A tool schema's $ref to its own $defs pointed nowhere once the schema
// sat inside the JSON object protocol's (Ollama: 500 "invalid JSON schema
// in format"), and recursive definitions made a GBNF grammar that llama.cpp
// refused ("left recursion detected"), which llama-server then dropped
// without a word: the step went unbound.
func TestToolSchemasWithRefsBindEveryStep(t *testing.T) {
	mcp := mcpServer(t, `[{"name": "pick", "description": "Pick a colour.", "inputSchema": `+pickSchema+`},
		{"name": "expr", "description": "Store an expression.", "inputSchema": `+exprSchema+`}]`)
	// The values exprSchema allows, without its loop, which a validator
	// follows until its stack overflows.
	const exprValues = `{"type": "object", "properties": {"e": {"type": ["string", "number"]}}, "required": ["e"]}`
	schemas := map[string]string{"pick": pickSchema, "expr": exprValues}
	t.Run("ollama, the JSON object protocol", func(t *testing.T) {
		srv := ollamaServer.start(t, spelled(`{"thought": "pick", "action": "pick", "action_input": {"choice": "blue"}}`))
		got := ollamaServer.ask(t, srv, "--mcp-config", mcp, "--yes", "--constrain", "on", "--json", "--max-iterations", "2", "Pick one.")
		checkBound(t, got, schemas)
	})
	t.Run("llama-server, recursive definitions", func(t *testing.T) {
		srv := llamaServer.start(t, spelled("Action: exprr\nAction Input: {\"e\": \"x\"}"))
		got := llamaServer.ask(t, srv, "--mcp-config", mcp, "--yes", "--json", "--max-iterations", "2", "Store one.")
		if refused := regexp.MustCompile(`.*(left recursion|error parsing grammar|failed to parse grammar).*`).FindString(srv.Log()); refused != "" {
			t.Errorf("llama-server refused the grammar, and went on without it: %s", refused)
		}
		checkBound(t, got, schemas)
	})
}

// 10. Building the grammar of a large schema took minutes (rule names
// found by counting up from 2, for every rule), and nothing stopped it:
// not --timeout, not Ctrl-C.
func TestAGrammarTooLargeToBuildQuicklyEndsWithTheRunsTimeout(t *testing.T) {
	var props []string
	for i := range 20000 {
		props = append(props, fmt.Sprintf(`"p%05d": {"type": "string"}`, i))
	}
	// A name longer than a rule name keeps: every rule of the tool starts
	// with the same 40 characters.
	name := "a_tool_whose_name_is_longer_than_forty_characters"
	mcp := mcpServer(t, `[{"name": "`+name+`", "description": "Many fields.", "inputSchema": {"type": "object", "properties": {`+
		strings.Join(props, ", ")+`}}}]`)
	srv := llamaServer.start(t, spelled(finalText))
	s := start(t, invocation{args: append(llamaServer.flags(srv), "--no-log", "--mcp-config", mcp, "--yes", "--timeout", "5s", "What is 6 * 7?")})
	begin := time.Now()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
		if took := time.Since(begin); took > 20*time.Second {
			t.Errorf("the run took %s with --timeout 5s\n%s", took.Round(time.Second), s.outcome())
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-done
		t.Errorf("the run was still going 30 s after it started, with --timeout 5s\n%s", s.outcome())
	}
}

// 11. A server that answers with one JSON object when a stream was asked
// for (as some proxies do) was read as an empty stream. The proxy here
// asks llama-server for no stream, whatever the client asked.
func TestAPlainJSONReplyToAStreamedCallIsRead(t *testing.T) {
	srv := llamaServer.start(t, spelled(finalText))
	proxy := unstreaming(t, srv.URL)
	got := run(t, invocation{args: []string{"--no-log", "--provider", "llamacpp", "--base-url", proxy, "What is 6 * 7?"}})
	if got.code != 0 || got.stdout != "42\n" {
		t.Errorf("want the answer read from the JSON reply\n%s", got)
	}
	openai := run(t, invocation{args: []string{"--no-log", "--provider", "openai", "--base-url", proxy + "/v1", "What is 6 * 7?"}})
	if openai.code != 0 || openai.stdout != "42\n" {
		t.Errorf("through the OpenAI API: want the answer read from the JSON reply\n%s", openai)
	}
}

// unstreaming starts a reverse proxy to target on loopback that sends
// every JSON request with "stream": false, so that the server answers
// with one JSON object where the client asked for a stream, and returns
// its URL.
func unstreaming(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	director := rp.Director
	rp.Director = func(r *http.Request) {
		director(r)
		if r.Body == nil || r.Method != http.MethodPost {
			return
		}
		var body map[string]any
		data, err := io.ReadAll(r.Body)
		if err != nil || json.Unmarshal(data, &body) != nil {
			r.Body = io.NopCloser(bytes.NewReader(data))
			return
		}
		body["stream"] = false
		delete(body, "stream_options")
		data, _ = json.Marshal(body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		r.Header.Set("Content-Length", strconv.Itoa(len(data)))
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// 12. A reply that is not valid UTF-8 gets a 500 from llama-server (or,
// streamed, an error inside the stream), which was retried as if the
// server had a passing fault: the same model writes the same reply again.
func TestAReplyTheServerCannotEncodeIsNotRetried(t *testing.T) {
	srv := llamaServer.start(t, realserver.Model(gguf.Model{Spell: badUTF8, Seed: 1}))
	got := run(t, invocation{args: []string{"--no-log", "--provider", "llamacpp", "--base-url", unstreaming(t, srv.URL), "What?"}})
	if n := requests(srv, "/completion", 500); n != 1 {
		t.Errorf("the server failed %d calls, want 1: the call was retried\n%s", n, got)
	}
	if got.code != 1 || !strings.Contains(got.stderr, "Failed to parse input") {
		t.Errorf("want exit 1 and the server's message\n%s", got)
	}
	streamed := llamaServer.ask(t, srv, "What?")
	if n := requests(srv, "/completion", 200); n != 1 {
		t.Errorf("streamed, the server was asked %d times, want 1: the call was retried\n%s", n, streamed)
	}
	if streamed.code != 1 || !strings.Contains(streamed.stderr, "Failed to parse input") {
		t.Errorf("streamed: want exit 1 and the server's message\n%s", streamed)
	}
}

// 12, continued: in a chat with the text protocol, a question that got no
// answer (the model call failed) was left out of the next question's
// prompt, as if it had never been asked.
func TestAnUnansweredQuestionStaysInTheChat(t *testing.T) {
	srv := llamaServer.start(t, realserver.Model(gguf.Model{Spell: badUTF8, Seed: 1}))
	rec := record(t, srv.URL)
	got := run(t, invocation{args: []string{"chat", "-q", "--no-log", "--provider", "llamacpp", "--base-url", rec.URL, "--protocol", "text"},
		stdin: "What is the first question?\nAnd the second?\n"})
	second := 0
	for _, body := range rec.to("/completion") {
		prompt, _ := body["prompt"].(string)
		if !strings.Contains(prompt, "And the second?") {
			continue
		}
		second++
		if !strings.Contains(prompt, "What is the first question?") {
			t.Errorf("the second question's prompt leaves the first out:\n%s", prompt[max(0, len(prompt)-600):])
			break
		}
	}
	if second == 0 {
		t.Errorf("the second question was not asked\n%s", got)
	}
}

// tail returns the last n lines of text.
func tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Beyond the twelve: Ollama ends the reply of a model that writes one
// token more than 30 times in a row (sampled greedily, a model with a
// strong prior on one token does, in a free reply or in a string the
// schema holds open) with neither its done message nor an error. The run
// was told that "the stream stopped without its end marker", after four
// calls; then, that Ollama stopped it for repeating itself, with advice to
// raise the temperature, though a runner that fails ends a reply the same
// way (issue 44, item 10). It is told what is known: the reply was cut
// before the server finished it, for one of two causes, which the
// server's log tells apart.
func TestAModelOllamaStopsForRepeatingItselfIsToldWhatIsKnown(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"a free reply", nil},
		{"a reply held to the schema", []string{"--constrain", "on"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamaServer.start(t, realserver.Model(gguf.Model{Prior: map[int]float32{gguf.ByteToken('a'): 20}, Seed: 1}))
			rec := record(t, srv.URL)
			args := append([]string{"--no-log", "--provider", "ollama", "--base-url", rec.URL, "-m", srv.Model}, tt.args...)
			got := run(t, invocation{args: append(args, "What is 6 * 7?")})
			calls := rec.to("/api/chat")
			if got.code != 1 || len(calls) != 2 || !strings.Contains(got.stderr, "the reply ended before the server finished it") ||
				!strings.Contains(got.stderr, "more than 30 times in a row") || !strings.Contains(got.stderr, "runner") ||
				!strings.Contains(got.stderr, "server's log") || strings.Contains(got.stderr, "temperature") {
				t.Fatalf("want exit 1 after 2 calls, saying the reply was cut, both causes and where to look, not the temperature; %d calls\n%s", len(calls), got)
			}
			if _, held := calls[0]["format"].(map[string]any); held != (tt.args != nil) {
				t.Errorf("the reply was held to a schema: %v, want %v", held, tt.args != nil)
			}
		})
	}
}

// Issue 44, item 12: --provider ollama at a llama-server, which answers
// Ollama's /api/chat with an OpenAI-compatible event stream, made three
// steps of "parse error: empty response", 20 s each, and then blamed the
// model for not following the reply format. The run ends within seconds,
// saying that the server is not Ollama and which --provider fits.
func TestOllamaTakenForALlamaServerSaysWhichProviderFits(t *testing.T) {
	srv := llamaServer.start(t, spelled(finalText))
	start := time.Now()
	got := run(t, invocation{args: []string{"--no-log", "--provider", "ollama", "--base-url", srv.URL, "-m", srv.Model, "What is 6 * 7?"}})
	took := time.Since(start)
	if got.code != 1 || !strings.Contains(got.stderr, "is not Ollama") || !strings.Contains(got.stderr, "pass --provider llamacpp") ||
		strings.Contains(got.stderr, "parse error") || strings.Contains(got.stderr, "retrying") {
		t.Fatalf("want exit 1, saying the server is not Ollama and to pass --provider llamacpp, with no parse error or retry\n%s", got)
	}
	if took > 10*time.Second {
		t.Errorf("it took %s to tell", took)
	}
}
