package model_test

import (
	"context"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestTheStopReasonSaysWhenTheReplyWasCut calls real langchaingo clients
// against servers that stop a reply at the request's token limit, as the
// real ones do: the response says so, streamed and not. langchaingo's
// OpenAI client reads finish_reason itself; its Ollama client drops
// done_reason, which the model reads from the stream.
func TestTheStopReasonSaysWhenTheReplyWasCut(t *testing.T) {
	reply := "Thought: I know it.\nFinal Answer: Paris is the capital of France, and has been for centuries."
	tests := []struct {
		provider  string
		stream    bool
		maxTokens int
		cut       bool
	}{
		{"openai", false, 4, true},
		{"openai", true, 4, true},
		{"openai", true, 0, false},
		{"ollama", true, 4, true},
		{"ollama", true, 0, false},
	}
	servers := map[string]func([]string, ...modeltest.Option) *modeltest.Server{
		"ollama": modeltest.NewOllama, "openai": modeltest.NewOpenAI,
	}
	for _, tt := range tests {
		name := tt.provider
		if tt.stream {
			name += ", streamed"
		}
		if tt.maxTokens > 0 {
			name += ", at its token limit"
		}
		t.Run(name, func(t *testing.T) {
			s := servers[tt.provider]([]string{reply}, modeltest.Repeat())
			defer s.Close()
			m, err := model.New(context.Background(), model.Config{Provider: tt.provider, BaseURL: s.URL, Model: "m", APIKey: "k", MaxTokens: tt.maxTokens})
			if err != nil {
				t.Fatal(err)
			}
			var opts []llms.CallOption
			if tt.stream {
				opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			}
			resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			c := resp.Choices[0]
			if got := model.AtTokenLimit(c.StopReason); got != tt.cut || c.StopReason == "" {
				t.Errorf("stop reason %q: at the token limit %v, want %v", c.StopReason, got, tt.cut)
			}
			if tt.cut && len(c.Content) >= len(reply) {
				t.Errorf("content %q is not cut", c.Content)
			}
		})
	}
}

func TestAtTokenLimit(t *testing.T) {
	for reason, want := range map[string]bool{"length": true, "max_tokens": true, "FinishReasonMaxTokens": true, "MAX_TOKENS": true,
		"stop": false, "tool_calls": false, "end_turn": false, "": false, "content_filter": false} {
		if got := model.AtTokenLimit(reason); got != want {
			t.Errorf("AtTokenLimit(%q) = %v, want %v", reason, got, want)
		}
	}
}
