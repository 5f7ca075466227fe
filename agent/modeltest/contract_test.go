package modeltest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// The contract tests send the same requests to a fake server and to the
// real one it imitates (started by package realserver; skipped without
// it), and compare the shape of what comes back: the status, the media
// type, the framing of a stream, and the fields of each JSON body with
// their types. Values differ (the fake's model is a script), but for the
// few fields whose values carry meaning (why a reply stopped, the type of
// an error), which are compared too.

// An exchange is one request and what to compare of its answers.
type exchange struct {
	name         string
	method, path string
	body         string // "MODEL" is replaced by the model's name
	// ignore lists the fields (paths, as shape writes them) the real
	// server sends that the fake leaves out on purpose: the fake need not
	// imitate timings and settings nobody reads.
	ignore []string
	// values lists the fields whose values must be the same.
	values []string
}

// answer is what a server sent back.
type answer struct {
	status int
	media  string
	// framing is "json", "sse" (data: events), "ndjson" or "text".
	framing string
	events  []any // the JSON bodies: one, or a stream's events in order
	done    bool  // an SSE stream ended with data: [DONE]
	text    string
}

func send(t *testing.T, base, model string, x exchange) answer {
	t.Helper()
	var body io.Reader
	if x.body != "" {
		body = strings.NewReader(strings.ReplaceAll(x.body, "MODEL", model))
	}
	req, err := http.NewRequest(x.method, base+x.path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	// No connection is kept: llama-server closes one after an error.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", x.method, base+x.path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, text: string(raw)}
	a.media, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch a.media {
	case "text/event-stream":
		a.framing = "sse"
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			switch {
			case !ok:
				continue
			case data == "[DONE]":
				a.done = true
			default:
				var v any
				if err := json.Unmarshal([]byte(data), &v); err != nil {
					t.Fatalf("%s: an event is not JSON: %q", x.name, data)
				}
				a.events = append(a.events, v)
			}
		}
	case "application/x-ndjson":
		a.framing = "ndjson"
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var v any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("%s: a line is not JSON: %q", x.name, line)
			}
			a.events = append(a.events, v)
		}
	case "application/json":
		a.framing = "json"
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: the body is not JSON: %q", x.name, raw)
		}
		a.events = []any{v}
	default:
		a.framing = "text"
	}
	return a
}

// shape adds the fields of JSON value v to out: each path (".a.b", "[]"
// for the elements of a list) with the JSON types found there.
func shape(v any, path string, out map[string][]string) {
	add := func(typ string) {
		if !slices.Contains(out[path], typ) {
			out[path] = append(out[path], typ)
			sort.Strings(out[path])
		}
	}
	switch v := v.(type) {
	case map[string]any:
		add("object")
		for k, e := range v {
			shape(e, path+"."+k, out)
		}
	case []any:
		add("array")
		for _, e := range v {
			shape(e, path+"[]", out)
		}
	case string:
		add("string")
	case float64:
		add("number")
	case bool:
		add("boolean")
	case nil:
		add("null")
	}
}

func shapeOf(events ...any) map[string][]string {
	out := map[string][]string{}
	for _, e := range events {
		shape(e, "", out)
	}
	return out
}

// value returns the value at path (no lists) in v, as JSON.
func value(v any, path string) string {
	for _, k := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// differences returns how the fake's body shape differs from the real's:
// fields only one has (but the ignored ones) and fields of other types.
func differences(real, fake map[string][]string, ignore []string) []string {
	ignored := func(p string) bool {
		for _, i := range ignore {
			if p == i || strings.HasPrefix(p, i+".") || strings.HasPrefix(p, i+"[]") {
				return true
			}
		}
		return false
	}
	var out []string
	for p, types := range real {
		switch f, ok := fake[p]; {
		case !ok && !ignored(p):
			out = append(out, fmt.Sprintf("only the real server sends %s (%s)", p, strings.Join(types, "|")))
		case ok && !slices.Equal(f, types) && !subset(f, types):
			out = append(out, fmt.Sprintf("%s is %s, the real server's is %s", p, strings.Join(f, "|"), strings.Join(types, "|")))
		}
	}
	for p, types := range fake {
		if _, ok := real[p]; !ok {
			out = append(out, fmt.Sprintf("only the fake sends %s (%s)", p, strings.Join(types, "|")))
		}
	}
	sort.Strings(out)
	return out
}

// subset reports whether every type of a is in b: a field the real
// server sends as a string or null may be a string in the fake.
func subset(a, b []string) bool {
	for _, t := range a {
		if !slices.Contains(b, t) {
			return false
		}
	}
	return true
}

// compare sends x to the real server and the fake and reports how the
// fake's answer differs.
func compare(t *testing.T, x exchange, real, fake *server) {
	t.Run(x.name, func(t *testing.T) {
		r, f := send(t, real.url, real.model, x), send(t, fake.url, fake.model, x)
		if r.status != f.status || r.media != f.media || r.framing != f.framing || r.done != f.done {
			t.Errorf("the fake answers %d %s (%s, [DONE] %v), the real server %d %s (%s, [DONE] %v)\nreal: %.500s\nfake: %.500s",
				f.status, f.media, f.framing, f.done, r.status, r.media, r.framing, r.done, r.text, f.text)
			return
		}
		if r.framing == "text" {
			return
		}
		// A stream: the first event, the ones between and the last one each
		// have a shape of their own.
		type part struct {
			name   string
			events func(a answer) []any
		}
		parts := []part{{"the body", func(a answer) []any { return a.events }}}
		if r.framing != "json" {
			parts = []part{
				{"the first event", func(a answer) []any { return a.events[:1] }},
				{"the events between", func(a answer) []any { return a.events[1:max(1, len(a.events)-1)] }},
				{"the last event", func(a answer) []any { return a.events[len(a.events)-1:] }},
			}
			if len(r.events) < 2 || len(f.events) < 2 {
				t.Errorf("a stream of %d events from the fake, %d from the real server\nreal: %.800s\nfake: %.800s", len(f.events), len(r.events), r.text, f.text)
				return
			}
		}
		for _, p := range parts {
			re, fe := p.events(r), p.events(f)
			if len(re) == 0 || len(fe) == 0 {
				continue // a stream of two events has none between
			}
			for _, d := range differences(shapeOf(re...), shapeOf(fe...), x.ignore) {
				t.Errorf("%s: %s", p.name, d)
			}
		}
		last := func(a answer) any { return a.events[len(a.events)-1] }
		for _, p := range x.values {
			if rv, fv := value(last(r), p), value(last(f), p); rv != fv {
				t.Errorf("%s is %s from the fake, %s from the real server", p, fv, rv)
			}
		}
		if t.Failed() {
			t.Logf("real: %.1500s\nfake: %.1500s", r.text, f.text)
		}
	})
}

// server is where a contract test sends its requests.
type server struct{ url, model string }

// spelled is the model of the real servers: it answers every prompt with
// the fakes' one reply.
const reply = "Final Answer: forty-two, as the product of six and seven"

func realModel(text string) realserver.Option {
	return realserver.Model(gguf.Model{Spell: text, Seed: 1})
}

func TestTheLlamaCppFakeAnswersAsLlamaServerDoes(t *testing.T) {
	real := realserver.LlamaServer(t, realModel(reply), realserver.Context(1024))
	fake := modeltest.NewLlamaCpp([]string{reply}, modeltest.Repeat(), modeltest.ContextSize(1024))
	defer fake.Close()
	plain := realserver.LlamaServer(t, realModel(reply), realserver.NoTools())
	plainFake := modeltest.NewLlamaCpp([]string{reply}, modeltest.Repeat(), modeltest.NoTools())
	defer plainFake.Close()
	bad := realserver.LlamaServer(t, realModel("Final Answer: caf\xff ok"))
	badFake := modeltest.NewLlamaCpp([]string{"Final Answer: caf ok"}, modeltest.Repeat(), modeltest.Misbehave(modeltest.ErrorInStream))
	defer badFake.Close()
	failing := modeltest.NewLlamaCpp([]string{reply}, modeltest.Fail(1, 500))
	defer failing.Close()

	r, f := &server{real.URL, real.Model}, &server{fake.URL, "tiny"}
	// The fields of llama-server's answers that the fake leaves out:
	// settings, timings and ids that no client of ours reads.
	completion := []string{".generation_settings", ".timings", ".index", ".id_slot", ".tokens", ".has_new_line", ".tokens_cached", ".stopping_word", ".prompt", ".model"}
	long := strings.Repeat("many words ", 600)
	for _, x := range []exchange{
		{name: "a completion", method: "POST", path: "/completion", body: `{"prompt": "Q\n", "n_predict": 64}`,
			ignore: completion, values: []string{".stop", ".stop_type", ".truncated"}},
		{name: "a streamed completion", method: "POST", path: "/completion", body: `{"prompt": "Q\n", "n_predict": 64, "stream": true}`,
			ignore: completion, values: []string{".stop", ".stop_type"}},
		{name: "a completion cut by n_predict", method: "POST", path: "/completion", body: `{"prompt": "Q\n", "n_predict": 3}`,
			ignore: completion, values: []string{".stop", ".stop_type", ".truncated"}},
		{name: "a streamed completion cut by n_predict", method: "POST", path: "/completion", body: `{"prompt": "Q\n", "n_predict": 3, "stream": true}`,
			ignore: completion, values: []string{".stop", ".stop_type"}},
		{name: "a prompt over the window", method: "POST", path: "/completion", body: `{"prompt": "` + long + `"}`,
			values: []string{".error.code", ".error.type"}},
		{name: "a streamed prompt over the window", method: "POST", path: "/completion", body: `{"prompt": "` + long + `", "stream": true}`,
			values: []string{".error.code", ".error.type"}},
		{name: "a lazy grammar without triggers", method: "POST", path: "/completion", body: `{"prompt": "Q\n", "grammar": "root ::= \"x\"", "grammar_lazy": true}`,
			values: []string{".error.code", ".error.type", ".error.message"}},
		{name: "a trigger of an unknown type", method: "POST", path: "/completion", body: `{"prompt": "Q\n", "grammar": "root ::= \"x\"", "grammar_lazy": true, "grammar_triggers": [{"type": 9, "value": "x"}]}`,
			values: []string{".error.code", ".error.type", ".error.message"}},
		{name: "the chat template", method: "POST", path: "/apply-template", body: `{"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}]}`},
		{name: "the properties", method: "GET", path: "/props",
			ignore: []string{".default_generation_settings.params", ".model_alias", ".modalities", ".endpoint_slots", ".endpoint_props", ".endpoint_metrics",
				".webui", ".webui_settings", ".chat_template", ".bos_token", ".eos_token", ".is_sleeping"},
			values: []string{".default_generation_settings.n_ctx", ".chat_template_caps.supports_tool_calls"}},
		{name: "the models", method: "GET", path: "/v1/models", ignore: []string{".data[].meta", ".data[].aliases", ".data[].tags", ".models"}},
		{name: "tokens", method: "POST", path: "/tokenize", body: `{"content": "Action: calculator"}`},
		{name: "its health", method: "GET", path: "/health", values: []string{".status"}},
		{name: "Ollama's version, which it lacks", method: "GET", path: "/api/version", values: []string{".error.code", ".error.type"}},
		{name: "an OpenAI chat", method: "POST", path: "/v1/chat/completions", body: `{"messages": [{"role": "user", "content": "hi"}]}`,
			ignore: []string{".timings"}},
		{name: "a streamed OpenAI chat", method: "POST", path: "/v1/chat/completions", body: `{"stream": true, "messages": [{"role": "user", "content": "hi"}]}`,
			ignore: []string{".timings"}},
		{name: "a streamed OpenAI chat with its usage", method: "POST", path: "/v1/chat/completions",
			body: `{"stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "hi"}]}`, ignore: []string{".timings"}},
		{name: "an OpenAI chat cut by max_tokens", method: "POST", path: "/v1/chat/completions", body: `{"max_tokens": 3, "messages": [{"role": "user", "content": "hi"}]}`,
			ignore: []string{".timings"}},
	} {
		compare(t, x, r, f)
	}
	// Tool calls, from a model that writes one as the template says.
	call := "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call>"
	caller := realserver.LlamaServer(t, realModel(call))
	callerFake := modeltest.NewLlamaCpp([]string{modeltest.Calls("", modeltest.Call{Name: "calculator", Arguments: map[string]any{"expression": "6*7"}})}, modeltest.Repeat())
	defer callerFake.Close()
	tools := `"tools": [{"type": "function", "function": {"name": "calculator", "description": "math",
		"parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}]`
	for _, x := range []exchange{
		{name: "an OpenAI tool call", method: "POST", path: "/v1/chat/completions", body: `{"messages": [{"role": "user", "content": "hi"}], ` + tools + `}`,
			ignore: []string{".timings"}},
		{name: "a streamed OpenAI tool call", method: "POST", path: "/v1/chat/completions", body: `{"stream": true, "messages": [{"role": "user", "content": "hi"}], ` + tools + `}`,
			ignore: []string{".timings"}},
	} {
		compare(t, x, &server{caller.URL, caller.Model}, &server{callerFake.URL, "tiny"})
	}
	compare(t, exchange{name: "the properties of a template without tools", method: "GET", path: "/props",
		ignore: []string{".default_generation_settings.params", ".model_alias", ".modalities", ".endpoint_slots", ".endpoint_props", ".endpoint_metrics",
			".webui", ".webui_settings", ".chat_template", ".bos_token", ".eos_token", ".is_sleeping"},
		values: []string{".chat_template_caps.supports_tool_calls"}}, &server{plain.URL, plain.Model}, &server{plainFake.URL, "tiny"})
	compare(t, exchange{name: "a reply that is not UTF-8, streamed", method: "POST", path: "/completion", body: `{"prompt": "Q\n", "stream": true}`,
		ignore: []string{".index", ".id_slot", ".tokens"}, values: []string{".error.code", ".error.type"}}, &server{bad.URL, bad.Model}, &server{badFake.URL, "tiny"})
	compare(t, exchange{name: "a reply that is not UTF-8", method: "POST", path: "/completion", body: `{"prompt": "Q\n"}`,
		values: []string{".error.code", ".error.type"}}, &server{bad.URL, bad.Model}, &server{failing.URL, "tiny"})
}

func TestTheOllamaFakeAnswersAsOllamaDoes(t *testing.T) {
	real := realserver.Ollama(t, realModel(reply), realserver.Context(1024))
	fake := modeltest.NewOllama([]string{reply}, modeltest.Repeat(), modeltest.Model("tiny:latest"), modeltest.ContextSize(1024))
	defer fake.Close()
	r, f := &server{real.URL, real.Model}, &server{fake.URL, "tiny:latest"}
	tools := `"tools": [{"type": "function", "function": {"name": "calculator", "description": "math",
		"parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}]`
	long := strings.Repeat("many words ", 600)
	done := []string{".done", ".done_reason"}
	for _, x := range []exchange{
		{name: "a chat", method: "POST", path: "/api/chat", body: `{"model": "MODEL", "stream": false, "messages": [{"role": "user", "content": "hi"}]}`, values: done},
		{name: "a streamed chat", method: "POST", path: "/api/chat", body: `{"model": "MODEL", "messages": [{"role": "user", "content": "hi"}]}`, values: done},
		{name: "a chat cut by num_predict", method: "POST", path: "/api/chat", body: `{"model": "MODEL", "stream": false, "options": {"num_predict": 3}, "messages": [{"role": "user", "content": "hi"}]}`, values: done},
		{name: "a streamed chat cut by num_predict", method: "POST", path: "/api/chat", body: `{"model": "MODEL", "options": {"num_predict": 3}, "messages": [{"role": "user", "content": "hi"}]}`, values: done},
		{name: "a prompt over the window", method: "POST", path: "/api/chat", body: `{"model": "MODEL", "stream": false, "messages": [{"role": "user", "content": "` + long + `"}]}`,
			values: append(done, ".prompt_eval_count")},
		{name: "a prompt over the window, asked not to cut it", method: "POST", path: "/api/chat",
			body: `{"model": "MODEL", "stream": false, "truncate": false, "messages": [{"role": "user", "content": "` + long + `"}]}`, values: []string{".error"}},
		{name: "a model it lacks", method: "POST", path: "/api/chat", body: `{"model": "nope", "messages": [{"role": "user", "content": "hi"}]}`, values: []string{".error"}},
		{name: "a model named without its tag", method: "POST", path: "/api/chat", body: `{"model": "tiny", "stream": false, "messages": [{"role": "user", "content": "hi"}]}`, values: done},
		{name: "the loaded models", method: "GET", path: "/api/ps", values: []string{".models[].context_length"}},
		{name: "an OpenAI chat", method: "POST", path: "/v1/chat/completions", body: `{"model": "MODEL", "messages": [{"role": "user", "content": "hi"}]}`,
			ignore: []string{".system_fingerprint"}},
		{name: "a streamed OpenAI chat", method: "POST", path: "/v1/chat/completions", body: `{"model": "MODEL", "stream": true, "messages": [{"role": "user", "content": "hi"}]}`,
			ignore: []string{".system_fingerprint"}},
		{name: "an OpenAI chat for a model it lacks", method: "POST", path: "/v1/chat/completions", body: `{"model": "nope", "messages": [{"role": "user", "content": "hi"}]}`,
			values: []string{".error.type", ".error.message"}},
		{name: "the models", method: "GET", path: "/api/tags"},
		{name: "a model", method: "POST", path: "/api/show", body: `{"model": "MODEL"}`,
			ignore: []string{".modelfile", ".template", ".tensors", ".model_info", ".details.parent_model"}},
		{name: "the OpenAI models", method: "GET", path: "/v1/models"},
		{name: "the root", method: "GET", path: "/"},
		{name: "the version", method: "GET", path: "/api/version"},
		{name: "llama-server's properties, which it lacks", method: "GET", path: "/props"},
	} {
		compare(t, x, r, f)
	}
	// A model whose reply never ends fills the window asked (num_ctx),
	// and Ollama asked not to shift it ends the reply there.
	endless := realserver.Ollama(t, realserver.Model(gguf.Model{Spell: reply, Endless: true, Prior: map[int]float32{gguf.EOS: -40}, Seed: 1}), realserver.Context(1024))
	endlessFake := modeltest.NewOllama([]string{strings.Repeat(reply, 100)}, modeltest.Repeat(), modeltest.ContextSize(1024))
	defer endlessFake.Close()
	for _, x := range []exchange{
		{name: "a reply that fills the window, asked not to shift it", method: "POST", path: "/api/chat", values: done,
			body: `{"model": "MODEL", "stream": false, "shift": false, "options": {"num_ctx": 256}, "messages": [{"role": "user", "content": "hi"}]}`},
		{name: "a streamed reply that fills the window, asked not to shift it", method: "POST", path: "/api/chat", values: done,
			body: `{"model": "MODEL", "shift": false, "options": {"num_ctx": 256}, "messages": [{"role": "user", "content": "hi"}]}`},
	} {
		compare(t, x, &server{endless.URL, endless.Model}, &server{endlessFake.URL, "tiny"})
	}
	plain := realserver.Ollama(t, realModel(reply), realserver.NoTools())
	plainFake := modeltest.NewOllama([]string{reply}, modeltest.Repeat(), modeltest.NoTools())
	defer plainFake.Close()
	for _, x := range []exchange{
		{name: "tools with a template without them", method: "POST", path: "/api/chat",
			body: `{"model": "MODEL", "messages": [{"role": "user", "content": "hi"}], ` + tools + `}`, values: []string{".error"}},
		{name: "OpenAI tools with a template without them", method: "POST", path: "/v1/chat/completions",
			body: `{"model": "MODEL", "messages": [{"role": "user", "content": "hi"}], ` + tools + `}`, values: []string{".error.type", ".error.message"}},
	} {
		compare(t, x, &server{plain.URL, plain.Model}, &server{plainFake.URL, "tiny"})
	}
}

// TestTheOllamaFakeStopsARepeatingModelAsOllamaDoes holds RepeatLimit to
// what Ollama does with a model that writes one token over and over: it
// ends the reply after 31, without a done message or an error, on both
// its APIs, streamed or not.
func TestTheOllamaFakeStopsARepeatingModelAsOllamaDoes(t *testing.T) {
	real := realserver.Ollama(t, realserver.Model(gguf.Model{Prior: map[int]float32{gguf.ByteToken('a'): 20}, Seed: 1}))
	fake := modeltest.NewOllama([]string{"a"}, modeltest.Repeat(), modeltest.Misbehave(modeltest.RepeatLimit))
	defer fake.Close()
	r, f := &server{real.URL, real.Model}, &server{fake.URL, "tiny"}
	done := []string{".done", ".done_reason", ".message.content"}
	for _, x := range []exchange{
		{name: "a streamed chat", method: "POST", path: "/api/chat", values: done,
			body: `{"model": "MODEL", "options": {"temperature": 0}, "messages": [{"role": "user", "content": "hi"}]}`},
		{name: "a chat", method: "POST", path: "/api/chat", values: done,
			body: `{"model": "MODEL", "stream": false, "options": {"temperature": 0}, "messages": [{"role": "user", "content": "hi"}]}`},
		{name: "a streamed OpenAI chat", method: "POST", path: "/v1/chat/completions",
			body: `{"model": "MODEL", "stream": true, "temperature": 0, "messages": [{"role": "user", "content": "hi"}]}`},
		{name: "an OpenAI chat", method: "POST", path: "/v1/chat/completions", values: []string{".usage.total_tokens"},
			body: `{"model": "MODEL", "temperature": 0, "messages": [{"role": "user", "content": "hi"}]}`},
	} {
		compare(t, x, r, f)
		t.Run(x.name+", reply", func(t *testing.T) {
			if rt, ft := replyText(t, send(t, r.url, r.model, x)), replyText(t, send(t, f.url, f.model, x)); rt != ft || rt != strings.Repeat("a", 31) {
				t.Errorf("the fake's reply is %q, the real server's %q, want 31 a", ft, rt)
			}
		})
	}
}

// replyText puts together the text of a chat's answer, whole or streamed,
// in either API.
func replyText(t *testing.T, a answer) string {
	t.Helper()
	var b strings.Builder
	for _, e := range a.events {
		m, _ := e.(map[string]any)
		if msg, ok := m["message"].(map[string]any); ok {
			b.WriteString(fmt.Sprint(msg["content"]))
		}
		choices, _ := m["choices"].([]any)
		for _, c := range choices {
			c, _ := c.(map[string]any)
			for _, k := range []string{"delta", "message"} {
				if part, ok := c[k].(map[string]any); ok && part["content"] != nil {
					b.WriteString(fmt.Sprint(part["content"]))
				}
			}
		}
	}
	return b.String()
}
