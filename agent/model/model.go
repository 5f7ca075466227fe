package model

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// DefaultNumCtx is the context window asked of Ollama and llamafile, whose
// own default (2048) silently truncates agent prompts.
const DefaultNumCtx = 8192

// DefaultMaxTokens bounds the tokens of one reply, sent on every call: a
// step needs far fewer, and a model that runs away (repeating itself, or
// writing a made-up conversation) would otherwise fill the whole context
// window before it stops. A reply cut at the bound says so (see
// AtTokenLimit), and is never an answer.
const DefaultMaxTokens = 4096

// Config says which model to talk to and how. The zero Config means Ollama
// at OLLAMA_HOST or http://127.0.0.1:11434 with its default model.
type Config struct {
	// Provider is the name of one of Providers; empty means "ollama".
	Provider string
	// Model is the model's name; empty means the provider's DefaultModel.
	Model string
	// BaseURL is the server's URL. Empty means the provider's URLEnv, or
	// its usual address: http://127.0.0.1:11434 for ollama, OpenAI's API
	// for openai, http://127.0.0.1:8080 for llamafile. With openai it
	// points at any OpenAI-compatible server (llama.cpp server, vLLM, LM
	// Studio); a URL without a path gets /v1.
	BaseURL string
	// APIKey is the provider's key; empty means the provider's KeyEnv. A
	// local OpenAI-compatible server (a BaseURL on this machine) needs none.
	APIKey string
	// NumCtx is the context window asked of Ollama and llamafile, in
	// tokens; zero means DefaultNumCtx.
	NumCtx int
	// Temperature is the sampling temperature, sent on every call; zero
	// (the default) keeps the agent's steps as repeatable as the model allows.
	Temperature float64
	// TopP, TopK and Seed are sent on every call when not zero.
	TopP float64
	TopK int
	Seed int
	// MaxTokens bounds the tokens of a reply, sent on every call as the
	// server names it (n_predict, num_predict, max_tokens); zero means
	// DefaultMaxTokens, and below zero sends no bound, leaving it to the
	// server.
	MaxTokens int
	// Record, when set, is a file to write every request and response to,
	// as a JSONL cassette.
	Record string
	// Replay is the cassette the "replay" provider answers from.
	Replay string
	// ToolCalling asks for a client that passes tool definitions on and
	// returns the model's tool calls (the native protocol). For Ollama,
	// whose langchaingo client drops them, it talks to Ollama's
	// OpenAI-compatible /v1 endpoint instead of its own API.
	ToolCalling bool
	// MaxReplyBytes bounds the bytes of one response from the server;
	// zero means DefaultMaxReplyBytes. A reply past it is an error.
	MaxReplyBytes int64
	// IdleTimeout bounds the time the server may send nothing, before its
	// headers or within a reply; zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// HTTPClient, when set, is the client the provider talks through; its
	// Transport is kept.
	HTTPClient *http.Client
	// Options are sent as they are with every generation request, for
	// what the server takes beyond the fields above (repeat_penalty,
	// min_p, keep_alive…): in Ollama's "options" object on its own API,
	// at the top of the request body elsewhere. They win over the values
	// the client sets.
	Options map[string]any
	// Server says which server the openai provider talks to, for binding
	// replies to the tools: ServerVLLM, ServerSGLang, ServerLMStudio,
	// ServerLlamaCpp, ServerOllama or ServerOpenAI. Empty means to find
	// out, from the server's address or its /v1/models, when a call
	// first asks for a constraint.
	Server string
}

// New returns the model cfg describes. Every call through it carries the
// sampling options of cfg (langchaingo's Ollama client lets the options of
// a call replace the constructor's), and its errors are *Error values that
// say what to change. With cfg.Record set, every call is also written to
// the cassette.
func New(ctx context.Context, cfg Config) (llms.Model, error) {
	p, ok := Lookup(cfg.Provider)
	if !ok {
		return nil, &Error{Provider: cfg.Provider, Fix: SettingProvider,
			Err: fmt.Errorf("%w %q: use one of %s", ErrUnknownProvider, cfg.Provider, strings.Join(Names(), ", "))}
	}
	if cfg.NumCtx <= 0 {
		cfg.NumCtx = DefaultNumCtx
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.Model == "" {
		cfg.Model = p.DefaultModel
	}
	if cfg.BaseURL == "" && p.URLEnv != "" {
		cfg.BaseURL = os.Getenv(p.URLEnv)
	}
	if cfg.APIKey == "" && p.KeyEnv != "" {
		cfg.APIKey = os.Getenv(p.KeyEnv)
	}
	b := bounds{maxReply: cfg.MaxReplyBytes, idle: cfg.IdleTimeout, drop: &dropped{}}
	if b.maxReply <= 0 {
		b.maxReply = DefaultMaxReplyBytes
	}
	if b.idle <= 0 {
		b.idle = DefaultIdleTimeout
	}
	hc := newHTTPClient(cfg.HTTPClient, b)
	o, err := p.open(ctx, cfg, hc)
	if err != nil {
		var me *Error
		if errors.As(err, &me) {
			me.Provider = p.Name
			return nil, me
		}
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	options := o.options
	if len(cfg.Options) > 0 {
		options = maps.Clone(options)
		if options == nil {
			options = map[string]any{}
		}
		maps.Copy(options, cfg.Options)
	}
	var m llms.Model = &served{Model: o.model, provider: p.Name, name: cfg.Model, url: Redact(o.url),
		numCtx: o.numCtx, defaults: append(samplingOptions(cfg), o.opts...), secrets: secretsOf(cfg), hc: hc, drop: b.drop, con: o.con,
		options: options, images: o.images, tools: o.tools, window: o.window}
	if cfg.Record != "" {
		rec, err := NewRecorder(m, cfg.Record)
		if err != nil {
			return nil, err
		}
		m = rec
	}
	return m, nil
}

// samplingOptions are the call options of cfg sent on every call.
func samplingOptions(cfg Config) []llms.CallOption {
	opts := []llms.CallOption{llms.WithTemperature(cfg.Temperature)}
	if cfg.TopP != 0 {
		opts = append(opts, llms.WithTopP(cfg.TopP))
	}
	if cfg.TopK != 0 {
		opts = append(opts, llms.WithTopK(cfg.TopK))
	}
	if cfg.Seed != 0 {
		opts = append(opts, llms.WithSeed(cfg.Seed))
	}
	if cfg.MaxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(cfg.MaxTokens))
	}
	return opts
}

// served is a provider's model with the sampling options of its
// configuration sent on every call and errors that say what to change.
type served struct {
	llms.Model
	provider, name, url string
	numCtx              int
	defaults            []llms.CallOption
	secrets             []string       // removed from every error message
	hc                  *http.Client   // the provider's client, to ask the server more
	drop                *dropped       // the parameters the server refused
	con                 *constrainer   // how the server binds replies, or nil
	options             map[string]any // the provider's fields and Config.Options, sent with every call
	images              imageForm      // how the client sends images
	tools               *toolSupport   // whether the server takes tool definitions, or nil
	window              *ollamaWindow  // Ollama's context window, or nil
}

// Dropped returns the request parameters ("stop", "temperature") the
// server refused, which the model leaves out of its calls since.
func (m *served) Dropped() []string { return m.drop.list() }

// secretsOf returns the secrets of cfg: its API key and the password of
// its server's URL.
func secretsOf(cfg Config) []string {
	secrets := []string{cfg.APIKey}
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw)
		}
	}
	return secrets
}

// GenerateContent calls the provider with the configured options first.
// A call's llms.WithStreamingReasoningFunc receives the reasoning a
// server sends apart from the reply as it arrives, from every provider
// that sends it (Ollama's "thinking", OpenAI-compatible servers'
// "reasoning_content").
// When the server refuses a parameter it can do without (stop sequences,
// the temperature), as reasoning models and some servers do, the call is
// made once more without it, and so are the calls after (see Dropped).
func (m *served) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	return m.bound(ctx, opts, func(ctx context.Context, opts []llms.CallOption) (*llms.ContentResponse, error) {
		resp, err := m.generate(ctx, msgs, opts)
		var me *Error
		if errors.As(err, &me) && m.drop != nil {
			if p := refused(me); p != "" && m.drop.add(p) {
				return m.generate(ctx, msgs, opts)
			}
		}
		for errOverflow(err) {
			// The model takes a longer context than was asked: ask for
			// twice as much, as long as it does.
			if _, grew := m.window.grow(); !grew {
				break
			}
			resp, err = m.generate(ctx, msgs, opts)
		}
		return resp, err
	})
}

// generate makes one call.
func (m *served) generate(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption) (*llms.ContentResponse, error) {
	msgs, err := m.images.withImages(m.provider, msgs)
	if err != nil {
		return nil, err
	}
	all := make([]llms.CallOption, 0, len(m.defaults)+len(opts))
	all = append(append(all, m.defaults...), opts...)
	options := m.options
	if m.window != nil {
		if n := m.window.asking(); n != m.numCtx {
			options = maps.Clone(options)
			if options == nil {
				options = map[string]any{}
			}
			options["num_ctx"] = n // grown since the client was made
		}
	}
	ctx, w := withWatch(withOptions(ctx, options))
	var o llms.CallOptions
	for _, opt := range all {
		opt(&o)
	}
	if len(o.Tools) > 0 && m.tools.refuses(ctx) {
		return nil, explain(&Error{Err: ErrNoToolCalls,
			Hint: "start the server with a model whose chat template supports tool calls, or use the text protocol"}, m.provider, m.name, m.url)
	}
	if fn := o.StreamingReasoningFunc; fn != nil {
		// The reasoning that a client drops (Ollama's "thinking") reaches
		// the caller as it arrives, as the OpenAI client passes on its
		// "reasoning_content": a caller that stops the stream keeps it.
		w.onThink = func(s string) { fn(ctx, []byte(s), nil) }
	}
	resp, err := m.Model.GenerateContent(ctx, msgs, all...)
	if werr := w.Err(); werr != nil && (err == nil || ctx.Err() == nil || errors.Is(werr, ErrIdle)) {
		// The transport saw what the client may have hidden: a reply
		// cut short, too large, or a server gone quiet.
		err = werr
	}
	if err == nil && len(resp.Choices) > 0 && resp.Choices[0].ReasoningContent == "" {
		resp.Choices[0].ReasoningContent = w.Thinking()
	}
	if err == nil && len(resp.Choices) > 0 && resp.Choices[0].StopReason == "" {
		resp.Choices[0].StopReason = w.StopReason()
	}
	if err == nil && len(resp.Choices) > 0 {
		if size, cut := m.window.cut(ctx, UsageOf(resp.Choices[0]).PromptTokens); cut {
			err = &Error{ContextTokens: size, Err: fmt.Errorf("%w: the server cut the prompt to the %d tokens of its context window, "+
				"and said nothing", ErrContextOverflow, size)}
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, redactError(err, m.secrets...)
		}
		e := explain(Classify(ctx, redactError(err, m.secrets...)), m.provider, m.name, m.url)
		if e.StatusCode == http.StatusNotFound && m.provider == ollamaProvider.Name && m.hc != nil {
			explainOllamaNotFound(ctx, e, m.hc)
		}
		if refusedImages(e.StatusCode, msgs) {
			e.Hint = "the model may not see images: use one that does (a vision model), or leave the images out"
		}
		if m.window != nil && errors.Is(e, ErrContextOverflow) {
			m.window.explain(e)
		}
		return nil, e
	}
	return resp, nil
}

// Call implements the deprecated part of llms.Model.
func (m *served) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, opts...)
}

// ContextWindow returns the context window asked of the server, or 0 when
// the provider does not take one.
func (m *served) ContextWindow() int { return m.numCtx }

// String names the provider, model and server, for logs.
func (m *served) String() string {
	if m.url == "" {
		return strings.TrimSpace(m.provider + " " + m.name)
	}
	return fmt.Sprintf("%s %s at %s", m.provider, m.name, m.url)
}

// serverURL normalises a server address: "host:port" and OLLAMA_HOST's
// "0.0.0.0" forms get a scheme, a URL without a port gets port when that
// is not empty, and a URL without a path gets path. The empty address is
// def.
func serverURL(raw, def, path, port string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return def, nil
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", &Error{Fix: SettingBaseURL, Err: fmt.Errorf("%w %q: write it as http://host:port", ErrBadURL, Redact(raw))}
	}
	if strings.HasPrefix(u.Host, "0.0.0.0") {
		u.Host = "127.0.0.1" + strings.TrimPrefix(u.Host, "0.0.0.0")
	}
	if u.Port() == "" && port != "" {
		u.Host += ":" + port
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = path
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// isLocal reports whether the server at raw runs on this machine or a
// private network, where OpenAI-compatible servers need no key.
func isLocal(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || strings.HasPrefix(h, "127.") || h == "::1" || strings.HasPrefix(h, "192.168.") ||
		strings.HasPrefix(h, "10.") || strings.HasSuffix(h, ".local") || h == "host.docker.internal"
}

// Redact returns raw with the password of a URL's user information
// replaced by "xxxxx", for messages and files; text that is not such a URL
// comes back unchanged.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
