package model_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// The clients attacked as a hostile server would: what it sends is never
// a reply unless it is one, and every call ends soon, within its bounds.

// hostile serves handler at every path, as a server of provider.
func hostile(t *testing.T, provider string, handler http.HandlerFunc) (model.Config, func() int) {
	t.Helper()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/apply-template":
			fmt.Fprint(w, `{"prompt": "hi\n"}`)
			return
		case "/api/chat", "/v1/chat/completions", "/completion":
			mu.Lock()
			calls++
			mu.Unlock()
		}
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := model.Config{Provider: provider, BaseURL: srv.URL, Model: "m", APIKey: "k", IdleTimeout: 2 * time.Second, MaxReplyBytes: 1 << 20}
	if provider == "openai" {
		cfg.BaseURL += "/v1"
	}
	return cfg, func() int { mu.Lock(); defer mu.Unlock(); return calls }
}

// call makes a streamed call, and fails the test if it takes long.
func call(t *testing.T, cfg model.Config) (*llms.ContentResponse, error) {
	t.Helper()
	m, err := model.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
		llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the call took %s", took)
	}
	return resp, err
}

var providers = []string{"ollama", "openai", "llamacpp"}

func TestWhatIsNoReplyInTheProtocolIsAnError(t *testing.T) {
	tests := []struct {
		name, media, body string
	}{
		{"a line of a stream that is no JSON", "", "{\"half\": \n"},
		{"an HTML page", "text/html", "<html><body>It works!</body></html>"},
		{"an empty body", "application/json", ""},
	}
	for _, provider := range providers {
		for _, tt := range tests {
			t.Run(provider+": "+tt.name, func(t *testing.T) {
				cfg, calls := hostile(t, provider, func(w http.ResponseWriter, r *http.Request) {
					media := tt.media
					if media == "" {
						media = map[string]string{"ollama": "application/x-ndjson", "openai": "text/event-stream", "llamacpp": "text/event-stream"}[provider]
						if provider != "ollama" {
							tt.body = "data: " + tt.body
						}
					}
					w.Header().Set("Content-Type", media)
					fmt.Fprint(w, tt.body)
				})
				resp, err := call(t, cfg)
				var me *model.Error
				if !errors.As(err, &me) || me.Temporary || resp != nil {
					t.Fatalf("reply %v, error %v: want an error not to retry", resp, err)
				}
				if !errors.Is(err, model.ErrMalformed) && !errors.Is(err, model.ErrIncomplete) {
					t.Errorf("error %v, want ErrMalformed", err)
				}
				if calls() != 1 {
					t.Errorf("%d calls", calls())
				}
			})
		}
	}
}

func TestARedirectLoopEndsSoon(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			cfg, calls := hostile(t, provider, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
			})
			_, err := call(t, cfg)
			if err == nil || !strings.Contains(err.Error(), "redirected") || calls() > 4 {
				t.Errorf("error %v after %d calls", err, calls())
			}
		})
	}
}

// TestAModelCallIsNotRedirectedToAnotherServer has a server answer a
// call with a 307 to another port of the same host, which Go's client
// follows with the key, as it compares host names only. Now the call is
// not made there, and its error says where it was sent and what to do; a
// redirect within the server is followed, with the key.
func TestAModelCallIsNotRedirectedToAnotherServer(t *testing.T) {
	t.Parallel()
	const key = "sk-only-for-the-first-server"
	other := modeltest.NewOpenAI([]string{"Thought: done\nFinal Answer: 4"})
	defer other.Close()
	keyed := modeltest.NewOpenAI([]string{"Thought: done\nFinal Answer: 4"}, modeltest.APIKey(key))
	defer keyed.Close()
	target, _ := url.Parse(keyed.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/moved/"): // within the server
			http.Redirect(w, r, strings.TrimPrefix(r.URL.Path, "/moved"), http.StatusTemporaryRedirect)
		case strings.HasPrefix(r.URL.Path, "/v1/"):
			proxy.ServeHTTP(w, r)
		default: // to another port of the same host
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}
	}))
	defer away.Close()
	call := func(base string) error {
		m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: base, Model: "m", APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "2+2?")})
		return err
	}

	err := call(away.URL + "/elsewhere/v1")
	var me *model.Error
	if !errors.Is(err, model.ErrRedirected) || !errors.As(err, &me) || me.Fix != model.SettingBaseURL ||
		!strings.Contains(err.Error(), other.URL+"/elsewhere/v1/chat/completions") || strings.Contains(err.Error(), key) {
		t.Errorf("a redirect to another port: want it refused, naming where it led, with Fix SettingBaseURL; got %v", err)
	}
	if other.Calls() != 0 {
		t.Errorf("the call reached the server it was redirected to")
	}
	if err := call(away.URL + "/moved/v1"); err != nil || keyed.Calls() != 1 {
		t.Errorf("a redirect within the server: %v, with %d calls where it led; want it followed with its key", err, keyed.Calls())
	}
}

func TestAnErrorBodyIsReadWithinBounds(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			cfg, _ := hostile(t, provider, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusBadGateway)
				for range 1 << 10 {
					fmt.Fprint(w, strings.Repeat("bad gateway ", 100))
				}
			})
			_, err := call(t, cfg)
			var me *model.Error
			if !errors.As(err, &me) || me.StatusCode != http.StatusBadGateway || !me.Temporary || len(err.Error()) > 100<<10 {
				t.Fatalf("error of %d bytes, status %d", len(err.Error()), me.StatusCode)
			}
		})
	}
}

// TestAStreamOfNothingButPingsEndsAtTheBound sends comments, empty lines
// and empty pieces without end: no text, so the bound on the reply's
// bytes ends it.
func TestAStreamOfNothingButPingsEndsAtTheBound(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			cfg, _ := hostile(t, provider, func(w http.ResponseWriter, r *http.Request) {
				line := ": ping\n\n"
				w.Header().Set("Content-Type", "text/event-stream")
				if provider == "ollama" {
					w.Header().Set("Content-Type", "application/x-ndjson")
					line = `{"message":{"content":""},"done":false}` + "\n"
				}
				for r.Context().Err() == nil {
					if _, err := fmt.Fprint(w, strings.Repeat(line, 100)); err != nil {
						return
					}
				}
			})
			_, err := call(t, cfg)
			if !errors.Is(err, model.ErrReplyTooLarge) {
				t.Fatalf("error %v", err)
			}
		})
	}
}

// TestEndlessReasoningAndToolCallsEndAtTheBoundOfTheReply streams
// reasoning, and the arguments of a tool call, that never end: they count
// towards the bound on the reply's tokens as its text does.
func TestEndlessReasoningAndToolCallsEndAtTheBoundOfTheReply(t *testing.T) {
	chunks := map[string]string{
		"reasoning": `data: {"choices":[{"index":0,"delta":{"reasoning_content":"hmm hmm hmm hmm "}}]}` + "\n\n",
		"arguments": `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\": 1, "}}]}}]}` + "\n\n",
		"new calls": `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"c%d","function":{"name":"f","arguments":"{}"}}]}}]}` + "\n\n",
	}
	for name, chunk := range chunks {
		t.Run(name, func(t *testing.T) {
			cfg, _ := hostile(t, "openai", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for i := 0; r.Context().Err() == nil; i++ {
					text := chunk
					if strings.Contains(chunk, "%d") {
						text = fmt.Sprintf(chunk, i, i)
					}
					if _, err := fmt.Fprint(w, text); err != nil {
						return
					}
				}
			})
			cfg.MaxTokens, cfg.MaxReplyBytes = 100, 64<<20
			resp, err := call(t, cfg)
			switch {
			case errors.Is(err, model.ErrMalformed) && name == "new calls":
			case err != nil:
				t.Fatalf("error %v", err)
			case !model.AtTokenLimit(resp.Choices[0].StopReason):
				t.Errorf("stop reason %q, want the reply cut at its bound", resp.Choices[0].StopReason)
			}
		})
	}
}

// TestConcurrentCallsOfOneModel calls one model from many goroutines at
// once, against each kind of fake server, growing Ollama's window as they
// go: every call gets its own reply (run it with -race).
func TestConcurrentCallsOfOneModel(t *testing.T) {
	servers := map[string]*modeltest.Server{
		"ollama":   modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.ContextSize(32768)),
		"openai":   modeltest.NewOpenAI([]string{"Final Answer: 42"}, modeltest.Repeat()),
		"llamacpp": modeltest.NewLlamaCpp([]string{"Final Answer: 42"}, modeltest.Repeat()),
	}
	for provider, srv := range servers {
		defer srv.Close()
		t.Run(provider, func(t *testing.T) {
			base := srv.URL
			if provider == "openai" {
				base += "/v1"
			}
			m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: base, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Go(func() {
					question := "q"
					if i%4 == 0 {
						question = strings.Repeat("word ", 8000) // 10,000 fake tokens: Ollama's window grows
					}
					var notices []string
					req := model.Request{Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, question)},
						OnText: func(context.Context, []byte) error { return nil }, OnNotice: func(s string) { notices = append(notices, s) }}
					resp, err := m.(model.Generator).Generate(context.Background(), req)
					var me *model.Error
					if errors.As(err, &me) && me.Retry.AtOnce() {
						resp, err = m.(model.Generator).Generate(context.Background(), req) // as the agent does
					}
					if err != nil || resp.Text != "Final Answer: 42" {
						t.Errorf("call %d: reply %v, error %v", i, resp, err)
					}
				})
			}
			wg.Wait()
		})
	}
}

// TestAnEndlessStreamFromAnthropicEndsAtTheBound streams text without end
// in Anthropic's events to langchaingo's client, which gathers a reply
// with += on a string: the reply ends at the bound of its tokens, as the
// other clients' do, cut as a server cuts one.
func TestAnEndlessStreamFromAnthropicEndsAtTheBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\","+
			"\"content\":[],\"model\":\"c\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"on and on \"}}\n\n"); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", MaxTokens: 100,
		MaxReplyBytes: 64 << 20, IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var streamed int
	resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
		llms.WithStreamingFunc(func(_ context.Context, p []byte) error { streamed += len(p); return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Choices[0]; !model.AtTokenLimit(c.StopReason) || len(c.Content) != 100*128 || streamed != len(c.Content) {
		t.Errorf("a reply of %d bytes (%d streamed), stop reason %q; want it cut at %d", len(c.Content), streamed, c.StopReason, 100*128)
	}
}

// TestAConnectionDroppedAfterTheReplyEndedLosesNothing drops the
// connection after the chunk that ends the reply (its finish_reason),
// before the usage and [DONE]: the reply is whole, and is taken.
func TestAConnectionDroppedAfterTheReplyEndedLosesNothing(t *testing.T) {
	cfg, _ := hostile(t, "openai", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"Final Answer: 42"}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n"+`data: {"choi`)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	resp, err := call(t, cfg)
	if err != nil || resp.Choices[0].Content != "Final Answer: 42" || resp.Choices[0].StopReason != "stop" {
		t.Fatalf("reply %v, error %v", resp, err)
	}
}
