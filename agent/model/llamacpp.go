package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// llamacpp is the client of llama.cpp's llama-server, through its own
// endpoints: /apply-template renders the chat with the model's template
// and /completion generates, which takes a grammar (see Request.Constraint)
// and keeps the prompt's cache; /props gives the context window. Calls of
// the native protocol, with tools or their results, go through its
// OpenAI-compatible /v1, which renders them.
type llamacpp struct {
	base string
	hc   *http.Client
	v1   *openaiClient
	// nCtx is the context window of a slot, from /props; 0 when unknown.
	nCtx int

	mu      sync.Mutex
	trained int // the context the model was trained for, from /v1/models; -1 when unknown
}

// openLlamacpp opens the llama-server r resolves to.
func openLlamacpp(ctx context.Context, r Resolved, _ Config, hc *http.Client) (opened, error) {
	base := llamaBase(r.URL)
	c := &llamacpp{base: base, hc: hc,
		v1: &openaiClient{base: base + "/v1", hc: hc, model: r.Model, kind: &serverKind{given: ServerLlamaCpp}}}
	c.v1.tools = c.v1.toolSupport()
	if props, err := llamacppProps(ctx, hc, base); err == nil {
		c.nCtx = props.nCtx()
	}
	return opened{client: c, numCtx: c.nCtx,
		con: fixed(ModeGrammar, ServerLlamaCpp, "a GBNF grammar on llama.cpp's /completion, from a line's Action: label on")}, nil
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

// nCtx returns the context window of a slot.
func (p llamaProps) nCtx() int {
	if p.Settings.NCtx > 0 {
		return p.Settings.NCtx
	}
	return max(p.NCtx, 0)
}

// llamacppProps asks the server at base for its /props.
func llamacppProps(ctx context.Context, hc *http.Client, base string) (llamaProps, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var props llamaProps
	resp, err := get(ctx, hc, base+"/props", "")
	if err != nil {
		return props, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&props)
	return props, err
}

// llamacppTools reports whether the llama-server at base takes tool
// definitions, and whether it said: its /props says whether the model's
// chat template supports tool calls, and a template that does not has the
// server drop the tools without a word (it answers 200, in text).
func llamacppTools(ctx context.Context, hc *http.Client, base string) (supported, known bool) {
	props, err := llamacppProps(ctx, hc, base)
	if err != nil || props.Caps == nil || props.Caps.ToolCalls == nil {
		return false, false
	}
	return *props.Caps.ToolCalls, true
}

// completionRequest is the body of llama-server's /completion: the
// fields in the order of their names. llama-server takes options of its
// own at its top (min_p, repeat_penalty, …), where Config.Options go (see
// encode).
type completionRequest struct {
	CachePrompt bool     `json:"cache_prompt"`
	Grammar     string   `json:"grammar,omitempty"`
	NPredict    int      `json:"n_predict,omitempty"`
	Prompt      string   `json:"prompt"`
	Seed        int      `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	Stream      bool     `json:"stream"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopK        int      `json:"top_k,omitempty"`
	TopP        float64  `json:"top_p,omitempty"`
}

// body returns the request of k for the prompt its messages make, and
// the bound it sets on the reply's tokens (0 for none).
func (c *llamacpp) body(k *call, prompt string) ([]byte, int, error) {
	o := k.o
	body := completionRequest{Prompt: prompt, Stream: k.stream(), CachePrompt: true, Temperature: k.temperature(),
		Stop: k.stops(), TopP: o.TopP, TopK: o.TopK, Seed: o.Seed, NPredict: k.maxTokens()}
	if k.bind != nil {
		body.Grammar = k.bind.Fields.Grammar
		if body.Grammar != "" && k.con != nil && k.con.ThinkingGrammar != "" && strings.HasSuffix(strings.TrimSpace(prompt), "<think>") {
			// The chat template opened a reasoning block in the prompt:
			// the reply starts inside it, and nothing is bound before its
			// end.
			body.Grammar = k.con.ThinkingGrammar
		}
	}
	top := k.topLevel()
	data, err := encode(body, top)
	limit := body.NPredict
	if v, ok := top["n_predict"]; ok {
		limit = intOf(v)
	}
	return data, limit, err
}

// templateRequest is the body of llama-server's /apply-template.
type templateRequest struct {
	Messages []templateMessage `json:"messages"`
}

// templateMessage is a message of a templateRequest: its text, the
// native protocol's parts written out.
type templateMessage struct {
	Content string `json:"content"`
	Role    string `json:"role"`
}

// completionEvent is one event of a streamed /completion, or the whole
// reply.
type completionEvent struct {
	Content         string `json:"content"`
	Stop            bool   `json:"stop"`
	StopType        string `json:"stop_type"` // "eos", "word", or "limit" when cut
	Truncated       bool   `json:"truncated"` // the context ran out
	TokensPredicted int    `json:"tokens_predicted"`
	TokensEvaluated int    `json:"tokens_evaluated"`
	Model           string `json:"model"`
}

// decodeCompletion returns the decoder of an event of a /completion
// reply, which keeps the last event in last.
func decodeCompletion(last *completionEvent) decoder {
	return func(data []byte) (piece, error) {
		var ev completionEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return piece{}, err
		}
		p := piece{text: ev.Content, end: ev.Stop, model: ev.Model}
		if ev.Stop {
			p.stop = ev.StopType
			p.usage = &Usage{PromptTokens: ev.TokensEvaluated, CompletionTokens: ev.TokensPredicted}
			*last = ev
		}
		return p, nil
	}
}

// generate renders k's messages with the model's chat template and
// generates the reply; a call of the native protocol goes through /v1.
func (c *llamacpp) generate(ctx context.Context, k *call) (*Reply, error) {
	if k.native() {
		return c.v1.generate(ctx, k)
	}
	prompt, err := c.applyTemplate(ctx, k.msgs)
	if err != nil {
		return nil, err
	}
	body, limit, err := c.body(k, prompt)
	if err != nil {
		return nil, err
	}
	resp, err := post(ctx, c.hc, c.base+"/completion", body, nil)
	if err != nil {
		return nil, err
	}
	var last completionEvent
	r := newReply(k, limit)
	if err := read(ctx, resp, decodeCompletion(&last), r); err != nil {
		return nil, err
	}
	if last.Truncated && (limit <= 0 || last.TokensPredicted < limit) {
		// The context ran out before the reply's bound: the window is
		// full, and a larger bound on the reply would not help.
		return nil, &Error{PromptTokens: last.TokensEvaluated, ContextTokens: c.nCtx, Err: fmt.Errorf(
			"%w: %d tokens of prompt and %d of reply, in a window of %d", ErrContextFull, last.TokensEvaluated, last.TokensPredicted, c.nCtx)}
	}
	return r.result(), nil
}

// hint says how the context window of the server can be made larger:
// llama-server's -c, which it caps at what the model was trained for.
func (c *llamacpp) hint(ctx context.Context, e *Error) {
	if !errors.Is(e, ErrContextOverflow) {
		return
	}
	if e.ContextTokens == 0 {
		e.ContextTokens = c.nCtx
	}
	larger, limit := c.enlarge(ctx, e.ContextTokens)
	overflowed(e, NoSetting, larger, limit)
}

// enlarge says how to make a window of n tokens larger, or, when nothing
// can, why not.
func (c *llamacpp) enlarge(ctx context.Context, n int) (larger, limit string) {
	trained := c.trainedContext(ctx)
	switch {
	case trained > 0 && n >= trained:
		return "", fmt.Sprintf("%d tokens is the context the model was trained for, which llama-server takes at most", trained)
	case trained > 0:
		return fmt.Sprintf("start llama-server with a larger context (its -c), up to the %d tokens the model was trained for", trained), ""
	}
	return "start llama-server with a larger context (its -c)", ""
}

// info returns the window of a slot of the server, which it sets when it
// starts.
func (c *llamacpp) info(ctx context.Context) Window {
	if c.nCtx == 0 {
		return Window{}
	}
	larger, limit := c.enlarge(ctx, c.nCtx)
	return Window{Tokens: c.nCtx, Max: c.nCtx, Hint: larger, Detail: limit}
}

// trainedContext returns the context the model was trained for, from the
// server's /v1/models, or 0 when it does not say.
func (c *llamacpp) trainedContext(ctx context.Context) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trained != 0 {
		return max(c.trained, 0)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c.trained = -1
	resp, err := get(ctx, c.hc, c.base+"/v1/models", "")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			Meta struct {
				Trained float64 `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&list) == nil && len(list.Data) > 0 {
		if n := clampWindow(list.Data[0].Meta.Trained); n > 0 {
			c.trained = n
		}
	}
	return max(c.trained, 0)
}

// applyTemplate renders msgs as the prompt the model's chat template
// makes of them, ready for the assistant's reply.
func (c *llamacpp) applyTemplate(ctx context.Context, msgs []llms.MessageContent) (string, error) {
	chat := templateRequest{Messages: make([]templateMessage, 0, len(msgs))}
	for _, m := range msgs {
		chat.Messages = append(chat.Messages, templateMessage{Role: Role(m.Role), Content: MessageText(m)})
	}
	body, err := jsonBody(chat)
	if err != nil {
		return "", err
	}
	resp, err := post(ctx, c.hc, c.base+"/apply-template", body, nil)
	if err != nil {
		var se *statusError
		if errors.As(err, &se) && se.code == http.StatusNotFound {
			return "", &Error{Err: err, Fix: SettingBaseURL, Detail: "the server has no /apply-template", Hint: "llama-server has it"}
		}
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Prompt == nil {
		return "", fmt.Errorf("%w: the server's /apply-template gave no prompt (%v); is it llama-server?", ErrMalformed, err)
	}
	return *out.Prompt, nil
}

// isText reports whether m holds text alone: no image.
func isText(m llms.MessageContent) bool {
	for _, p := range m.Parts {
		switch p.(type) {
		case llms.BinaryContent, llms.ImageURLContent:
			return false
		}
	}
	return true
}
