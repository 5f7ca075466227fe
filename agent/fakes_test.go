package agent

import (
	"github.com/react-agent/react-agent/agent/model"

	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/react-agent/react-agent/tools"
)

// funcTool is a tool whose behaviour a test gives as a function.
type funcTool struct {
	name   string
	schema tools.Schema
	fn     func(ctx context.Context, args map[string]any) (string, error)
}

func (t funcTool) Name() string         { return t.name }
func (t funcTool) Description() string  { return "The " + t.name + " tool." }
func (t funcTool) Schema() tools.Schema { return t.schema }
func (t funcTool) Call(ctx context.Context, args map[string]any) (string, error) {
	return t.fn(ctx, args)
}

// confirmTool is a funcTool that needs confirmation.
type confirmTool struct{ funcTool }

func (confirmTool) Confirmation(args map[string]any) (string, bool) {
	return fmt.Sprintf("run %v?", args["command"]), true
}

func oneString(name string) tools.Schema {
	return tools.Schema{Args: []tools.Arg{{Name: name, Type: "string", Required: true}}, Primary: name}
}

func addTool() tools.Tool {
	return funcTool{name: "add", schema: tools.Schema{
		Args:    []tools.Arg{{Name: "a", Type: "number", Required: true}, {Name: "b", Type: "number", Required: true}},
		Primary: "a",
	}, fn: func(_ context.Context, args map[string]any) (string, error) {
		return fmt.Sprint(args["a"].(float64) + args["b"].(float64)), nil
	}}
}

func failTool() tools.Tool {
	return funcTool{name: "fail", schema: oneString("input"), fn: func(context.Context, map[string]any) (string, error) {
		return "", errors.New("disk on fire")
	}}
}

func slowTool() tools.Tool {
	return funcTool{name: "slow", schema: oneString("input"), fn: func(ctx context.Context, _ map[string]any) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(5 * time.Second):
			return "late", nil
		}
	}}
}

func echoTool() tools.Tool {
	return funcTool{name: "echo", schema: oneString("text"), fn: func(_ context.Context, args map[string]any) (string, error) {
		return fmt.Sprint(args["text"]), nil
	}}
}

func registry(t testing.TB, ts ...tools.Tool) *tools.Registry {
	t.Helper()
	if len(ts) == 0 {
		ts = []tools.Tool{addTool(), failTool(), slowTool(), echoTool()}
	}
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// capture wraps a model and keeps every request.
type capture struct {
	llms.Model
	mu    sync.Mutex
	calls [][]llms.MessageContent
	opts  []llms.CallOptions
}

func newCapture(m llms.Model) *capture { return &capture{Model: m} }

func scripted(replies ...string) *capture { return newCapture(fake.NewFakeLLM(replies)) }

func (c *capture) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	c.mu.Lock()
	c.calls = append(c.calls, append([]llms.MessageContent(nil), msgs...))
	c.opts = append(c.opts, o)
	c.mu.Unlock()
	return c.Model.GenerateContent(ctx, msgs, opts...)
}

// last returns the text of the last message of call i.
func (c *capture) last(i int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.calls[i]
	return model.MessageText(m[len(m)-1])
}

// modelFunc is a model given as a function.
type modelFunc func(ctx context.Context, msgs []llms.MessageContent, o llms.CallOptions) (string, error)

func (f modelFunc) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	text, err := f(ctx, msgs, o)
	if err != nil {
		return nil, err
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text,
		GenerationInfo: map[string]any{"PromptTokens": 10, "CompletionTokens": 5}}}}, nil
}

func (f modelFunc) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, f, p, opts...)
}

// stopAt applies stop sequences as a server does.
func stopAt(text string, stops []string) string {
	for _, s := range stops {
		if i := strings.Index(text, s); i >= 0 {
			text = text[:i]
		}
	}
	return text
}

func action(tool, input string) string {
	return "Thought: I will use " + tool + ".\nAction: " + tool + "\nAction Input: " + input
}

func final(answer string) string { return "Thought: I know it now.\nFinal Answer: " + answer }

// fastRetries keeps retry waits short in tests.
func fastRetries() Option { return WithRetries(3, time.Millisecond, 5*time.Millisecond) }
