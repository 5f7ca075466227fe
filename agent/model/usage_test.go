package model_test

import (
	"context"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestServedModelIsWhatTheServerSays reads the model each client's server
// names in its reply, streamed or not: llama-server names the one it
// loaded, whatever was asked.
func TestServedModelIsWhatTheServerSays(t *testing.T) {
	t.Parallel()
	ollama := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Model("tiny:latest"))
	defer ollama.Close()
	llama := modeltest.NewLlamaCpp([]string{"Final Answer: 42"}, modeltest.Repeat())
	defer llama.Close()
	tests := []struct {
		name string
		cfg  model.Config
		want string
	}{
		{"Ollama", model.Config{BaseURL: ollama.URL, Model: "tiny:latest"}, "tiny:latest"},
		{"Ollama's OpenAI-compatible API", model.Config{Provider: "openai", BaseURL: ollama.URL + "/v1", Model: "tiny:latest"}, "tiny:latest"},
		{"llama-server", model.Config{Provider: "llamacpp", BaseURL: llama.URL}, "modeltest.gguf"},
		{"llama-server's OpenAI-compatible API", model.Config{Provider: "openai", BaseURL: llama.URL, Model: "asked-for"}, "modeltest.gguf"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			m, err := model.New(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			req := model.Request{Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}}
			if stream {
				req.OnText = func(context.Context, []byte) error { return nil }
			}
			resp, err := m.(model.Generator).Generate(context.Background(), req)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got := resp.Model; got != tt.want {
				t.Errorf("%s (streamed: %v): served %q, want %q", tt.name, stream, got, tt.want)
			}
		}
	}
}
