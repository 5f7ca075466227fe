package model_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestOptionsReachTheServer sends Config.Options with a call: into
// Ollama's options object, beside the ones the client sets, and at the
// top of an OpenAI-compatible request, where they win over the client's.
func TestOptionsReachTheServer(t *testing.T) {
	options := map[string]any{"repeat_penalty": 1.1, "keep_alive": "10m", "temperature": 0.5}
	tests := []struct {
		name  string
		srv   *modeltest.Server
		cfg   model.Config
		check func(t *testing.T, body map[string]any)
	}{
		{"ollama nests them in its options", modeltest.NewOllama([]string{"Final Answer: 4"}),
			model.Config{Provider: "ollama", NumCtx: 4096},
			func(t *testing.T, body map[string]any) {
				opts, _ := body["options"].(map[string]any)
				if opts["repeat_penalty"] != 1.1 || opts["num_ctx"] != 4096.0 || opts["temperature"] != 0.5 {
					t.Errorf("options = %v, want repeat_penalty, the client's num_ctx and the given temperature", opts)
				}
				if body["keep_alive"] != "10m" {
					t.Errorf("keep_alive = %v, want it at the top", body["keep_alive"])
				}
			}},
		{"an OpenAI-compatible server gets them at the top", modeltest.NewOpenAI([]string{"Final Answer: 4"}),
			model.Config{Provider: "openai"},
			func(t *testing.T, body map[string]any) {
				if body["repeat_penalty"] != 1.1 || body["keep_alive"] != "10m" || body["temperature"] != 0.5 {
					t.Errorf("body = %v, want the options at the top", body)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.srv.Close()
			tt.cfg.BaseURL, tt.cfg.Options = tt.srv.URL, options
			m, err := model.New(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "2+2?")}); err != nil {
				t.Fatal(err)
			}
			tt.check(t, tt.srv.Request(0))
		})
	}
}

func ExampleOptionValue() {
	for _, text := range []string{"0.9", "true", `["###"]`, "10m"} {
		v := model.OptionValue(text)
		fmt.Printf("%T %v\n", v, v)
	}
	// Output:
	// float64 0.9
	// bool true
	// []interface {} [###]
	// string 10m
}

// TestARefusedImageSaysSo sends an image to a server that refuses the
// call: the error says the model may not see images.
func TestARefusedImageSaysSo(t *testing.T) {
	srv := modeltest.NewOpenAI([]string{"Final Answer: 4"}, modeltest.Fail(1, 400))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	msg := llms.TextParts(llms.ChatMessageTypeHuman, "What is it?")
	msg.Parts = append(msg.Parts, llms.BinaryPart("image/png", []byte("\x89PNG")))
	_, err = m.GenerateContent(context.Background(), []llms.MessageContent{msg})
	if err == nil || !strings.Contains(err.Error(), "may not see images") {
		t.Errorf("error = %v, want it to say the model may not see images", err)
	}
}
