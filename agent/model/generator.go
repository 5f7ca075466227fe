package model

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// Generator is a model that answers a Request with a typed Reply: the
// models of New, and the recorders and replays of package cassette. Any
// other llms.Model is one through AsGenerator.
type Generator interface {
	// Generate makes the call req asks for, once. Its errors are *Error
	// values when the model's are: Temporary, with a Retry reason, when
	// the same call may be made again.
	Generate(ctx context.Context, req Request) (*Reply, error)
}

// Request is one model call.
type Request struct {
	// Messages are the conversation, the last one the model answers.
	Messages []llms.MessageContent
	// Stop are the stop sequences, sent when there are any.
	Stop []string
	// Tools are the tools the model may call, for the native protocol.
	Tools []llms.Tool
	// Constraint binds the reply to the tools, on a server that can (see
	// Constrainer); nil binds nothing. A model that is no Generator of
	// this package makes the call as it is.
	Constraint *Constraint
	// OnText, when not nil, is passed the reply's text as it streams;
	// OnReasoning the reasoning a server sends apart from it (Ollama's
	// "thinking", OpenAI-compatible servers' "reasoning_content"). An
	// error they return ends the call with it.
	OnText, OnReasoning func(ctx context.Context, chunk []byte) error
	// OnNotice, when not nil, is told what the user should know of the
	// call that is no error, as it happens: that the context window
	// grows, and what that costs.
	OnNotice func(msg string)
	// Options are langchaingo's options of the call, for what the fields
	// above do not say (a temperature, a JSON mode, a tool choice); they
	// go after the configuration's, and the fields above after them.
	Options []llms.CallOption
}

// Reply is a model's answer to a Request.
type Reply struct {
	// Text is the reply's text, and Reasoning what the server sent apart
	// from it as the model's reasoning.
	Text, Reasoning string
	// ToolCalls are the tool calls of the native protocol.
	ToolCalls []llms.ToolCall
	// Usage counts the tokens of the prompt and of the reply, where the
	// server said.
	Usage Usage
	// Finish says why the reply ended, and FinishWord in the server's
	// own word ("stop", "length", "eos", "limit", "max_tokens"), "" when
	// it did not say.
	Finish     FinishReason
	FinishWord string
	// Model is the model the server says wrote the reply, or "" when it
	// did not say. It may differ from the name asked for: llama-server
	// names the model it serves whatever it is asked, and OpenAI the
	// model's dated version.
	Model string
	// Server is the address of the server that answered, when known.
	Server Address
	// Binding is how the call asked the server to bind the reply, or nil
	// when it bound nothing.
	Binding *Binding
}

// Address is where a server listens.
type Address struct {
	// Host is the server's host name or IP address.
	Host string
	// Port is its port, or the scheme's own (80, 443) when its URL gives
	// none; 0 when not known.
	Port int
}

// String returns host:port, or "" for the zero Address.
func (a Address) String() string {
	if a.Host == "" {
		return ""
	}
	if a.Port == 0 {
		return a.Host
	}
	return net.JoinHostPort(a.Host, strconv.Itoa(a.Port))
}

// addressOf returns the address of the server at the URL u.
func addressOf(u string) Address {
	pu, err := url.Parse(u)
	if err != nil || pu.Hostname() == "" {
		return Address{}
	}
	a := Address{Host: pu.Hostname()}
	switch p := pu.Port(); {
	case p != "":
		a.Port, _ = strconv.Atoi(p)
	case pu.Scheme == "https":
		a.Port = 443
	case pu.Scheme == "http":
		a.Port = 80
	}
	return a
}

// FinishReason says why a reply ended, in the words OpenTelemetry's
// gen_ai.response.finish_reasons uses.
type FinishReason string

// The reasons a reply ends.
const (
	// FinishUnknown means the server did not say, or said what no other
	// reason means.
	FinishUnknown FinishReason = ""
	// FinishStop means the model ended the reply, or wrote a stop
	// sequence.
	FinishStop FinishReason = "stop"
	// FinishLength means the reply reached its bound on tokens, or the
	// client's bound on its bytes, before the model ended it.
	FinishLength FinishReason = "length"
	// FinishToolCalls means the model ended the reply to call tools.
	FinishToolCalls FinishReason = "tool_calls"
	// FinishContentFilter means the server's filter ended the reply.
	FinishContentFilter FinishReason = "content_filter"
)

// Finish returns the reason a server's word for the end of a reply
// means: "stop", "eos", "word", "end_turn" end it; "length", "limit",
// "max_tokens", "MAX_TOKENS" cut it (see AtTokenLimit).
func Finish(word string) FinishReason {
	if AtTokenLimit(word) {
		return FinishLength
	}
	switch strings.ToLower(strings.TrimSpace(word)) {
	case "stop", "eos", "word", "end_turn", "stop_sequence", "finish_reason_stop":
		return FinishStop
	case "tool_calls", "tool_use", "function_call":
		return FinishToolCalls
	case "content_filter", "safety", "recitation":
		return FinishContentFilter
	}
	return FinishUnknown
}

// AsGenerator returns m as a Generator: m itself when it is one, else an
// adapter that makes the call through m's GenerateContent, with the
// stop sequences, the tools and the streaming functions as langchaingo's
// options, and reads the reply's usage where langchaingo's clients put
// it. The adapter binds nothing and tells no notices.
func AsGenerator(m llms.Model) Generator {
	if g, ok := m.(Generator); ok {
		return g
	}
	return adapted{m}
}

// adapted is an llms.Model as a Generator.
type adapted struct{ m llms.Model }

func (a adapted) Generate(ctx context.Context, req Request) (*Reply, error) {
	resp, err := a.m.GenerateContent(ctx, req.Messages, req.callOptions()...)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return nil, &Error{Err: errNoReply, Temporary: true, Retry: RetryNoReply}
	}
	return ReplyOf(resp.Choices[0]), nil
}

// errNoReply is the error of a call whose response held no choice.
var errNoReply = errors.New("the model returned no reply")

// callOptions returns the options of req as langchaingo takes them:
// req.Options, then its stop sequences, tools and streaming functions.
func (req Request) callOptions() []llms.CallOption {
	opts := slices.Clip(req.Options)
	if len(req.Stop) > 0 {
		opts = append(opts, llms.WithStopWords(req.Stop))
	}
	if len(req.Tools) > 0 {
		opts = append(opts, llms.WithTools(req.Tools))
	}
	if fn := req.OnText; fn != nil {
		opts = append(opts, llms.WithStreamingFunc(fn))
	}
	if fn := req.OnReasoning; fn != nil {
		opts = append(opts, llms.WithStreamingReasoningFunc(func(ctx context.Context, reasoning, _ []byte) error {
			return fn(ctx, reasoning)
		}))
	}
	return opts
}

// RequestOf returns the Request of a call of GenerateContent: its stop
// sequences, tools and streaming functions as the Request's fields, and
// opts as its Options. A Generator is an llms.Model with it.
func RequestOf(msgs []llms.MessageContent, opts []llms.CallOption) Request {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	req := Request{Messages: msgs, Stop: o.StopWords, Tools: o.Tools, Options: opts}
	if fn := o.StreamingFunc; fn != nil {
		req.OnText = fn
	}
	if fn := o.StreamingReasoningFunc; fn != nil {
		req.OnReasoning = func(ctx context.Context, chunk []byte) error { return fn(ctx, chunk, nil) }
	}
	return req
}

// ReplyOf returns a choice of langchaingo's response as a Reply: its
// usage read from GenerationInfo under the names langchaingo's clients
// give it (see UsageOf), its stop reason as Finish and FinishWord.
func ReplyOf(c *llms.ContentChoice) *Reply {
	r := &Reply{Text: c.Content, Reasoning: c.ReasoningContent, ToolCalls: c.ToolCalls, Usage: UsageOf(c),
		Finish: Finish(c.StopReason), FinishWord: c.StopReason}
	if len(r.ToolCalls) == 0 && c.FuncCall != nil {
		r.ToolCalls = []llms.ToolCall{{Type: "function", FunctionCall: c.FuncCall}}
	}
	return r
}

// Content returns r as langchaingo's response, for callers of
// GenerateContent: its usage in GenerationInfo, as langchaingo's clients
// put it, with the served model under "Model".
func (r *Reply) Content() *llms.ContentResponse {
	stop := r.FinishWord
	if stop == "" {
		stop = string(r.Finish)
	}
	c := &llms.ContentChoice{Content: r.Text, ReasoningContent: r.Reasoning, StopReason: stop, ToolCalls: r.ToolCalls,
		GenerationInfo: map[string]any{
			"PromptTokens":     r.Usage.PromptTokens,
			"CompletionTokens": r.Usage.CompletionTokens,
			"TotalTokens":      r.Usage.total(),
		}}
	if r.Model != "" {
		c.GenerationInfo["Model"] = r.Model
	}
	if len(c.ToolCalls) > 0 {
		c.FuncCall = c.ToolCalls[0].FunctionCall
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{c}}
}
