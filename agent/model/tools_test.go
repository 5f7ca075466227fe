package model

import (
	"context"
	"errors"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

func TestAServerWhoseTemplateTakesNoToolsSaysSoBeforeTheCall(t *testing.T) {
	tests := []struct {
		name, provider, path, props string
		refused                     bool
	}{
		{"llama.cpp, a template without tools", "llamacpp", "", "props-notools", true},
		{"llama.cpp, a template with tools", "llamacpp", "", "props-tools", false},
		{"llama.cpp found by its /v1/models, a template without tools", "openai", "/v1", "props-notools", true},
		{"llama.cpp found by its /v1/models, a template with tools", "openai", "/v1", "props-tools", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// llama-server answers a call with tools that its template
			// cannot render with 200, in text, the tools dropped.
			srv := serveRecorded(t, map[string]string{
				"GET /props":                "llamacpp-b8355/" + tt.props,
				"GET /v1/models":            "llamacpp-b8355/v1-models",
				"POST /v1/chat/completions": "llamacpp-b8355/v1-tools-dropped",
			})
			m, err := New(context.Background(), Config{Provider: tt.provider, BaseURL: srv.URL + tt.path, IdleTimeout: quick})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
				llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "echo", Parameters: map[string]any{"type": "object"}}}}))
			sent := len(srv.requests("POST /v1/chat/completions"))
			if refused := errors.Is(err, ErrNoToolCalls); refused != tt.refused || (refused && sent != 0) || (!refused && err != nil) {
				t.Errorf("error %v after %d calls; want the tools refused: %v", err, sent, tt.refused)
			}
		})
	}
}
