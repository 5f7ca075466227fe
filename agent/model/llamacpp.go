package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// llamacppProvider talks to llama.cpp's llama-server through its own
// endpoints: /apply-template renders the chat with the model's template
// and /completion generates, which takes a grammar (see
// WithConstraint) and keeps the prompt's cache; /props gives the context
// window. Tool calls (Config.ToolCalling) go through its OpenAI-compatible
// /v1 instead.
var llamacppProvider = Provider{
	Name:         "llamacpp",
	URLEnv:       "LLAMACPP_HOST",
	DefaultModel: "default", // llama-server serves the one model it loaded
	open: func(ctx context.Context, cfg Config, hc *http.Client) (opened, error) {
		u, err := serverURL(cfg.BaseURL, "http://127.0.0.1:8080", "", "8080")
		if err != nil {
			return opened{}, err
		}
		u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v1")
		if cfg.ToolCalling {
			cfg.BaseURL = u + "/v1"
			o, err := openOpenAI(cfg, hc, cfg.BaseURL, 0)
			o.tools = llamacppTools(hc, u)
			return o, err
		}
		numCtx := llamacppContext(ctx, hc, u)
		if numCtx == 0 {
			numCtx = cfg.NumCtx
		}
		return opened{model: &llamacpp{base: u, hc: hc}, url: u, numCtx: numCtx, images: imagesRefused,
			con: fixed(ModeGrammar, ServerLlamaCpp, "a GBNF grammar on llama.cpp's /completion, from a line's Action: label on")}, nil
	},
}

// llamaProps is what llama-server's /props says of the model it serves.
type llamaProps struct {
	NCtx     int `json:"n_ctx"`
	Settings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
	Caps *struct {
		ToolCalls *bool `json:"supports_tool_calls"`
	} `json:"chat_template_caps"`
}

// llamacppProps asks the server at base for its /props.
func llamacppProps(ctx context.Context, hc *http.Client, base string) (llamaProps, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var props llamaProps
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/props", nil)
	if err != nil {
		return props, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return props, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&props)
	return props, err
}

// llamacppContext asks the server at base for the context window of a
// slot, from its /props; 0 when it does not say.
func llamacppContext(ctx context.Context, hc *http.Client, base string) int {
	if resolving(ctx) {
		return 0
	}
	props, err := llamacppProps(ctx, hc, base)
	switch {
	case err != nil:
		return 0
	case props.Settings.NCtx > 0:
		return props.Settings.NCtx
	}
	return props.NCtx
}

// llamacppTools returns the check of whether the llama-server at base
// takes tool definitions: its /props says whether the model's chat
// template supports tool calls, and a template that does not has the
// server drop the tools without a word (it answers 200, in text).
func llamacppTools(hc *http.Client, base string) *toolSupport {
	return &toolSupport{check: func(ctx context.Context) (bool, bool) {
		props, err := llamacppProps(ctx, hc, base)
		if err != nil || props.Caps == nil || props.Caps.ToolCalls == nil {
			return false, false
		}
		return *props.Caps.ToolCalls, true
	}}
}

// llamacpp is a model served by llama-server, called through its own API.
type llamacpp struct {
	base string
	hc   *http.Client
}

// chatMessage is a message as /apply-template takes it.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// completionRequest is the body of a /completion call.
type completionRequest struct {
	Prompt      string   `json:"prompt"`
	Stream      bool     `json:"stream"`
	CachePrompt bool     `json:"cache_prompt"`
	NPredict    int      `json:"n_predict,omitempty"`
	Temperature float64  `json:"temperature"`
	TopP        float64  `json:"top_p,omitempty"`
	TopK        int      `json:"top_k,omitempty"`
	Seed        int      `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
}

// completionEvent is one server-sent event of a streamed /completion.
type completionEvent struct {
	Content         string `json:"content"`
	Stop            bool   `json:"stop"`
	StopType        string `json:"stop_type"` // "eos", "word", or "limit" when cut
	Truncated       bool   `json:"truncated"` // the context ran out, or was shifted
	TokensPredicted int    `json:"tokens_predicted"`
	TokensEvaluated int    `json:"tokens_evaluated"`
}

// stopReason returns why the reply ended: its stop_type, and "limit" for
// a reply the server truncated because the context ran out.
func (ev completionEvent) stopReason() string {
	if ev.Truncated {
		return "limit"
	}
	return ev.StopType
}

// GenerateContent renders msgs with the model's chat template and
// generates the reply, streaming it to the options' streaming function.
// The grammar of a constraint is added to the request by the transport.
func (m *llamacpp) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	prompt, err := m.applyTemplate(ctx, msgs)
	if err != nil {
		return nil, err
	}
	ctx = thinkingGrammar(ctx, prompt)
	body, err := json.Marshal(completionRequest{Prompt: prompt, Stream: true, CachePrompt: true, NPredict: o.MaxTokens,
		Temperature: o.Temperature, TopP: o.TopP, TopK: o.TopK, Seed: o.Seed, Stop: o.StopWords})
	if err != nil {
		return nil, err
	}
	resp, err := m.post(ctx, "/completion", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var text strings.Builder
	var last completionEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if msg, ok := bytes.CutPrefix(line, []byte("error: ")); ok {
			return nil, fmt.Errorf("llama.cpp: %s", errorMessage(msg))
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue // a comment, such as a ping, or the blank line between events
		}
		var ev completionEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return nil, fmt.Errorf("llama.cpp: an event of the reply is not JSON: %w", err)
		}
		if ev.Content != "" {
			text.WriteString(ev.Content)
			if o.StreamingFunc != nil {
				if err := o.StreamingFunc(ctx, []byte(ev.Content)); err != nil {
					return nil, err
				}
			}
		}
		if ev.Stop {
			last = ev
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !last.Stop {
		return nil, fmt.Errorf("%w: the stream stopped without its end", ErrIncomplete)
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:    text.String(),
		StopReason: last.stopReason(),
		GenerationInfo: map[string]any{
			"PromptTokens":     last.TokensEvaluated,
			"CompletionTokens": last.TokensPredicted,
			"TotalTokens":      last.TokensEvaluated + last.TokensPredicted,
		},
	}}}, nil
}

// thinkingGrammar returns ctx with the grammar of a reply that starts
// inside a reasoning block, for a prompt that ends inside one the chat
// template opened: nothing is bound before the block's end.
func thinkingGrammar(ctx context.Context, prompt string) context.Context {
	c, _ := ctx.Value(constraintCtxKey{}).(*Constraint)
	fields, _ := ctx.Value(fieldsKey{}).(map[string]any)
	if c == nil || c.ThinkingGrammar == "" || fields == nil || fields["grammar"] == nil ||
		!strings.HasSuffix(strings.TrimSpace(prompt), "<think>") {
		return ctx
	}
	f := maps.Clone(fields)
	f["grammar"] = c.ThinkingGrammar
	return context.WithValue(ctx, fieldsKey{}, f)
}

// applyTemplate renders msgs as the prompt the model's chat template
// makes of them, ready for the assistant's reply.
func (m *llamacpp) applyTemplate(ctx context.Context, msgs []llms.MessageContent) (string, error) {
	chat := make([]chatMessage, 0, len(msgs))
	for _, msg := range msgs {
		role := "user"
		switch msg.Role {
		case llms.ChatMessageTypeSystem:
			role = "system"
		case llms.ChatMessageTypeAI:
			role = "assistant"
		case llms.ChatMessageTypeTool:
			role = "tool"
		}
		chat = append(chat, chatMessage{Role: role, Content: MessageText(msg)})
	}
	body, err := json.Marshal(map[string]any{"messages": chat})
	if err != nil {
		return "", err
	}
	resp, err := m.post(ctx, "/apply-template", body)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Prompt == nil {
		return "", fmt.Errorf("llama.cpp: the server's /apply-template gave no prompt (%v); is it llama-server?", err)
	}
	return *out.Prompt, nil
}

// post sends a JSON body to the server's endpoint path.
func (m *llamacpp) post(ctx context.Context, path string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := doer{m.hc}.Do(req)
	if err != nil {
		var se *httpStatusError
		if errors.As(err, &se) && se.code == http.StatusNotFound {
			return nil, fmt.Errorf("%w: the server has no %s; llama-server has it", err, path)
		}
		return nil, err
	}
	return resp, nil
}

// Call implements the deprecated part of llms.Model.
func (m *llamacpp) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, opts...)
}
