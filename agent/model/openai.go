package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Servers that speak the OpenAI API, as Config.Server names them, and
// how each binds a reply.
const (
	ServerVLLM     = "vllm"
	ServerSGLang   = "sglang"
	ServerLMStudio = "lmstudio"
	ServerLlamaCpp = "llamacpp"
	ServerOllama   = "ollama"
	ServerOpenAI   = "openai"
)

// openaiClient is the client of the OpenAI-compatible chat API,
// /chat/completions under the server's base URL (…/v1): OpenAI's own,
// vLLM, SGLang, LM Studio, llamafile, llama-server's, Ollama's, Gemini's.
type openaiClient struct {
	base, key string
	hc        *http.Client
	hosted    bool // OpenAI's own API
	kind      *serverKind
	tools     *toolSupport
	// loaded is the context window Ollama loaded the model with, when
	// the server is Ollama, which cuts a prompt to it without a word.
	mu     sync.Mutex
	loaded int
	model  string
}

// serving returns the open function of a provider that is the openai
// provider told which server it talks to.
func serving(server string) func(context.Context, Resolved, Config, *http.Client) (opened, error) {
	return func(ctx context.Context, r Resolved, cfg Config, hc *http.Client) (opened, error) {
		cfg.Server = server
		return openOpenAI(ctx, r, cfg, hc)
	}
}

// openOpenAI opens the OpenAI-compatible server r resolves to.
func openOpenAI(_ context.Context, r Resolved, cfg Config, hc *http.Client) (opened, error) {
	p := r.Provider
	if r.Key == "" && p.KeyEnv != "" && !r.Found && (p.keyed || p.hosted && !isLocal(r.URL)) {
		e := &Error{Fix: SettingAPIKey, Err: fmt.Errorf("%w: set %s", ErrNoAPIKey, p.KeyEnv)}
		if p.hosted {
			e.URL = Redact(r.URL)
			e.Err = fmt.Errorf("%w; a local OpenAI-compatible server needs none (%s is not local)", e.Err, Redact(r.URL))
		}
		return opened{}, e
	}
	c := &openaiClient{base: r.URL, key: r.Key, hc: hc, hosted: hostedOpenAI(r.URL), model: r.Model}
	c.kind = &serverKind{given: strings.ToLower(cfg.Server), detect: c.detect}
	c.tools = c.toolSupport()
	return opened{client: c, images: true, con: &constrainer{detect: c.constraining}}, nil
}

// hostedOpenAI reports whether u is OpenAI's own API.
func hostedOpenAI(u string) bool {
	pu, err := url.Parse(u)
	return err == nil && pu.Hostname() == "api.openai.com"
}

// reasoningModel reports whether OpenAI's model takes only its own
// temperature (o1, o3, GPT-5).
func reasoningModel(model string) bool {
	return strings.HasPrefix(model, "o1-") || model == "o3" || strings.HasPrefix(model, "o3-") || strings.HasPrefix(model, "gpt-5")
}

// header returns the headers of a request: the key, as a bearer token.
func (c *openaiClient) header() http.Header {
	h := http.Header{}
	if c.key != "" {
		h.Set("Authorization", "Bearer "+c.key)
	}
	return h
}

// openaiRequest is the body of /chat/completions: the fields in the
// order of their names. The servers that speak the protocol take options
// of their own at its top (min_p, repeat_penalty, a grammar), where
// Config.Options go (see encode).
type openaiRequest struct {
	FrequencyPenalty    float64           `json:"frequency_penalty,omitempty"`
	Grammar             string            `json:"grammar,omitempty"`
	MaxCompletionTokens int               `json:"max_completion_tokens,omitempty"`
	MaxTokens           int               `json:"max_tokens,omitempty"`
	Messages            []openaiMessageIn `json:"messages"`
	Model               string            `json:"model"`
	PresencePenalty     float64           `json:"presence_penalty,omitempty"`
	ResponseFormat      *ResponseFormat   `json:"response_format,omitempty"`
	Seed                int               `json:"seed,omitempty"`
	Stop                []string          `json:"stop,omitempty"`
	Stream              bool              `json:"stream"`
	StreamOptions       *streamOptions    `json:"stream_options,omitempty"`
	Temperature         *float64          `json:"temperature,omitempty"`
	ToolChoice          any               `json:"tool_choice,omitempty"`
	Tools               []llms.Tool       `json:"tools,omitempty"`
	TopK                int               `json:"top_k,omitempty"`
	TopP                float64           `json:"top_p,omitempty"`
}

// streamOptions asks a streamed reply for its usage.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// openaiMessageIn is a message of an openaiRequest.
type openaiMessageIn struct {
	Content    openaiContent    `json:"content"`
	Role       string           `json:"role"`
	ToolCallID *string          `json:"tool_call_id,omitempty"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
}

// openaiContent is a message's content: its text, or its parts when it
// holds an image.
type openaiContent struct {
	text  string
	parts []openaiPart
}

// MarshalJSON writes the text as a string, or the parts as a list.
func (c openaiContent) MarshalJSON() ([]byte, error) {
	if c.parts != nil {
		return jsonBody(c.parts)
	}
	return jsonBody(c.text)
}

// openaiPart is a part of a message's content: text or an image.
type openaiPart struct {
	ImageURL *openaiImage `json:"image_url,omitempty"`
	Text     *string      `json:"text,omitempty"`
	Type     string       `json:"type"`
}

// openaiImage is the image of an openaiPart.
type openaiImage struct {
	URL string `json:"url"`
}

// openaiToolCall is a tool call of an earlier reply.
type openaiToolCall struct {
	Function struct {
		Arguments string `json:"arguments"`
		Name      string `json:"name"`
	} `json:"function"`
	ID   string `json:"id"`
	Type string `json:"type"`
}

// body returns the request of k, and the bound it sets on the reply's
// tokens (0 for none).
func (c *openaiClient) body(k *call) ([]byte, int, error) {
	o := k.o
	body := openaiRequest{Model: k.model, Messages: openaiMessages(k.msgs), Stream: k.stream(), Temperature: k.temperature(),
		Stop: k.stops(), TopP: o.TopP, Seed: o.Seed, FrequencyPenalty: o.FrequencyPenalty, PresencePenalty: o.PresencePenalty}
	if k.stream() {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if reasoningModel(k.model) {
		body.Temperature = nil
	}
	if !c.hosted {
		body.TopK = o.TopK // not OpenAI's
	}
	bound, key := &body.MaxTokens, "max_tokens" // what the servers that speak OpenAI's API read (Ollama's /v1 nothing else)
	if c.hosted {
		bound, key = &body.MaxCompletionTokens, "max_completion_tokens" // OpenAI's reasoning models take only this
	}
	*bound = k.maxTokens()
	if len(o.Tools) > 0 {
		body.Tools, body.ToolChoice = o.Tools, o.ToolChoice
	}
	if o.JSONMode {
		body.ResponseFormat = &ResponseFormat{Type: "json_object"}
	}
	if b := k.bind; b != nil {
		body.Grammar = b.Fields.Grammar
		if b.Fields.ResponseFormat != nil {
			body.ResponseFormat = b.Fields.ResponseFormat
		}
	}
	top := k.topLevel()
	data, err := encode(body, top)
	limit := *bound
	if v, ok := top[key]; ok {
		limit = intOf(v)
	}
	return data, limit, err
}

// openaiMessages returns msgs as the OpenAI API takes them: text as a
// string, with images as a list of parts, tool calls and their results.
func openaiMessages(msgs []llms.MessageContent) []openaiMessageIn {
	out := make([]openaiMessageIn, 0, len(msgs))
	for _, m := range msgs {
		msg := openaiMessageIn{Role: Role(m.Role), Content: openaiContent{text: textOf(m)}}
		var parts []openaiPart
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				parts = append(parts, openaiPart{Type: "text", Text: &p.Text})
			case llms.ImageURLContent:
				parts = append(parts, openaiPart{Type: "image_url", ImageURL: &openaiImage{URL: p.URL}})
			case llms.BinaryContent:
				parts = append(parts, openaiPart{Type: "image_url", ImageURL: &openaiImage{URL: dataURL(p)}})
			case llms.ToolCall:
				if p.FunctionCall != nil {
					tc := openaiToolCall{ID: p.ID, Type: "function"}
					tc.Function.Name, tc.Function.Arguments = p.FunctionCall.Name, p.FunctionCall.Arguments
					msg.ToolCalls = append(msg.ToolCalls, tc)
				}
			case llms.ToolCallResponse:
				msg.Content.text, msg.ToolCallID = p.Content, &p.ToolCallID
			}
		}
		if len(parts) > 1 || len(parts) == 1 && parts[0].Type != "text" {
			msg.Content.parts = parts
		}
		out = append(out, msg)
	}
	return out
}

// openaiMessage is the message of a choice, whole or a delta of one.
type openaiMessage struct {
	Content          string `json:"content"`
	ReasoningContent string `json:"reasoning_content"` // llama.cpp, vLLM, DeepSeek
	Reasoning        string `json:"reasoning"`         // Ollama, newer vLLM
	ToolCalls        []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// openaiChunk is an event of a streamed chat completion, or a whole one.
type openaiChunk struct {
	Choices []struct {
		Index        int            `json:"index"`
		Delta        *openaiMessage `json:"delta"`
		Message      *openaiMessage `json:"message"`
		FinishReason *string        `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	SystemFingerprint string `json:"system_fingerprint"`
	Model             string `json:"model"`
}

// decodeOpenAI reads an event of a reply, or a whole reply.
func decodeOpenAI(data []byte) (piece, error) {
	var ch openaiChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return piece{}, err
	}
	p := piece{ollama: ch.SystemFingerprint == "fp_ollama", model: ch.Model}
	if ch.Usage != nil {
		p.usage = &Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens}
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		m := choice.Delta
		if m == nil {
			m = choice.Message
		}
		if m != nil {
			p.text, p.reasoning = m.Content, m.ReasoningContent+m.Reasoning
			for i, tc := range m.ToolCalls {
				index := i
				if tc.Index != nil {
					index = *tc.Index
				}
				p.calls = append(p.calls, callPart{index: index, id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments})
			}
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			p.stop, p.end = *choice.FinishReason, true
		}
	}
	return p, nil
}

// generate makes the call k. A call with tools to a llama-server whose
// chat template takes none fails before it is sent; a reply from Ollama,
// which cuts a prompt too long for the window it loaded the model with,
// is checked against that window.
func (c *openaiClient) generate(ctx context.Context, k *call) (*Reply, error) {
	if len(k.o.Tools) > 0 && c.tools.refuses(ctx) {
		return nil, &Error{Err: ErrNoToolCalls, Hint: "start the server with a model whose chat template supports tool calls, or use the text protocol"}
	}
	body, limit, err := c.body(k)
	if err != nil {
		return nil, err
	}
	resp, err := post(ctx, c.hc, c.base+"/chat/completions", body, c.header())
	if err != nil {
		return nil, err
	}
	r := newReply(k, limit)
	r.ollama = c.kind.known() == ServerOllama
	if err := read(ctx, resp, decodeOpenAI, r); err != nil {
		return nil, err
	}
	if r.ollama {
		c.kind.learn(ServerOllama) // it names itself in every chunk
		if err := c.ollamaCut(ctx, r.usage); err != nil {
			return nil, err
		}
	}
	return r.result(), nil
}

// toolSupport returns the check of whether the server takes tool
// definitions, where it can tell: a llama-server says so in its /props.
func (c *openaiClient) toolSupport() *toolSupport {
	return &toolSupport{check: func(ctx context.Context) (bool, bool) {
		if c.kind.get(ctx) != ServerLlamaCpp {
			return false, false
		}
		return llamacppTools(ctx, c.hc, llamaBase(c.base))
	}}
}

// ollamaCut checks the counts of a reply from Ollama's OpenAI-compatible
// endpoint, which takes no window, against the window Ollama loaded the
// model with: a prompt cut to it, and a reply that filled it (Ollama then
// drops the start of the window and goes on), are errors.
func (c *openaiClient) ollamaCut(ctx context.Context, u Usage) error {
	if u.PromptTokens <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded == 0 || u.PromptTokens+u.CompletionTokens >= c.loaded {
		c.loaded = ollamaLoaded(ctx, c.hc, strings.TrimSuffix(c.base, "/v1"), c.model)
	}
	w := c.loaded
	switch {
	case w == 0:
		return nil
	case u.PromptTokens >= w:
		return &Error{ContextTokens: w, Err: fmt.Errorf("%w: the server cut the prompt to the %d tokens of its context window, "+
			"and said nothing", ErrContextOverflow, w)}
	case u.PromptTokens+u.CompletionTokens >= w:
		return &Error{PromptTokens: u.PromptTokens, ContextTokens: w, Err: fmt.Errorf("%w: %d tokens of prompt and %d of reply, in a window of %d, "+
			"and the server dropped the start of the window to go on", ErrContextFull, u.PromptTokens, u.CompletionTokens, w)}
	}
	return nil
}

// hint says what would make the window larger on Ollama's
// OpenAI-compatible endpoint, which takes no window size.
func (c *openaiClient) hint(_ context.Context, e *Error) {
	if errors.Is(e, ErrContextOverflow) && c.kind.known() == ServerOllama {
		overflowed(e, NoSetting, "set OLLAMA_CONTEXT_LENGTH where the server runs, or talk to Ollama's own API (the ollama provider), "+
			"which asks for the window it needs", "Ollama's OpenAI-compatible endpoint takes no context size")
	}
}

// info returns what is known of the window: nothing, but whether the
// server cuts a prompt too long without a word (Ollama does; one of
// unknown kind may).
func (c *openaiClient) info(ctx context.Context) Window {
	switch c.kind.known() {
	case ServerOllama:
		return Window{Cuts: true, Hint: "set OLLAMA_CONTEXT_LENGTH where the server runs"}
	case "":
		return Window{Cuts: true}
	}
	return Window{}
}

// constraining finds how the server binds replies: as Config.Server
// says, else OpenAI's own API by its address, else by the owner its
// /v1/models gives its models. Of a llama-server it also asks whether its
// chat template opens a reasoning block in the prompt, which the grammar
// must then start in.
func (c *openaiClient) constraining(ctx context.Context) (Mode, string, string) {
	kind := c.kind.get(ctx)
	if kind == ServerLlamaCpp && opensThinking(ctx, c.hc, llamaBase(c.base)) {
		kind = llamacppThinking
	}
	return serverMode(kind)
}

// llamaBase returns the address of a llama-server from the base URL of
// its OpenAI-compatible API.
func llamaBase(u string) string { return strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v1") }

// opensThinking reports whether the chat template of the llama-server at
// base ends the prompt inside a reasoning block it opens, from its
// /apply-template of a question.
func opensThinking(ctx context.Context, hc *http.Client, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	prompt, err := (&llamacpp{base: base, hc: hc}).applyTemplate(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "?")})
	return err == nil && strings.HasSuffix(strings.TrimSpace(prompt), "<think>")
}

// llamacppThinking is the kind of a llama-server whose chat template opens
// a reasoning block in the prompt.
const llamacppThinking = "llamacpp-thinking"

// serverMode returns how a server of kind binds replies.
func serverMode(kind string) (Mode, string, string) {
	switch kind {
	case ServerLlamaCpp, llamacppThinking:
		return ModeGrammar, kind, "a GBNF grammar on llama.cpp's /v1/chat/completions, from a line's Action: label on"
	case ServerVLLM:
		return ModeTag, kind, "a structural tag in response_format (vLLM)"
	case ServerSGLang:
		return ModeTag, kind, "a structural tag in response_format (SGLang)"
	case ServerOpenAI:
		return ModeSchema, openaiHosted, "the JSON object protocol, bound by a strict JSON schema in response_format"
	case ServerLMStudio, ServerOllama:
		return ModeSchema, kind, "the JSON object protocol, bound by a JSON schema in response_format"
	}
	return ModeNone, kind, ""
}

// serverKind is which server answers an OpenAI-compatible client, found
// once: as given, or by asking the server.
type serverKind struct {
	given  string
	detect func(ctx context.Context) string

	mu    sync.Mutex
	found bool
	kind  string
}

// get returns the kind, asking the server the first time; a look that
// the context cut short is made again.
func (s *serverKind) get(ctx context.Context) string {
	if s.given != "" {
		return s.given
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.found {
		s.kind = s.detect(ctx)
		s.found = ctx.Err() == nil
	}
	return s.kind
}

// learn keeps a kind the server's replies told, when none was found yet.
func (s *serverKind) learn(kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.found || s.kind == "" {
		s.kind, s.found = kind, true
	}
}

// known returns the kind if it is known without asking, or "".
func (s *serverKind) known() string {
	if s.given != "" {
		return s.given
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kind
}

// detect tells which server answers: OpenAI's API by its host, the others
// by the owned_by of their /v1/models, or "" when it cannot tell.
func (c *openaiClient) detect(ctx context.Context) string {
	if c.hosted {
		return ServerOpenAI
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := get(ctx, c.hc, strings.TrimSuffix(c.base, "/")+"/models", c.key)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&list) != nil || len(list.Data) == 0 {
		return ""
	}
	return ownerKind(list.Data[0].OwnedBy)
}
