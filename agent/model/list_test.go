package model_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestOllamaNotFoundSaysWhatIsMissing tells a model that is not installed
// (listing the installed ones) from an address that is no Ollama API.
func TestOllamaNotFoundSaysWhatIsMissing(t *testing.T) {
	s := modeltest.NewOllama([]string{"Final Answer: x"}, modeltest.Model("qwen2.5:7b"))
	defer s.Close()
	tests := []struct {
		name, base, model string
		want              string
		wantFix           model.Setting
	}{
		{"a model not installed lists the installed ones", s.URL, "llama3:8b", "installed: qwen2.5:7b", model.SettingModel},
		{"an address ending in /v1 is no Ollama API", s.URL + "/v1", "qwen2.5:7b", "has no Ollama API at /api/chat", model.SettingBaseURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := model.New(context.Background(), model.Config{BaseURL: tt.base, Model: tt.model})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")})
			var me *model.Error
			if !errors.As(err, &me) || me.Fix != tt.wantFix || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v (fix %v), want fix %v and %q", err, me.Fix, tt.wantFix, tt.want)
			}
		})
	}
}
