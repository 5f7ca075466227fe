package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer speaks the wire protocol of Ollama (/api/chat, NDJSON
// streaming) or OpenAI (/v1/chat/completions, plain and SSE), answering
// with scripted replies in order and honouring stop sequences as real
// servers do, so that the real langchaingo clients can be tested offline.
type fakeServer struct {
	t       *testing.T
	model   string
	replies []string
	// status, when set for a call number (from 1), fails that call.
	status map[int]int
	// hang makes every call wait until the client gives up.
	hang bool

	mu       sync.Mutex
	calls    int
	requests []map[string]any
}

func (s *fakeServer) next(req map[string]any) (n int, reply string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.requests = append(s.requests, req)
	if s.calls > len(s.replies)+len(s.status) {
		return s.calls, final("out of script")
	}
	failed := 0
	for c := range s.status {
		if c < s.calls {
			failed++
		}
	}
	return s.calls, s.replies[s.calls-1-failed]
}

func (s *fakeServer) request(n int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[n]
}

func stopsOf(v any) []string {
	var out []string
	if list, ok := v.([]any); ok {
		for _, s := range list {
			out = append(out, s.(string))
		}
	}
	return out
}

// receive reads a chat request sent to path and returns it with its call
// number and scripted reply. ok is false when the request was answered
// already: a wrong path, a bad body, or a hanging server whose client gave up.
func (s *fakeServer) receive(w http.ResponseWriter, r *http.Request, path string) (req map[string]any, n int, reply string, ok bool) {
	if r.URL.Path != path {
		http.NotFound(w, r)
		return nil, 0, "", false
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, 0, "", false
	}
	n, reply = s.next(req)
	if s.hang {
		<-r.Context().Done()
		return nil, 0, "", false
	}
	return req, n, reply, true
}

func (s *fakeServer) ollama() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, n, reply, ok := s.receive(w, r, "/api/chat")
		if !ok {
			return
		}
		if code := s.status[n]; code != 0 {
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":"server busy (%d)"}`, code)
			return
		}
		if req["model"] != s.model {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":"model %q not found, try pulling it first"}`, req["model"])
			return
		}
		opts, _ := req["options"].(map[string]any)
		reply = stopAt(reply, stopsOf(opts["stop"]))
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(w)
		stream, ok := req["stream"].(bool)
		if !ok || stream { // Ollama streams unless told not to
			for _, c := range chunks(reply) {
				enc.Encode(map[string]any{"model": s.model, "created_at": time.Now(), "done": false,
					"message": map[string]any{"role": "assistant", "content": c}})
				w.(http.Flusher).Flush()
			}
			reply = ""
		}
		enc.Encode(map[string]any{"model": s.model, "created_at": time.Now(), "done": true, "done_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply}, "prompt_eval_count": 100, "eval_count": 20})
	}))
}

func (s *fakeServer) openai() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, n, reply, ok := s.receive(w, r, "/v1/chat/completions")
		if !ok {
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided"}}`)
			return
		}
		if code := s.status[n]; code != 0 {
			w.WriteHeader(code)
			fmt.Fprint(w, `{"error":{"message":"The server is overloaded"}}`)
			return
		}
		if req["model"] != s.model {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"message":"The model %q does not exist"}}`, req["model"])
			return
		}
		reply = stopAt(reply, stopsOf(req["stop"]))
		usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
		if stream, _ := req["stream"].(bool); !stream {
			json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "model": s.model,
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": reply}}},
				"usage": usage})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		for _, c := range chunks(reply) {
			send(map[string]any{"id": "c1", "object": "chat.completion.chunk",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": c}}}})
		}
		send(map[string]any{"id": "c1", "object": "chat.completion.chunk",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
		send(map[string]any{"id": "c1", "object": "chat.completion.chunk", "choices": []any{}, "usage": usage})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

// The script of a two-step run; the first reply goes on past its action,
// as models do, and the server's stop sequences must cut it.
// twoSteps loads the scripted replies of a two-step run from testdata.
func twoSteps(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../testdata/agent/server/two_steps.json")
	if err != nil {
		t.Fatal(err)
	}
	var script struct{ Replies []string }
	if err := json.Unmarshal(data, &script); err != nil || len(script.Replies) == 0 {
		t.Fatalf("two_steps.json: %v (%d replies)", err, len(script.Replies))
	}
	return script.Replies
}

func TestOllamaServer(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			s := &fakeServer{t: t, model: "qwen2.5:7b", replies: twoSteps(t)}
			srv := s.ollama()
			defer srv.Close()
			m, err := NewModel(context.Background(), ModelConfig{Provider: "ollama", BaseURL: srv.URL, Temperature: 0.2})
			if err != nil {
				t.Fatal(err)
			}
			var opts []Option
			var streamed strings.Builder
			if streaming {
				opts = append(opts, WithStreaming(func(c string) { streamed.WriteString(c) }))
			}
			res, err := New(m, registry(t), opts...).Run(context.Background(), "What is 17 + 25?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "17 + 25 = 42" || res.Steps[0].Observation != "42" {
				t.Errorf("answer %q, first observation %q", res.Answer, res.Steps[0].Observation)
			}
			if res.Usage.PromptTokens != 200 || res.Usage.CompletionTokens != 40 {
				t.Errorf("usage %+v", res.Usage)
			}
			opts0 := s.request(0)["options"].(map[string]any)
			if opts0["num_ctx"] != 8192.0 || opts0["temperature"] != 0.2 || len(stopsOf(opts0["stop"])) != 4 {
				t.Errorf("the request options are %v; want num_ctx 8192, temperature 0.2 and the stop sequences", opts0)
			}
			if streaming && !strings.Contains(streamed.String(), "Action Input") {
				t.Errorf("streamed %q", streamed.String())
			}
		})
	}
}

func TestOpenAIServer(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			s := &fakeServer{t: t, model: "local-model", replies: twoSteps(t)}
			srv := s.openai()
			defer srv.Close()
			m, err := NewModel(context.Background(), ModelConfig{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test", Model: "local-model"})
			if err != nil {
				t.Fatal(err)
			}
			var opts []Option
			if streaming {
				opts = append(opts, WithStreaming(func(string) {}))
			}
			res, err := New(m, registry(t), opts...).Run(context.Background(), "What is 17 + 25?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "17 + 25 = 42" || res.Steps[0].Observation != "42" || res.Usage.TotalTokens != 240 {
				t.Errorf("answer %q, first observation %q, usage %+v", res.Answer, res.Steps[0].Observation, res.Usage)
			}
			if got := stopsOf(s.request(0)["stop"]); len(got) != 4 {
				t.Errorf("stop = %q", got)
			}
		})
	}
}

func TestServerFailures(t *testing.T) {
	tests := []struct {
		name      string
		provider  string
		server    *fakeServer
		cfg       ModelConfig
		wantCalls int
		wantErr   string
	}{
		{name: "ollama: a 503 is retried", provider: "ollama",
			server:    &fakeServer{model: "qwen2.5:7b", replies: []string{final("ok")}, status: map[int]int{1: 503, 2: 503}},
			wantCalls: 3},
		{name: "ollama: an unknown model says to pull it", provider: "ollama",
			server: &fakeServer{model: "qwen2.5:7b", replies: []string{final("ok")}}, cfg: ModelConfig{Model: "nope:1b"},
			wantCalls: 1, wantErr: "run `ollama pull nope:1b`"},
		{name: "openai: a 503 is retried", provider: "openai",
			server: &fakeServer{model: "m", replies: []string{final("ok")}, status: map[int]int{1: 503}},
			cfg:    ModelConfig{Model: "m", APIKey: "sk-test"}, wantCalls: 2},
		{name: "openai: an unknown model is not retried", provider: "openai",
			server: &fakeServer{model: "m", replies: []string{final("ok")}}, cfg: ModelConfig{Model: "gpt-x", APIKey: "sk-test"},
			wantCalls: 1, wantErr: "has no model \"gpt-x\""},
		{name: "openai: a bad key says which variable to set", provider: "openai",
			server: &fakeServer{model: "m", replies: []string{final("ok")}}, cfg: ModelConfig{Model: "m", APIKey: "wrong"},
			wantCalls: 1, wantErr: "OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.server
			s.t = t
			var srv *httptest.Server
			if tt.provider == "ollama" {
				srv = s.ollama()
			} else {
				srv = s.openai()
			}
			defer srv.Close()
			cfg := tt.cfg
			cfg.Provider, cfg.BaseURL = tt.provider, srv.URL
			m, err := NewModel(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(m, registry(t), fastRetries()).Run(context.Background(), "q")
			if s.calls != tt.wantCalls {
				t.Errorf("the server got %d calls, want %d", s.calls, tt.wantCalls)
			}
			if tt.wantErr == "" {
				if err != nil || res.Answer != "ok" {
					t.Fatalf("got %v, %q", err, res.Answer)
				}
				return
			}
			var me *ModelError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &me) {
				t.Fatalf("error = %v, want a *ModelError mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	m, err := NewModel(context.Background(), ModelConfig{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	var retries int
	_, err = New(m, registry(t), fastRetries(), WithEvents(func(e Event) {
		if e.Kind == EventWarning {
			retries++
		}
	})).Run(context.Background(), "q")
	if err == nil || !strings.Contains(err.Error(), "ollama serve") || retries != 3 {
		t.Fatalf("error = %v after %d retries; want one saying to start Ollama after 3", err, retries)
	}
}

func TestHangingServer(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			s := &fakeServer{t: t, model: "m", hang: true}
			var srv *httptest.Server
			if provider == "ollama" {
				srv = s.ollama()
			} else {
				srv = s.openai()
			}
			defer srv.Close()
			m, err := NewModel(context.Background(), ModelConfig{Provider: provider, BaseURL: srv.URL, Model: "m", APIKey: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := New(m, registry(t), fastRetries(), WithTimeout(100*time.Millisecond),
				WithGracePeriod(100*time.Millisecond)).Run(context.Background(), "q")
			if err == nil || res.StopReason != StopTimeout {
				t.Fatalf("got %v, %s; want a timeout", err, res.StopReason)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the run took %s", d)
			}
		})
	}
}
