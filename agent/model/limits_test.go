package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// llamacppRoutes are the endpoints of a recorded llama-server, with
// completion answering /completion.
func llamacppRoutes(completion string) map[string]string {
	return map[string]string{
		"POST /apply-template": "llamacpp-b8355/apply-template",
		"GET /props":           "llamacpp-b8355/props-notools",
		"POST /completion":     "llamacpp-b8355/" + completion,
	}
}

func ask(t *testing.T, cfg Config) (*llms.ContentResponse, error) {
	t.Helper()
	m, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
		llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
}

func TestAReplyCutAtTheTokenLimitSaysSo(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		routes   map[string]string
		path     string
		want     string
	}{
		// llama-server -c 131072, then /completion with n_predict 5:
		// stop_type "limit" and "Thoue".
		{"llama.cpp's /completion", "llamacpp", llamacppRoutes("completion-stream-limit"), "", "Thoue"},
		// /v1/chat/completions with max_tokens 5: finish_reason "length".
		{"llama.cpp's /v1", "openai", map[string]string{"POST /v1/chat/completions": "llamacpp-b8355/v1-stream-limit"}, "/v1", "Thoue"},
		// Ollama's /api/chat with num_predict 5: done_reason "length".
		{"Ollama's /api/chat", "ollama", map[string]string{"POST /api/chat": "ollama-v0.24.0/chat-limit"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveRecorded(t, tt.routes)
			resp, err := ask(t, Config{Provider: tt.provider, BaseURL: srv.URL + tt.path, Model: "tiny", IdleTimeout: quick})
			if err != nil {
				t.Fatal(err)
			}
			c := resp.Choices[0]
			if !AtTokenLimit(c.StopReason) || (tt.want != "" && c.Content != tt.want) {
				t.Errorf("reply %q, stop reason %q: not a reply cut at the token limit", c.Content, c.StopReason)
			}
		})
	}
}

func TestEveryCallBoundsTheReply(t *testing.T) {
	type bound struct {
		field string // the field of the request that bounds the reply, as a path
		none  []string
	}
	tests := []struct {
		name     string
		provider string
		routes   map[string]string
		base     string // the base URL, when not the server's
		path     string
		route    string
		bound    bound
	}{
		{"llama.cpp's /completion", "llamacpp", llamacppRoutes("completion-stream-limit"), "", "", "POST /completion",
			bound{"n_predict", nil}},
		{"Ollama's /api/chat", "ollama", map[string]string{"POST /api/chat": "ollama-v0.24.0/chat-limit"}, "", "", "POST /api/chat",
			bound{"options.num_predict", nil}},
		{"an OpenAI-compatible server", "openai", map[string]string{"POST /v1/chat/completions": "llamacpp-b8355/v1-stream-limit"}, "", "/v1",
			"POST /v1/chat/completions", bound{"max_tokens", []string{"max_completion_tokens"}}},
		{"OpenAI's own API", "openai", map[string]string{"POST /v1/chat/completions": "llamacpp-b8355/v1-stream-limit"}, "https://api.openai.com/v1", "",
			"POST /v1/chat/completions", bound{"max_completion_tokens", []string{"max_tokens"}}},
	}
	for _, tt := range tests {
		for _, max := range []int{0, 100, -1} {
			t.Run(fmt.Sprintf("%s, MaxTokens %d", tt.name, max), func(t *testing.T) {
				srv := serveRecorded(t, tt.routes)
				cfg := Config{Provider: tt.provider, BaseURL: srv.URL + tt.path, Model: "tiny", MaxTokens: max, APIKey: "k", IdleTimeout: quick}
				if tt.base != "" {
					cfg.BaseURL = tt.base
					cfg.HTTPClient = &http.Client{Transport: to(srv.URL)}
				}
				if _, err := ask(t, cfg); err != nil {
					t.Fatal(err)
				}
				var body map[string]any
				if err := json.Unmarshal([]byte(srv.requests(tt.route)[0]), &body); err != nil {
					t.Fatal(err)
				}
				want := map[int]any{0: float64(DefaultMaxTokens), 100: 100.0, -1: nil}[max]
				if got := field(body, tt.bound.field); got != want {
					t.Errorf("%s is %v, want %v: %v", tt.bound.field, got, want, body)
				}
				for _, f := range tt.bound.none {
					if got := field(body, f); got != nil {
						t.Errorf("%s is sent too: %v", f, got)
					}
				}
			})
		}
	}
}

// field returns the value at a dotted path of a JSON object, or nil.
func field(v map[string]any, path string) any {
	var cur any = v
	for _, k := range strings.Split(path, ".") {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	return cur
}

// to is a transport that sends every request to the server at base
// instead.
type to string

func (base to) RoundTrip(req *http.Request) (*http.Response, error) {
	u, _ := url.Parse(string(base))
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = u.Scheme, u.Host
	return http.DefaultTransport.RoundTrip(req)
}
