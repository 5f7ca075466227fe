package model

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// The tests against real servers: the behaviour the recorded responses of
// testdata/model show, from llama-server and Ollama themselves (skipped
// where they are not installed, as package realserver says).

// words is a question of n words, a few tokens each.
func words(n int) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "Answer the question."),
		llms.TextParts(llms.ChatMessageTypeHuman, strings.Repeat("word ", n))}
}

func streamed() llms.CallOption {
	return llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })
}

func TestRealLlamaServer(t *testing.T) {
	t.Run("a prompt over the context is an overflow with both sizes", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Context(512))
		m, err := New(context.Background(), Config{Provider: "llamacpp", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), words(1000), streamed(), WithConstraint(bound))
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.Temporary || me.ContextTokens != 512 || me.PromptTokens <= 512 {
			t.Fatalf("error %v (%+v)", err, me)
		}
		if refused := m.(Constrainer).ConstraintRefused(); refused != nil {
			t.Errorf("the overflow was taken for a refused grammar: %v", refused)
		}
	})
	t.Run("bytes that are no UTF-8 end the stream with the server's error", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Model(gguf.Model{Spell: "Final Answer: caf\xff ok", AllBytes: true, Seed: 1}))
		m, err := New(context.Background(), Config{Provider: "llamacpp", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), words(3), streamed())
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrNotUTF8) || me.Temporary || !strings.Contains(err.Error(), "Failed to parse input") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a template without tools refuses them before the call", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.NoTools(), realserver.Spell("Final Answer: 42"))
		for _, cfg := range []Config{{Provider: "llamacpp", BaseURL: srv.URL}, {Provider: "openai", BaseURL: srv.URL + "/v1"}} {
			cfg.ToolCalling = true
			m, err := New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.GenerateContent(context.Background(), words(3),
				llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "echo", Parameters: map[string]any{"type": "object"}}}}))
			if !errors.Is(err, ErrNoToolCalls) {
				t.Errorf("%s: error %v", cfg.Provider, err)
			}
		}
	})
	t.Run("the openai provider binds it with the grammar, and a cut reply says so", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Spell("Action: calc\nAction Input: {\"x\": 1}"))
		m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", MaxTokens: 3})
		if err != nil {
			t.Fatal(err)
		}
		if mode, _ := m.(Constrainer).Constraining(context.Background()); mode != ModeGrammar {
			t.Fatalf("mode %q", mode)
		}
		c := &Constraint{Grammar: "root ::= \"Action: \" [a-z]+\n"}
		resp, err := m.GenerateContent(context.Background(), words(3), streamed(), WithConstraint(c))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Choices[0]; got.Content != "Action: calc"[:len(got.Content)] || !AtTokenLimit(got.StopReason) {
			t.Errorf("reply %q, stop reason %q", got.Content, got.StopReason)
		}
	})
}

func TestRealOllama(t *testing.T) {
	t.Run("a prompt longer than the window asked is sent with a window that fits", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Context(8192), realserver.Spell("Final Answer: 42"))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model, NumCtx: 1024})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := m.GenerateContent(context.Background(), words(1000), streamed())
		if err != nil {
			t.Fatal(err)
		}
		if u := UsageOf(resp.Choices[0]); u.PromptTokens <= 1024 || strings.Contains(srv.Log(), "truncating input prompt") {
			t.Errorf("the prompt was %d tokens; the server's log says it cut it: %v", u.PromptTokens, strings.Contains(srv.Log(), "truncating input prompt"))
		}
	})
	t.Run("a prompt longer than the model takes is refused, not cut", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Context(2048), realserver.Spell("Final Answer: 42"))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		if w := m.(interface{ ContextWindow() int }).ContextWindow(); w != 2048 {
			t.Errorf("the context window is %d, want the 2048 the model takes", w)
		}
		_, err = m.GenerateContent(context.Background(), words(1000), streamed())
		if !errors.Is(err, ErrContextOverflow) || strings.Contains(srv.Log(), "truncating input prompt") {
			t.Fatalf("error %v; the log says the prompt was cut: %v", err, strings.Contains(srv.Log(), "truncating input prompt"))
		}
	})
	t.Run("its OpenAI endpoint's cut is found by the window it loaded", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Context(2048), realserver.Spell("Final Answer: 42"))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model, ToolCalling: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), words(1000))
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.ContextTokens != 2048 || !strings.Contains(me.Hint, "OLLAMA_CONTEXT_LENGTH") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a model that writes one token over and over is stopped, and the error says so", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Model(gguf.Model{Prior: map[int]float32{gguf.ByteToken('a'): 20}, Seed: 1}))
		for _, tools := range []bool{false, true} {
			m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model, ToolCalling: tools})
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range [][]llms.CallOption{{streamed()}, nil} {
				resp, err := m.GenerateContent(context.Background(), words(3), opts...)
				var me *Error
				if !errors.Is(err, ErrRepeatLimit) || !errors.As(err, &me) || me.Fix != SettingTemperature {
					t.Errorf("through /v1 %v, streamed %v: error %v, reply %v", tools, len(opts) > 0, err, resp)
				}
			}
		}
	})
	t.Run("a schema with $refs and a loop of definitions binds the reply", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Spell(`{"thought": "t", "action": "expr", "action_input": {"e": "x"}}`))
		schema := `{"anyOf":[{"type":"object","properties":{"thought":{"type":"string"},"action":{"type":"string","enum":["expr"]},` +
			`"action_input":{"$ref":"#/$defs/expr"}},"required":["thought","action","action_input"]}],"$defs":{"expr":{"type":"object",` +
			`"properties":{"e":{"$ref":"#/$defs/expr/$defs/Expr"}},"required":["e"],"$defs":{"Expr":{"anyOf":[{"$ref":"#/$defs/expr/$defs/Term"},` +
			`{"type":"string"}]},"Term":{"anyOf":[{},{"type":"number"}]}}}}}`
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := m.GenerateContent(context.Background(), words(3), streamed(), WithConstraint(&Constraint{Schema: json.RawMessage(schema)}))
		if err != nil {
			t.Fatal(err)
		}
		if refused := m.(Constrainer).ConstraintRefused(); refused != nil || !strings.HasPrefix(resp.Choices[0].Content, "{") {
			t.Errorf("reply %q, refused %v", resp.Choices[0].Content, refused)
		}
	})
}
