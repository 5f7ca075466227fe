package model

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// The recorded Ollama serves a model whose /api/show says
// "llama.context_length": 8192.

func TestOllamaIsAskedNeitherToCutAPromptNorToShiftTheWindow(t *testing.T) {
	srv := serveRecorded(t, map[string]string{
		"POST /api/show": "ollama-v0.24.0/show",
		"POST /api/chat": "ollama-v0.24.0/chat-limit",
	})
	m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: "tiny", NumCtx: 32768, IdleTimeout: quick})
	if err != nil {
		t.Fatal(err)
	}
	if w := m.(interface{ ContextWindow() int }).ContextWindow(); w != 8192 {
		t.Errorf("the context window is %d, want the 8192 the model takes, not the 32768 asked", w)
	}
	if _, err := ask2(m); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	json.Unmarshal([]byte(srv.requests("POST /api/chat")[0]), &body)
	if body["truncate"] != false || body["shift"] != false || field(body, "options.num_ctx") != 8192.0 {
		t.Errorf("truncate %v, shift %v, num_ctx %v", body["truncate"], body["shift"], field(body, "options.num_ctx"))
	}
}

func TestAPromptOllamaCutIsNeverSilent(t *testing.T) {
	// num_ctx 1024 and a prompt of 4258 tokens: Ollama's log says
	// "truncating input prompt limit=1024 prompt=4258 keep=5 new=1024",
	// and its reply says prompt_eval_count 1024 and nothing more.
	t.Run("where the window cannot grow, an error", func(t *testing.T) {
		srv := serveRecorded(t, map[string]string{"POST /api/chat": "ollama-v0.24.0/chat-cut"})
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: "tiny", NumCtx: 1024, IdleTimeout: quick})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ask2(m)
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.ContextTokens != 1024 || me.Fix != SettingNumCtx ||
			!strings.Contains(err.Error(), "cut the prompt to the 1024 tokens of its context window") {
			t.Fatalf("error %v", err)
		}
		if n := len(srv.requests("POST /api/chat")); n != 1 {
			t.Errorf("%d calls, want 1: a window asked for is the largest", n)
		}
	})
	t.Run("an explicit window is the largest, though the model takes more", func(t *testing.T) {
		srv := serveRecorded(t, map[string]string{
			"POST /api/show": "ollama-v0.24.0/show",
			"POST /api/chat": "ollama-v0.24.0/chat-toolong,ollama-v0.24.0/chat-limit",
		})
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: "tiny", NumCtx: 1024, IdleTimeout: quick})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ask2(m)
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.Fix != SettingNumCtx || !strings.Contains(me.Detail, "takes up to 8192") {
			t.Fatalf("error %v", err)
		}
		if n := len(srv.requests("POST /api/chat")); n != 1 {
			t.Errorf("%d calls, want 1: the window grew past the 1024 asked", n)
		}
	})
	t.Run("the OpenAI-compatible endpoint, under the openai provider", func(t *testing.T) {
		// The model loaded with the server's own 4096 tokens, and
		// usage.prompt_tokens 4096; every chunk says "fp_ollama".
		srv := serveRecorded(t, map[string]string{
			"GET /api/ps":               "ollama-v0.24.0/ps",
			"POST /v1/chat/completions": "ollama-v0.24.0/v1-cut",
		})
		m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "tiny", IdleTimeout: quick})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ask2(m)
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.ContextTokens != 4096 || !strings.Contains(me.Hint, "OLLAMA_CONTEXT_LENGTH") {
			t.Fatalf("error %v", err)
		}
	})
}

func ask2(m llms.Model) (*llms.ContentResponse, error) {
	return m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
		llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
}

func TestResolvingAConfigAsksTheServerNothing(t *testing.T) {
	for _, provider := range []string{"ollama", "llamacpp"} {
		srv := serveRecorded(t, map[string]string{"POST /api/show": "ollama-v0.24.0/show", "GET /props": "llamacpp-b8355/props-notools"})
		if _, err := Resolve(Config{Provider: provider, BaseURL: srv.URL, Getenv: os.Getenv}); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.requests("POST /api/show")) + len(srv.requests("GET /props")); n != 0 {
			t.Errorf("%s: resolving the config asked the server %d times", provider, n)
		}
	}
}

// TestALlamaServerTakenForOllamaIsToldAtOnce talks to the answers a real
// llama-server gives Ollama's /api/chat, an OpenAI-compatible event stream
// (or a chat.completion, not streamed), under the ollama provider: the
// first call fails at once, not to be made again, saying that the server
// is not Ollama and which provider fits it, rather than taking the stream
// for empty replies, three parse errors of 20 seconds each.
func TestALlamaServerTakenForOllamaIsToldAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name, chat, props, fits string
	}{
		{"a llama-server, streamed", "llamacpp-b8355/api-chat-stream", "llamacpp-b8355/props-tools", "llamacpp"},
		{"a llama-server, not streamed", "llamacpp-b8355/api-chat", "llamacpp-b8355/props-tools", "llamacpp"},
		{"another OpenAI-compatible server", "llamacpp-b8355/api-chat-stream", "", "openai"},
		{"a llama-server that refuses the prompt as too long", "llamacpp-b8355/v1-overflow", "llamacpp-b8355/props-tools", "llamacpp"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			routes := map[string]string{"POST /api/chat": tt.chat}
			if tt.props != "" {
				routes["GET /props"] = tt.props
			}
			srv := serveRecorded(t, routes)
			m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: "tiny", IdleTimeout: quick})
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}}
			if strings.HasSuffix(tt.chat, "-stream") {
				req.OnText = func(context.Context, []byte) error { return nil }
			}
			_, err = m.(Generator).Generate(context.Background(), req)
			var me *Error
			if !errors.As(err, &me) || !errors.Is(err, ErrWrongServer) || errors.Is(err, ErrContextOverflow) || me.Temporary || me.Fix != SettingProvider ||
				me.Fitting != tt.fits {
				t.Fatalf("error %v (%+v): want ErrWrongServer, not to be retried, whose fix is the provider, and the %s provider fits", err, me, tt.fits)
			}
			if msg := err.Error(); !strings.Contains(msg, "the server at "+srv.URL+" is not Ollama") || !strings.Contains(msg, "the "+tt.fits+" provider fits it") {
				t.Errorf("message %q: want it to say the server is not Ollama, and which provider fits", msg)
			}
		})
	}
}
