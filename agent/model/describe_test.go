package model_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/trace"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// headerLog keeps the traceparent header of every request a server got.
type headerLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Get("traceparent"))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *headerLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// TestEveryCallCarriesTheTraceOfItsContext: each request of a model call
// whose context holds a span carries the span's W3C traceparent, the
// requests a client makes before the call (llama.cpp's /apply-template)
// too, and a call without one sends none.
func TestEveryCallCarriesTheTraceOfItsContext(t *testing.T) {
	servers := map[string]func([]string, ...modeltest.Option) *modeltest.Server{
		"ollama": modeltest.NewOllama, "openai": modeltest.NewOpenAI, "llamacpp": modeltest.NewLlamaCpp,
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	want := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for provider, newServer := range servers {
		t.Run(provider, func(t *testing.T) {
			s := newServer([]string{"Thought: done\nFinal Answer: 4", "Thought: done\nFinal Answer: 5"})
			defer s.Close()
			log := &headerLog{}
			s.Config.Handler = log.wrap(s.Config.Handler)
			m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: s.URL, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			opened := len(log.all()) // what New asked, without a span
			msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}
			traced := trace.ContextWithSpanContext(context.Background(), sc)
			if _, err := m.GenerateContent(traced, msgs); err != nil {
				t.Fatal(err)
			}
			calls := len(log.all())
			if calls == opened {
				t.Fatal("the server got no request")
			}
			for i, got := range log.all()[opened:calls] {
				if got != want {
					t.Errorf("request %d of the traced call: traceparent %q, want %q", i+1, got, want)
				}
			}
			if _, err := m.GenerateContent(context.Background(), msgs); err != nil {
				t.Fatal(err)
			}
			for i, got := range log.all()[calls:] {
				if got != "" {
					t.Errorf("request %d of the call without a span: traceparent %q, want none", i+1, got)
				}
			}
		})
	}
}

// TestDescribeSaysTheServerAndTheSamplingButNoSecret: a model of New
// describes its provider, model, server and sampling options, and no
// part of the key or the URL's password.
func TestDescribeSaysTheServerAndTheSamplingButNoSecret(t *testing.T) {
	s := modeltest.NewOpenAI([]string{"Final Answer: 4"})
	defer s.Close()
	base := strings.Replace(s.URL, "http://", "http://user:hunter2-password@", 1)
	tests := []struct {
		name string
		cfg  model.Config
		want model.Description
	}{
		{"the defaults", model.Config{Provider: "openai", BaseURL: base, Model: "m", APIKey: "sk-secret-key-1234"},
			model.Description{Provider: "openai", Model: "m", Server: model.Address{Host: "127.0.0.1"}, MaxTokens: model.DefaultMaxTokens}},
		{"a temperature and a bound of its own", model.Config{Provider: "openai", BaseURL: base, Model: "m", Temperature: 0.7, MaxTokens: 100},
			model.Description{Provider: "openai", Model: "m", Server: model.Address{Host: "127.0.0.1"}, Temperature: 0.7, MaxTokens: 100}},
		{"no bound sent", model.Config{Provider: "openai", BaseURL: base, Model: "m", MaxTokens: -1},
			model.Description{Provider: "openai", Model: "m", Server: model.Address{Host: "127.0.0.1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := model.New(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := model.Describe(m)
			if got.Server.Port == 0 {
				t.Errorf("Describe() has no port: %+v", got)
			}
			got.Server.Port = 0
			if got != tt.want {
				t.Errorf("Describe() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDescribeNamesTheProviderOfAnyModel: a model that does not describe
// itself is named by its Go package, as langchaingo names its clients.
func TestDescribeNamesTheProviderOfAnyModel(t *testing.T) {
	if got := model.Describe(otherModel{}).Provider; got != "model_test" {
		t.Errorf("Describe(otherModel{}).Provider = %q, want the package's name", got)
	}
	if got := model.Describe(nil); got != (model.Description{}) {
		t.Errorf("Describe(nil) = %+v, want nothing", got)
	}
}

type otherModel struct{ llms.Model }
