package model

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

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
	// con is the constraint of the call, and bind the request fields
	// that bind the reply to it on this server; both nil for a call that
	// binds nothing.
	con  *Constraint
	bind *Binding
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

// dropped reports whether the server refused the parameter p.
func (k *call) dropped(p string) bool { return slices.Contains(k.drop, p) }

// temperature returns the temperature to send, or nil when the server
// refused it.
func (k *call) temperature() *float64 {
	if k.dropped("temperature") {
		return nil
	}
	t := k.o.Temperature
	return &t
}

// stops returns the stop sequences to send, or nil when the server
// refused them.
func (k *call) stops() []string {
	if k.dropped("stop") {
		return nil
	}
	return k.o.StopWords
}

// topLevel returns Config.Options, the options sent at the top of a
// request body, but for those the server refused; nil when there are
// none.
func (k *call) topLevel() map[string]any {
	if len(k.options) == 0 {
		return nil
	}
	out := make(map[string]any, len(k.options))
	for key, v := range k.options {
		if !k.dropped(key) {
			out[key] = v
		}
	}
	return out
}

// encode returns the JSON of body, a protocol's request, with the fields
// of top added at its top level, where a server takes options of its own
// (Config.Options): they win over body's fields of the same name, an
// object merged into body's key by key. Without top, body is encoded as
// it is.
func encode(body any, top map[string]any) ([]byte, error) {
	data, err := jsonBody(body)
	if err != nil || len(top) == 0 {
		return data, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	for key, v := range top {
		raw, err := mergedJSON(fields[key], v)
		if err != nil {
			return nil, fmt.Errorf("the option %s: %w", key, err)
		}
		fields[key] = raw
	}
	return jsonBody(fields)
}

// mergedJSON returns the JSON of v, merged key by key into old when both
// are objects.
func mergedJSON(old json.RawMessage, v any) (json.RawMessage, error) {
	add, ok := v.(map[string]any)
	var base map[string]json.RawMessage
	if !ok || len(old) == 0 || json.Unmarshal(old, &base) != nil || base == nil {
		return jsonBody(v)
	}
	for key, val := range add {
		raw, err := jsonBody(val)
		if err != nil {
			return nil, err
		}
		base[key] = raw
	}
	return jsonBody(base)
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

// Role returns the chat role a model client sends a message of type t
// as: system, assistant, tool or user.
func Role(t llms.ChatMessageType) string {
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

// MessageText returns the text parts of m, joined, with the tool calls
// and tool results of the native protocol written out as text.
func MessageText(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			b.WriteString(p.Text)
		case llms.ToolCall:
			if p.FunctionCall != nil {
				fmt.Fprintf(&b, "[tool call %s] %s %s", p.ID, p.FunctionCall.Name, p.FunctionCall.Arguments)
			}
		case llms.ToolCallResponse:
			fmt.Fprintf(&b, "[tool result %s] %s", p.ToolCallID, p.Content)
		}
	}
	return b.String()
}

// Chunks splits text into pieces the size of a few tokens, on character
// boundaries, as a server streams them.
func Chunks(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(len(text), 6)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}
