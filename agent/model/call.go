package model

import (
	"context"
	"encoding/base64"
	"maps"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// call is one model call as a client sends it: the messages, the options
// of the configuration and of the call, and what the model adds to them.
// Each client builds its request body from a call in one function.
type call struct {
	msgs []llms.MessageContent
	// opts are the options as given, the configuration's first, for
	// langchaingo's clients; o is what they come to.
	opts []llms.CallOption
	o    llms.CallOptions
	// model is the model's name.
	model string
	// con is the constraint of the call, and fields the request fields
	// that bind the reply to it on this server, at the top of the body;
	// both nil for a call that binds nothing.
	con    *Constraint
	fields map[string]any
	// options are Config.Options, sent as they are: they win over what
	// the client sets.
	options map[string]any
	// drop are the parameters the server refused, left out.
	drop []string
	// notice, when not nil, is told what the user should know of the
	// call that is no error: a context window that grows.
	notice func(string)
}

// stream reports whether the caller takes the reply as it streams.
func (k *call) stream() bool { return k.o.StreamingFunc != nil || k.o.StreamingReasoningFunc != nil }

// maxTokens returns the bound on the tokens of the reply, or 0 for none.
func (k *call) maxTokens() int { return max(k.o.MaxTokens, 0) }

// say tells the caller what it should know of the call.
func (k *call) say(msg string) {
	if k.notice != nil {
		k.notice(msg)
	}
}

// finish adds the constraint's fields and Config.Options to body, the
// request of a client, under options when that is not "" (Ollama's
// "options" object, but for its top-level fields): a field that is an
// object in body too is merged into it, key by key. It then takes out the
// parameters the server refused, and returns the JSON of the body.
func (k *call) finish(body map[string]any, nested string, topLevel map[string]bool) ([]byte, error) {
	for key, v := range k.fields {
		body[key] = merged(body[key], v)
	}
	for key, v := range k.options {
		if nested != "" && !topLevel[key] {
			inner, _ := body[nested].(map[string]any)
			if inner == nil {
				inner = map[string]any{}
				body[nested] = inner
			}
			inner[key] = merged(inner[key], v)
			continue
		}
		body[key] = merged(body[key], v)
	}
	for _, p := range k.drop {
		delete(body, p)
		if inner, ok := body[nested].(map[string]any); ok {
			delete(inner, p)
		}
	}
	return jsonBody(body)
}

// merged returns v, merged key by key into old when both are objects.
func merged(old, v any) any {
	add, ok := v.(map[string]any)
	base, baseOK := old.(map[string]any)
	if !ok || !baseOK {
		return v
	}
	out := maps.Clone(base)
	maps.Copy(out, add)
	return out
}

// sample returns the sampling parameters of the call that are set, under
// the names most servers use; the caller renames the odd ones.
func (k *call) sample(body map[string]any) {
	o := k.o
	body["temperature"] = o.Temperature
	if o.TopP != 0 {
		body["top_p"] = o.TopP
	}
	if o.TopK != 0 {
		body["top_k"] = o.TopK
	}
	if o.Seed != 0 {
		body["seed"] = o.Seed
	}
	if len(o.StopWords) > 0 {
		body["stop"] = o.StopWords
	}
	if o.FrequencyPenalty != 0 {
		body["frequency_penalty"] = o.FrequencyPenalty
	}
	if o.PresencePenalty != 0 {
		body["presence_penalty"] = o.PresencePenalty
	}
}

// roleOf returns the chat role of a langchaingo message type.
func roleOf(t llms.ChatMessageType) string {
	switch t {
	case llms.ChatMessageTypeSystem:
		return "system"
	case llms.ChatMessageTypeAI:
		return "assistant"
	case llms.ChatMessageTypeTool, llms.ChatMessageTypeFunction:
		return "tool"
	}
	return "user"
}

// textOf returns the text parts of m, joined.
func textOf(m llms.MessageContent) string {
	var parts []string
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "")
}

// native reports whether the call is one of the native protocol: it
// offers tools, or its messages hold tool calls or their results.
func (k *call) native() bool {
	if len(k.o.Tools) > 0 {
		return true
	}
	for _, m := range k.msgs {
		for _, p := range m.Parts {
			switch p.(type) {
			case llms.ToolCall, llms.ToolCallResponse:
				return true
			}
		}
	}
	return false
}

// dataURL returns an image as a data: URL.
func dataURL(b llms.BinaryContent) string {
	return "data:" + b.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(b.Data)
}

// contextKey is the type of the context keys of package model.
type contextKey int

// constraintCtxKey is the context key of a call's constraint, for the
// replay, which checks it against the recording.
const constraintCtxKey contextKey = 0

// withConstraintCtx returns ctx carrying c.
func withConstraintCtx(ctx context.Context, c *Constraint) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, constraintCtxKey, c)
}
