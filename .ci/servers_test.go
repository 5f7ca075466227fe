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
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/mcp/mcptest"
)

// The end-to-end suite against real model servers: llama.cpp's
// llama-server and Ollama, started by package realserver on loopback with
// a tiny model written for the test (package gguf), and the built binary
// talking to them. Each test skips in a plain clone without the servers;
// .ci/run installs them and sets REACT_AGENT_REQUIRE_SERVERS=1.

// A real is one kind of real server, and the flags that point the binary
// at one.
type real struct {
	name  string
	start func(testing.TB, ...realserver.Option) *realserver.Server
	flags func(*realserver.Server) []string
}

var llamaServer = real{"llama-server", realserver.LlamaServer, func(s *realserver.Server) []string {
	return []string{"--provider", "llamacpp", "--base-url", s.URL}
}}

var ollamaServer = real{"ollama", realserver.Ollama, func(s *realserver.Server) []string {
	return []string{"--provider", "ollama", "--base-url", s.URL, "-m", s.Model}
}}

var reals = []real{llamaServer, ollamaServer}

// The texts the tests' models spell.
const (
	finalText = "Thought: I know it.\nFinal Answer: 42"
	// misfitText is a step no registered tool fits: a misspelt tool and
	// argument. Under a constraint the model cannot write it, and the
	// grammar or schema sends it where the prior goes.
	misfitText = "Thought: I add.\nAction: calculater\nAction Input: {\"expresion\": 6*7, \"why\": \"because\"}"
	// nativeCall is a tool call as the ChatML templates' models write it.
	nativeCall = "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call>"
)

// closing is a prior that favours what ends what a grammar has open:
// quotes first, then brackets, and the end of the reply, so that a model
// that a grammar sent off its spelled text ends its JSON soon (with the
// greedy sampling of temperature 0, a string that never closes repeats a
// token until Ollama gives up).
var closing = map[int]float32{
	gguf.EOS: 8, gguf.ByteToken('"'): 6, gguf.ByteToken('}'): 4, gguf.ByteToken(']'): 4,
	gguf.ByteToken(','): -1, gguf.ByteToken(' '): -1, gguf.ByteToken('\\'): -3,
}

// spelled is a model that spells text, with the closing prior.
func spelled(text string) realserver.Option {
	return realserver.Model(gguf.Model{Spell: text, Prior: closing, Seed: 1})
}

// endless is a plain model whose replies never end by themselves.
func endless(filler int) realserver.Option {
	m := gguf.Model{Prior: map[int]float32{gguf.EOS: -40}, Seed: 1}
	if filler > 0 {
		m.Vocab, m.Filler = 3000, filler
	}
	return realserver.Model(m)
}

// ask runs the binary with args against srv.
func (r real) ask(t *testing.T, srv *realserver.Server, args ...string) outcome {
	t.Helper()
	return run(t, invocation{args: append(append([]string{"--no-log"}, r.flags(srv)...), args...)})
}

// eachReal runs test as a subtest against each kind of real server.
func eachReal(t *testing.T, test func(t *testing.T, r real)) {
	for _, r := range reals {
		t.Run(r.name, func(t *testing.T) { test(t, r) })
	}
}

// events decodes the JSON Lines of a run with --json.
func events(t *testing.T, o outcome) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		if line == "" {
			continue
		}
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stdout has a line that is no JSON event: %q\n%s", line, o)
		}
		out = append(out, e)
	}
	return out
}

// checkBound checks that every reply of a run with --json was a call of a
// registered tool with arguments that fit its schema, or a final answer;
// schemas gives the JSON schemas of tools that declare one, by name.
func checkBound(t *testing.T, o outcome, schemas map[string]string) {
	t.Helper()
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, e := range events(t, o) {
		switch e["type"] {
		case "parse_error":
			t.Errorf("a reply under the constraint did not parse: %v\n%s", e, o)
		case "final":
			steps++
		case "action":
			steps++
			name, _ := e["tool"].(string)
			args, _ := e["args"].(map[string]any)
			if s, ok := schemas[name]; ok {
				var schema jsonschema.Schema
				if err := json.Unmarshal([]byte(s), &schema); err != nil {
					t.Fatal(err)
				}
				resolved, err := schema.Resolve(nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := resolved.Validate(args); err != nil {
					t.Errorf("%s was called with arguments its schema refuses: %v: %v\n%s", name, args, err, o)
				}
				continue
			}
			tl, ok := reg.Get(name)
			if !ok {
				t.Errorf("a step calls %q, which is not registered\n%s", name, o)
				continue
			}
			if _, err := tools.CheckArgs(tl.Name(), tl.Schema(), args); err != nil {
				t.Errorf("%s was called with arguments its schema refuses: %v\n%s", name, err, o)
			}
		}
	}
	if steps == 0 {
		t.Errorf("the run took no step\n%s", o)
	}
}

// A recorder is a reverse proxy on loopback in front of a real server
// that keeps the body of every request, so that a test can see what the
// binary sent. It streams responses through as they come.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	calls []recorded
}

// recorded is one request the recorder passed on.
type recorded struct {
	path string
	body map[string]any
}

func record(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var v map[string]any
		json.Unmarshal(body, &v)
		rec.mu.Lock()
		rec.calls = append(rec.calls, recorded{r.URL.Path, v})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.Close)
	return rec
}

// to returns the bodies of the requests to path, in order.
func (rec *recorder) to(path string) []map[string]any {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []map[string]any
	for _, c := range rec.calls {
		if c.path == path {
			out = append(out, c.body)
		}
	}
	return out
}

// requests returns the number of requests to path that the server's log
// shows it answered with status (llama-server's "done request" lines,
// written once the answer is sent: it waits for the first, then a moment
// for any other).
func requests(srv *realserver.Server, path string, status int) int {
	line := fmt.Sprintf("done request: POST %s 127.0.0.1 %d", path, status)
	if srv.WaitLog(line, 5*time.Second) {
		time.Sleep(300 * time.Millisecond)
	}
	return strings.Count(srv.Log(), line)
}

// writeQuestions writes an evaluation set of one question whose answer
// is 42.
func writeQuestions(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "set.jsonl")
	text := `{"id": "six-sevens", "question": "What is 6 * 7?", "number": 42, "tools": ["calculator"]}` + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lockedBuffer is a buffer a running command writes and a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRealServersAnswerWithTheTextProtocol(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, spelled(finalText))
		constrain := "on"
		if r.name == "llama-server" {
			constrain = "auto"
		}
		for _, args := range [][]string{
			{"--constrain", "off", "--stream"},
			{"--constrain", "off", "--no-stream"},
			{"--constrain", constrain, "--stream"},
			{"--constrain", constrain, "--no-stream"},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				if r.name == "ollama" && args[1] == "on" {
					// The JSON object protocol: the model cannot spell its
					// text under Ollama's format, which sends it to the
					// prior; whatever it writes is a step.
					got := r.ask(t, srv, append(args, "--json", "--max-iterations", "2", "What is 6 * 7?")...)
					checkBound(t, got, nil)
					return
				}
				got := r.ask(t, srv, append(args, "--protocol", "text", "What is 6 * 7?")...)
				if got.code != 0 || got.stdout != "42\n" {
					t.Errorf("want 42 and exit 0\n%s", got)
				}
				if args[2] == "--stream" && !strings.Contains(got.stderr, "Final Answer: 42") {
					t.Errorf("the trace does not show the reply\n%s", got)
				}
			})
		}
	})
}

func TestRealServersBindEveryStepUnderAConstraint(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, spelled(misfitText))
		got := r.ask(t, srv, "--constrain", "on", "--json", "--max-iterations", "3", "What is 6 * 7?")
		checkBound(t, got, nil)
		if r.name == "llama-server" && !strings.Contains(got.stdout, `"tool":"calculator"`) {
			// The grammar starts on "Action:" and takes "calcula" as the
			// model spelt it, then forces the rest.
			t.Errorf("the grammar did not turn calculater into calculator\n%s", got)
		}
	})
}

func TestRealServersCallToolsNatively(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, spelled(nativeCall))
		got := r.ask(t, srv, "--protocol", "native", "--json", "--max-iterations", "2", "What is 6 * 7?")
		var steps []string
		for _, e := range events(t, got) {
			switch e["type"] {
			case "action":
				args, _ := json.Marshal(e["args"])
				steps = append(steps, fmt.Sprintf("%v %s", e["tool"], args))
			case "observation":
				steps = append(steps, fmt.Sprint(e["content"]))
			}
		}
		if len(steps) < 2 || steps[0] != `calculator {"expression":"6*7"}` || steps[1] != "42" {
			t.Errorf("want a call of the calculator on 6*7 that gives 42; the steps: %q\n%s", steps, got)
		}
	})
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, spelled("The answer is 42."))
		got := r.ask(t, srv, "--protocol", "native", "What is 6 * 7?")
		if got.code != 0 || got.stdout != "The answer is 42.\n" {
			t.Errorf("a reply with no tool call is the answer\n%s", got)
		}
	})
}

func TestRealServersChatOverTwoTurns(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, spelled(finalText))
		rec := record(t, srv.URL)
		args := append([]string{"chat", "-q", "--no-log", "--protocol", "text"}, r.flags(srv)...)
		for i, a := range args {
			if a == srv.URL {
				args[i] = rec.URL
			}
		}
		got := run(t, invocation{args: args, stdin: "What is 6 * 7?\nAnd what is 7 * 6?\n"})
		if got.code != 0 || got.stdout != "42\n42\n" {
			t.Fatalf("want two answers\n%s", got)
		}
		path := "/completion"
		if r.name == "ollama" {
			path = "/api/chat"
		}
		calls := rec.to(path)
		if len(calls) != 2 {
			t.Fatalf("%d calls to %s, want 2", len(calls), path)
		}
		second, _ := json.Marshal(calls[1])
		for _, want := range []string{"What is 6 * 7?", "42", "And what is 7 * 6?"} {
			if !strings.Contains(string(second), want) {
				t.Errorf("the second turn's prompt lacks %q:\n%.3000s", want, second)
			}
		}
	})
}

func TestRealServersListTheirModels(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, realserver.Name("tiny-model"))
		flags := r.flags(srv)
		if r.name == "ollama" {
			flags = flags[:4] // no -m
		}
		got := run(t, invocation{args: append([]string{"models"}, flags...)})
		want := "tiny-model\n"
		if r.name == "ollama" {
			want = "tiny-model:latest\n"
		}
		// The first column is the name; size and date follow where the
		// server gives them.
		if first, _, _ := strings.Cut(got.stdout, "\n"); got.code != 0 || strings.Count(got.stdout, "\n") != 1 || !strings.HasPrefix(first+" ", strings.TrimSuffix(want, "\n")+" ") {
			t.Errorf("want one model, %q\n%s", want, got)
		}
	})
}

func TestEvalComparesBothRealServers(t *testing.T) {
	llama := llamaServer.start(t, spelled(finalText))
	olla := ollamaServer.start(t, spelled(finalText))
	models := fmt.Sprintf("llamacpp:%s@%s,ollama:%s@%s", llama.Model, llama.URL, olla.Model, olla.URL)
	got := run(t, invocation{args: []string{"eval", "--models", models, "--protocol", "text", writeQuestions(t)}})
	if got.code != 0 {
		t.Fatalf("the evaluation failed\n%s", got)
	}
	for _, m := range []string{"llamacpp:" + llama.Model, "ollama:" + olla.Model} {
		var row string
		for _, line := range strings.Split(got.stdout, "\n") {
			if strings.Contains(line, m) {
				row = line
			}
		}
		if !strings.Contains(row, "1/1") {
			t.Errorf("%s did not answer the question right: %q\n%s", m, row, got)
		}
	}
}

func TestAModelTheServerLacksIsNamed(t *testing.T) {
	srv := ollamaServer.start(t)
	got := run(t, invocation{args: []string{"--no-log", "--base-url", srv.URL, "-m", "nope", "What?"}})
	if got.code != 1 || !strings.Contains(got.stderr, `the model "nope" is not installed`) {
		t.Errorf("want exit 1 and the missing model named\n%s", got)
	}
}

func TestOllamaRefusesNativeToolsWithATemplateWithoutThem(t *testing.T) {
	srv := ollamaServer.start(t, realserver.NoTools(), spelled(finalText))
	native := ollamaServer.ask(t, srv, "--protocol", "native", "What is 6 * 7?")
	if native.code != 1 || !strings.Contains(native.stderr, "does not support tool calling") {
		t.Errorf("want the server's refusal\n%s", native)
	}
	auto := ollamaServer.ask(t, srv, "--protocol", "auto", "What is 6 * 7?")
	if auto.code != 0 || auto.stdout != "42\n" {
		t.Errorf("auto falls back to the text protocol\n%s", auto)
	}
}

func TestAServerKilledInTheMiddleOfAStream(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := r.start(t, endless(0), realserver.Context(16384))
		var stderr lockedBuffer
		var stdout bytes.Buffer
		cmd := command(t, invocation{args: append(append([]string{"--no-log", "--stream", "--constrain", "off"}, r.flags(srv)...), "Write on.")})
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		waitFor(t, "the reply to stream", func() bool { return len(stderr.String()) > 2000 })
		srv.Kill()
		killed := time.Now()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("still running 30 s after the server was killed\n%s", stderr.String())
		}
		code := cmd.ProcessState.ExitCode()
		if code != 1 || stdout.Len() != 0 {
			t.Errorf("want exit 1 and no answer; exit %d, stdout %q, %s after the kill", code, stdout.String(), time.Since(killed))
		}
		if tail := stderr.String()[max(0, len(stderr.String())-600):]; !strings.Contains(tail, "error") {
			t.Errorf("the end of the trace says nothing of the error:\n%s", tail)
		}
	})
}

// mcpServer writes a tiny MCP server (node, with the SDK the reference
// servers install) that declares the tools given as JSON and answers every
// call with its arguments, and returns an --mcp-config file that starts
// it.
func mcpServer(t *testing.T, toolsJSON string) string {
	t.Helper()
	sdk := filepath.Join(mcptest.ReferenceServers(t), "sdk", "dist", "esm")
	sdk, _ = filepath.Abs(sdk)
	dir := t.TempDir()
	script := fmt.Sprintf(`import { Server } from %q;
import { StdioServerTransport } from %q;
import { ListToolsRequestSchema, CallToolRequestSchema } from %q;
import { readFileSync } from "node:fs";
const tools = JSON.parse(readFileSync(%q, "utf8"));
const server = new Server({ name: "schemas", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req) => ({
  content: [{ type: "text", text: "called " + req.params.name + " with " + JSON.stringify(req.params.arguments) }],
}));
await server.connect(new StdioServerTransport());
`, filepath.Join(sdk, "server", "index.js"), filepath.Join(sdk, "server", "stdio.js"), filepath.Join(sdk, "types.js"), filepath.Join(dir, "tools.json"))
	if err := os.WriteFile(filepath.Join(dir, "tools.json"), []byte(toolsJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`{"mcpServers": {"schemas": {"command": %q, "args": [%q]}}}`, node, filepath.Join(dir, "server.mjs"))
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestACutReplyIsNotSentBack runs a model whose replies never end, so
// that the server cuts each at the token limit, in the text protocol on
// llama-server and in the JSON object protocol on Ollama: none of a cut
// reply goes back to the model in the next prompts (three replies cut at
// 20,000 tokens went back whole, until a prompt was 46,000 tokens), and
// the correction speaks the protocol the run asked for.
func TestACutReplyIsNotSentBack(t *testing.T) {
	const marker = "Zanzibar"
	never := map[int]float32{gguf.EOS: -40, gguf.ByteToken('"'): -40, gguf.ByteToken('\\'): -40}
	cases := []struct {
		name  string
		r     real
		path  string
		spell string
		args  []string
		not   string // in no request's last message
	}{
		{"llama-server, text protocol", llamaServer, "/completion", "Thought: " + marker + " is", nil, `"action_input"`},
		{"ollama, JSON object protocol", ollamaServer, "/api/chat", `{"thought": "` + marker + ` is`, []string{"--constrain", "on", "--temperature", "1"}, "Action Input:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := c.r.start(t, realserver.Model(gguf.Model{Spell: c.spell, Endless: true, Prior: never, Seed: 1}), realserver.Context(16384))
			rec := record(t, srv.URL)
			flags := c.r.flags(srv)
			flags[slices.Index(flags, "--base-url")+1] = rec.URL
			args := append(append(append([]string{"--no-log"}, flags...), c.args...), "--max-tokens", "200", "What is 6 * 7?")
			got := run(t, invocation{args: args})
			calls := rec.to(c.path)
			if got.code != 3 || len(calls) != 3 {
				t.Fatalf("want exit 3 after 3 replies cut at the token limit; %d calls\n%s", len(calls), got)
			}
			for i, body := range calls {
				b, _ := json.Marshal(body)
				if n := strings.Count(string(b), marker); n > 0 {
					t.Errorf("call %d sends what the model wrote in a reply that was cut (the marker %d× over):\n%.3000s", i+1, n, b)
				}
			}
			last := lastMessage(calls[2])
			if !strings.Contains(last, "none of it was used") || strings.Contains(last, c.not) {
				t.Errorf("the third call's last message is not a correction in the protocol of the run (it holds %q):\n%s", c.not, last)
			}
		})
	}
}

// lastMessage returns the prompt of a /completion request, or the last
// message of a chat request.
func lastMessage(body map[string]any) string {
	if p, ok := body["prompt"].(string); ok {
		return p
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	s, _ := m["content"].(string)
	return s
}
