package modeltest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// script runs on past its action, as models do, so that the stop sequence
// must cut it.
var script = []string{
	"Thought: one\nAction: add\nObservation: made up",
	"Final Answer: two",
}

const stop = "\nObservation:"

func start(dialect string, replies []string, opts ...modeltest.Option) *modeltest.Server {
	if dialect == "ollama" {
		return modeltest.NewOllama(replies, opts...)
	}
	return modeltest.NewOpenAI(replies, opts...)
}

// request is a chat call as a client makes it.
type request struct {
	model  string // "m" when empty
	key    string // sent as a bearer token when set
	stream bool
	stops  any // the stop sequences: a list, or for OpenAI one string
}

// response is what a chat call got back.
type response struct {
	status int
	text   string // the reply put together, or the body of an error
	pieces int    // the messages or events the reply came in
	tokens int    // the completion tokens the server counted
	done   bool   // whether the stream ended as the protocol says
}

// chat makes a chat call to srv in its dialect and reads the answer, plain
// or streamed.
func chat(t *testing.T, srv *modeltest.Server, dialect string, r request) (response, error) {
	t.Helper()
	if r.model == "" {
		r.model = "m"
	}
	body := map[string]any{"model": r.model, "stream": r.stream,
		"messages": []any{map[string]any{"role": "user", "content": "q"}}}
	path := "/v1/chat/completions"
	if dialect == "ollama" {
		path = "/api/chat"
		body["options"] = map[string]any{"stop": r.stops, "temperature": 0.2}
	} else {
		body["stop"] = r.stops
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		b, err := io.ReadAll(resp.Body)
		out.text = string(b)
		return out, err
	}
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if dialect == "ollama" {
			var m struct {
				Message   struct{ Content string }
				Done      bool
				EvalCount int `json:"eval_count"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			text.WriteString(m.Message.Content)
			out.pieces++
			out.done, out.tokens = m.Done, m.EvalCount
			continue
		}
		if !r.stream {
			var m struct {
				Choices []struct{ Message struct{ Content string } }
				Usage   struct {
					CompletionTokens int `json:"completion_tokens"`
				}
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || len(m.Choices) != 1 {
				t.Fatalf("%q: %v", line, err)
			}
			text.WriteString(m.Choices[0].Message.Content)
			out.pieces, out.tokens, out.done = 1, m.Usage.CompletionTokens, true
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			out.done = true
			continue
		}
		var m struct {
			Choices []struct{ Delta struct{ Content string } }
			Usage   *struct {
				CompletionTokens int `json:"completion_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		for _, c := range m.Choices {
			text.WriteString(c.Delta.Content)
		}
		if m.Usage != nil {
			out.tokens = m.Usage.CompletionTokens
		}
		out.pieces++
	}
	out.text = text.String()
	return out, sc.Err()
}

func TestProtocols(t *testing.T) {
	tests := []struct {
		name       string
		dialect    string
		req        request
		wantPieces int // at least
	}{
		{name: "Ollama streams NDJSON by default and ends with a done message", dialect: "ollama",
			req: request{stream: true, stops: []string{stop}}, wantPieces: 3},
		{name: "Ollama answers in one message when told not to stream", dialect: "ollama",
			req: request{stops: []string{stop}}, wantPieces: 1},
		{name: "OpenAI answers in one JSON object", dialect: "openai",
			req: request{stops: []string{stop}}, wantPieces: 1},
		{name: "OpenAI streams server-sent events, a usage chunk and [DONE]", dialect: "openai",
			req: request{stream: true, stops: []string{stop}}, wantPieces: 4},
		{name: "OpenAI takes one stop sequence as a string", dialect: "openai",
			req: request{stops: stop}, wantPieces: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(tt.dialect, script)
			defer srv.Close()
			got, err := chat(t, srv, tt.dialect, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want := "Thought: one\nAction: add"
			if got.status != http.StatusOK || got.text != want {
				t.Errorf("got %d %q, want 200 %q", got.status, got.text, want)
			}
			tokens := 20
			if got.pieces < tt.wantPieces || !got.done || got.tokens != tokens {
				t.Errorf("the reply came in %d pieces (want %d or more), done %v, with %d tokens (want %d)",
					got.pieces, tt.wantPieces, got.done, got.tokens, tokens)
			}
		})
	}
}

func TestScript(t *testing.T) {
	first, second := "Thought: one\nAction: add", "Final Answer: two"
	type call struct {
		model      string // "m" when empty
		key        string
		wantStatus int    // 200 when zero
		want       string // the reply, or a part of the error body
	}
	tests := []struct {
		name    string
		dialect string
		replies []string
		opts    []modeltest.Option
		calls   []call
	}{
		{name: "Ollama answers the replies in order, then the out-of-script answer", dialect: "ollama",
			replies: script, calls: []call{{want: first}, {want: second}, {want: modeltest.OutOfScript}}},
		{name: "OpenAI answers the replies in order, then the out-of-script answer", dialect: "openai",
			replies: script, calls: []call{{want: first}, {want: second}, {want: modeltest.OutOfScript}}},
		{name: "an empty script gives the out-of-script answer", dialect: "ollama",
			calls: []call{{want: modeltest.OutOfScript}}},
		{name: "an empty script repeated gives the out-of-script answer", dialect: "openai",
			opts: []modeltest.Option{modeltest.Repeat()}, calls: []call{{want: modeltest.OutOfScript}}},
		{name: "Ollama: a failed call uses up no reply", dialect: "ollama",
			replies: script, opts: []modeltest.Option{modeltest.Fail(2, 503)},
			calls: []call{{want: first}, {wantStatus: 503, want: `{"error":"server busy`}, {want: second}}},
		{name: "OpenAI: failed calls use up no reply", dialect: "openai",
			replies: script, opts: []modeltest.Option{modeltest.Fail(1, 429), modeltest.Fail(2, 500)},
			calls: []call{{wantStatus: 429, want: `"code":"rate_limit_exceeded"`},
				{wantStatus: 500, want: `"type":"server_error"`}, {want: first}, {want: second}}},
		{name: "Ollama: Repeat starts again from the first reply", dialect: "ollama",
			replies: script, opts: []modeltest.Option{modeltest.Repeat()},
			calls: []call{{want: first}, {want: second}, {want: first}, {want: second}}},
		{name: "OpenAI: Repeat starts again from the first reply", dialect: "openai",
			replies: script, opts: []modeltest.Option{modeltest.Repeat()},
			calls: []call{{want: first}, {want: second}, {want: first}}},
		{name: "Ollama: another model gets a 404 that says it is not found, and uses up no reply", dialect: "ollama",
			replies: script, opts: []modeltest.Option{modeltest.Model("qwen2.5:7b")},
			calls: []call{{model: "llama3:8b", wantStatus: 404, want: `model 'llama3:8b' not found`},
				{model: "qwen2.5:7b", want: first}}},
		{name: "OpenAI: another model gets a 404 that says it does not exist", dialect: "openai",
			replies: script, opts: []modeltest.Option{modeltest.Model("gpt-4o-mini")},
			calls: []call{{model: "gpt-x", wantStatus: 404, want: `"code":"model_not_found"`},
				{model: "gpt-4o-mini", want: first}}},
		{name: "OpenAI: APIKey turns away calls without the key or with another", dialect: "openai",
			replies: script, opts: []modeltest.Option{modeltest.APIKey("sk-test")},
			calls: []call{{wantStatus: 401, want: "Incorrect API key provided"},
				{key: "sk-wrong", wantStatus: 401, want: `"code":"invalid_api_key"`}, {key: "sk-test", want: first}}},
		{name: "OpenAI: without APIKey any key or none will do", dialect: "openai",
			replies: script, calls: []call{{want: first}, {key: "sk-anything", want: second}}},
		{name: "Ollama: APIKey is ignored, as Ollama has no keys", dialect: "ollama",
			replies: script, opts: []modeltest.Option{modeltest.APIKey("sk-test")}, calls: []call{{want: first}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(tt.dialect, tt.replies, tt.opts...)
			defer srv.Close()
			for i, c := range tt.calls {
				got, err := chat(t, srv, tt.dialect,
					request{model: c.model, key: c.key, stops: []string{stop}})
				if err != nil {
					t.Fatal(err)
				}
				wantStatus := c.wantStatus
				if wantStatus == 0 {
					wantStatus = http.StatusOK
				}
				if got.status != wantStatus {
					t.Fatalf("call %d: got %d %q, want %d", i+1, got.status, got.text, wantStatus)
				}
				if wantStatus == http.StatusOK && got.text != c.want ||
					wantStatus != http.StatusOK && !strings.Contains(got.text, c.want) {
					t.Errorf("call %d: got %q, want %q", i+1, got.text, c.want)
				}
				model := c.model
				if model == "" {
					model = "m"
				}
				if m := srv.Request(i)["model"]; m != model {
					t.Errorf("Request(%d) has model %v, want %q", i, m, model)
				}
			}
			if got := srv.Calls(); got != len(tt.calls) {
				t.Errorf("Calls() = %d, want %d", got, len(tt.calls))
			}
			if r := srv.Request(len(tt.calls)); r != nil {
				t.Errorf("Request(%d) = %v for a call never made, want nil", len(tt.calls), r)
			}
		})
	}
}

// errAnswered says that a hanging server answered after all.
var errAnswered = errors.New("the server answered")

func TestHang(t *testing.T) {
	tests := []struct {
		name    string
		dialect string
		close   bool // release the call by closing the server, not by cancelling it
	}{
		{name: "an Ollama call returns when the client gives up", dialect: "ollama"},
		{name: "an OpenAI call returns when the client gives up", dialect: "openai"},
		{name: "an Ollama call returns when the server is closed", dialect: "ollama", close: true},
		{name: "an OpenAI call returns when the server is closed", dialect: "openai", close: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(tt.dialect, script, modeltest.Hang())
			defer srv.Close()
			ctx := context.Background()
			if !tt.close {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
			}
			done := make(chan error, 1)
			began := time.Now()
			path := "/v1/chat/completions"
			if tt.dialect == "ollama" {
				path = "/api/chat"
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path, strings.NewReader(`{"model": "m"}`))
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				resp, err := srv.Client().Do(req)
				if err == nil {
					resp.Body.Close()
					err = fmt.Errorf("%w %s", errAnswered, resp.Status)
				}
				done <- err
			}()
			if tt.close {
				for srv.Calls() == 0 {
					time.Sleep(time.Millisecond)
				}
				srv.Close()
			}
			select {
			case err := <-done:
				if !tt.close && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("the call ended with %v, want the client's deadline", err)
				}
				if tt.close && (err == nil || errors.Is(err, errAnswered)) {
					t.Errorf("the call ended with %v, want the connection dropped", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call still hangs after 5s")
			}
			if d := time.Since(began); d > 2*time.Second {
				t.Errorf("the call took %s", d)
			}
			if got := srv.Calls(); got != 1 {
				t.Errorf("Calls() = %d, want 1", got)
			}
		})
	}
}

func TestOtherEndpoints(t *testing.T) {
	tests := []struct {
		name       string
		dialect    string
		opts       []modeltest.Option
		method     string
		path       string
		key        string
		wantStatus int
		want       string
	}{
		{name: "Ollama says it is running", dialect: "ollama",
			method: "GET", path: "/", wantStatus: 200, want: "Ollama is running"},
		{name: "Ollama lists the model it knows", dialect: "ollama", opts: []modeltest.Option{modeltest.Model("qwen2.5:7b")},
			method: "GET", path: "/api/tags", wantStatus: 200, want: `"name":"qwen2.5:7b"`},
		{name: "Ollama that accepts any model lists none", dialect: "ollama",
			method: "GET", path: "/api/tags", wantStatus: 200, want: `{"models":[]}`},
		{name: "Ollama's chat takes only POST", dialect: "ollama",
			method: "GET", path: "/api/chat", wantStatus: 405},
		{name: "Ollama knows no other path", dialect: "ollama",
			method: "POST", path: "/api/generate", wantStatus: 404, want: "404 page not found"},
		{name: "OpenAI lists the model it knows", dialect: "openai", opts: []modeltest.Option{modeltest.Model("gpt-4o-mini")},
			method: "GET", path: "/v1/models", wantStatus: 200, want: `"id":"gpt-4o-mini"`},
		{name: "OpenAI lists models only for the right key", dialect: "openai", opts: []modeltest.Option{modeltest.APIKey("sk-test")},
			method: "GET", path: "/v1/models", key: "sk-wrong", wantStatus: 401, want: "Incorrect API key"},
		{name: "OpenAI answers a bad body with a 400", dialect: "openai",
			method: "POST", path: "/v1/chat/completions", wantStatus: 400, want: `"type":"invalid_request_error"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(tt.dialect, script, tt.opts...)
			defer srv.Close()
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader("{not json"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.key != "" {
				req.Header.Set("Authorization", "Bearer "+tt.key)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantStatus || !strings.Contains(string(b), tt.want) {
				t.Errorf("got %d %q, want %d with %q", resp.StatusCode, b, tt.wantStatus, tt.want)
			}
			if got := srv.Calls(); got != 0 {
				t.Errorf("Calls() = %d, want 0: these are not chat calls", got)
			}
		})
	}
}

func TestFailPanicsOnNonsense(t *testing.T) {
	tests := []struct {
		name         string
		call, status int
	}{
		{name: "calls count from 1", call: 0, status: 503},
		{name: "a failure has an error status", call: 1, status: 200},
		{name: "a failure has an HTTP status", call: 1, status: 700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Fail(%d, %d) did not panic", tt.call, tt.status)
				}
			}()
			modeltest.Fail(tt.call, tt.status)
		})
	}
}

func TestLoadReplies(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		file    string // a path, or the content of a file to write when it starts with "{"
		want    int    // the replies
		wantErr string
		wantIs  error
	}{
		{name: "a script gives its replies in order", file: `{"note": "n", "replies": ["a", "b", "c"]}`, want: 3},
		{name: "the two-step fixture loads", file: "../../testdata/agent/server/two_steps.json", want: 2},
		{name: "the calculator fixture loads", file: "../../testdata/agent/server/calculator.json", want: 2},
		{name: "a missing file is an error that names it", file: "../../testdata/agent/server/nope.json",
			wantErr: "nope.json", wantIs: fs.ErrNotExist},
		{name: "a script with an empty list of replies is an error", file: `{"note": "n", "replies": []}`,
			wantErr: "no replies"},
		{name: "a script without replies is an error", file: `{"note": "n"}`, wantErr: "no replies"},
		{name: "a misspelt field is an error", file: `{"reply": ["a"]}`, wantErr: `unknown field "reply"`},
		{name: "a file that is not JSON is an error", file: `{"replies": [`, wantErr: "unexpected EOF"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.file
			if strings.HasPrefix(tt.file, "{") {
				path = filepath.Join(dir, fmt.Sprintf("script%d.json", i))
				if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := modeltest.LoadReplies(path)
			if tt.wantErr == "" {
				if err != nil || len(got) != tt.want {
					t.Fatalf("got %d replies, %v; want %d", len(got), err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error = %v, want one naming %s and saying %q", err, path, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error = %v, want one that is %v", err, tt.wantIs)
			}
		})
	}
}

// TestPieces streams a reply in pieces of the size asked for, on
// character boundaries, in both dialects.
func TestPieces(t *testing.T) {
	reply := "Final Answer: déjà vu" // 23 bytes, two of two-byte letters
	for _, dialect := range []string{"ollama", "openai"} {
		for _, size := range []int{1, 4, 100} {
			t.Run(fmt.Sprintf("%s, %d bytes", dialect, size), func(t *testing.T) {
				srv := start(dialect, []string{reply}, modeltest.Pieces(size))
				defer srv.Close()
				got, err := chat(t, srv, dialect, request{stream: true})
				if err != nil {
					t.Fatal(err)
				}
				if got.text != reply {
					t.Errorf("got %q, want %q", got.text, reply)
				}
				// A piece ends on a character boundary: one may be a byte
				// longer than the size, and the text comes whole (JSON would
				// have spoilt a character cut in two).
				least, most := (len(reply)+size)/(size+1), (len(reply)+size-1)/size
				if sent := srv.Sent(0); sent < least || sent > most {
					t.Errorf("the server sent %d pieces, want %d to %d", sent, least, most)
				}
			})
		}
	}
}
