package chatml_test

import (
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/modeltest/chatml"
)

func TestCallWritesTheArgumentsAsEachServerDoes(t *testing.T) {
	tests := []struct {
		name, args, llama, ollama string
	}{
		{"keys in the order given, or sorted", `{"b":1,"a":"x"}`, `{"b": 1, "a": "x"}`, `{"a":"x","b":1}`},
		{"markup escaped by Go's JSON alone", `{"e":"3 < 4 & 5 > 2"}`, `{"e": "3 < 4 & 5 > 2"}`, `{"e":"3 \u003c 4 \u0026 5 \u003e 2"}`},
		{"control characters and quotes escaped", `{"e":"a\"b\\c\u0001\n"}`, `{"e": "a\"b\\c\u0001\n"}`, `{"e":"a\"b\\c\u0001\n"}`},
		{"numbers as C++ writes a double, or Go a float64", `{"i":3,"f":2.50,"g":1e6,"t":true,"z":null}`,
			`{"i": 3, "f": 2.5, "g": 1e+06, "t": true, "z": null}`, `{"f":2.5,"g":1000000,"i":3,"t":true,"z":null}`},
		{"nested values", `{"o":{"k":[1,"v"]}}`, `{"o": {"k": [1, "v"]}}`, `{"o":{"k":[1,"v"]}}`},
		{"arguments that are no object are the input on Ollama", `2 + 2`, "", `{"input":"2 + 2"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for s, want := range map[chatml.Server]string{chatml.LlamaServer: tt.llama, chatml.Ollama: tt.ollama} {
				got, err := chatml.Call(s, "f", tt.args)
				if want == "" {
					if err == nil {
						t.Errorf("%s: no error for %q", s, tt.args)
					}
					continue
				}
				if want = "<tool_call>\n{\"name\": \"f\", \"arguments\": " + want + "}\n</tool_call>"; err != nil || got != want {
					t.Errorf("%s: got %q, %v; want %q", s, got, err, want)
				}
			}
		})
	}
}

func toolCall(id, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: args}}
}

func TestRenderFollowsEachServersTemplate(t *testing.T) {
	system := llms.TextParts(llms.ChatMessageTypeSystem, "S")
	user := llms.TextParts(llms.ChatMessageTypeHuman, "Q")
	twoCalls := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{toolCall("1", `{"a":1}`), toolCall("2", `{"a":2}`)}}
	result := func(id, text string) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: "f", Content: text}}}
	}
	tests := []struct {
		name          string
		msgs          []llms.MessageContent
		llama, ollama string
	}{
		{"a system and a user message, no tools", []llms.MessageContent{system, user},
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n",
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n"},
		{"no system message", []llms.MessageContent{user},
			"<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n",
			"<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n"},
		{"two calls and their results: one user turn on llama-server, one each on Ollama",
			[]llms.MessageContent{system, user, twoCalls, result("1", "R1"), result("2", "R2")},
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n" +
				"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 2}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\nR1\n</tool_response>\n<tool_response>\nR2\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\":1}}\n{\"name\": \"f\", \"arguments\": {\"a\":2}}\n</tool_call><|im_end|>\n" +
				"<|im_start|>user\n<tool_response>\nR1\n</tool_response><|im_end|>\n<|im_start|>user\n<tool_response>\nR2\n</tool_response><|im_end|>\n<|im_start|>assistant\n"},
		{"a call with text: both on llama-server, the text alone on Ollama",
			[]llms.MessageContent{user, {Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "T"}, toolCall("1", `{}`)}}, result("1", "R")},
			"<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\nT\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\nR\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
			"<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\nT<|im_end|>\n<|im_start|>user\n<tool_response>\nR\n</tool_response><|im_end|>\n<|im_start|>assistant\n"},
		{"two user messages in a row: joined on Ollama", []llms.MessageContent{user, user},
			"<|im_start|>user\nQ<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n",
			"<|im_start|>user\nQ\n\nQ<|im_end|>\n<|im_start|>assistant\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for s, want := range map[chatml.Server]string{chatml.LlamaServer: tt.llama, chatml.Ollama: tt.ollama} {
				if got, err := chatml.Render(s, tt.msgs, nil); err != nil || got != want {
					t.Errorf("%s: got\n%q, %v\nwant\n%q", s, got, err, want)
				}
			}
		})
	}
}

func TestRenderRefusesWhatItDoesNotFollow(t *testing.T) {
	nested := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "f", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"o": map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"type": "string"}}}}}}}}
	image := llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.BinaryContent{MIMEType: "image/png", Data: []byte{1}}}}
	tests := []struct {
		name   string
		server chatml.Server
		msgs   []llms.MessageContent
		tools  []llms.Tool
		want   string
	}{
		{"nested properties on Ollama", chatml.Ollama, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Q")}, nested, "nested properties"},
		{"an image", chatml.LlamaServer, []llms.MessageContent{image}, nil, "llms.BinaryContent"},
		{"an unknown server", chatml.Server("vllm"), nil, nil, `"vllm"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := chatml.Render(tt.server, tt.msgs, tt.tools); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error that says %s", err, tt.want)
			}
		})
	}
}
