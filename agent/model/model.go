package model

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/react-agent/react-agent/agent/redact"
	"github.com/tmc/langchaingo/llms"
)

// DefaultNumCtx is the context window asked of Ollama when Config.NumCtx
// is zero; Ollama's own default (2048, or 4096) silently truncates agent
// prompts. The window grows from it when a prompt needs more.
const DefaultNumCtx = 8192

// DefaultMaxTokens bounds the tokens of one reply, sent on every call: a
// step needs far fewer, and a model that runs away (repeating itself, or
// writing a made-up conversation) would otherwise fill the whole context
// window before it stops. A reply cut at the bound says so (see
// AtTokenLimit), and is never an answer.
const DefaultMaxTokens = 4096

// Config says which model to talk to and how. The zero Config means Ollama
// at the provider's Address, with its default model; with Getenv, at
// OLLAMA_HOST.
type Config struct {
	// Provider is the name of one of Providers; empty means "ollama".
	Provider string
	// Model is the model's name; empty means DefaultModel's, or the
	// provider's DefaultModel.
	Model string
	// DefaultModel, when not nil, gives the model to use when Model is
	// empty, by the provider's name; it returns "" to leave it to the
	// provider's own DefaultModel.
	DefaultModel func(provider string) string
	// BaseURL is the server's URL. Empty means the provider's URLEnv, or
	// its Address. With openai it points at any OpenAI-compatible server
	// (llama.cpp server, vLLM, LM Studio); a URL without a path gets /v1.
	BaseURL string
	// APIKey is the provider's key; empty means the provider's KeyEnv,
	// unless Found. A local OpenAI-compatible server (a BaseURL on this
	// machine) needs none.
	APIKey string
	// Getenv reads the environment for what the fields leave empty: the
	// provider's URLEnv and KeyEnv (OLLAMA_HOST, OPENAI_API_KEY, …), and
	// the proxy of its requests (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). Nil
	// reads none: the package never reads the process's environment
	// itself. Pass os.Getenv for it.
	Getenv func(key string) string
	// Found says that Provider is the kind of server found at BaseURL by
	// asking it (see Identify), not one chosen. Such a server gets a key
	// only from APIKey, never from the provider's KeyEnv, which holds a
	// key for the servers the user chose; and it needs none unless it
	// asks for one.
	Found bool
	// NumCtx is the context window asked of Ollama, in tokens, and the
	// most it grows to; zero means DefaultNumCtx, grown when a prompt
	// needs more, up to the longest context the model takes.
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
	// server. A stream whose text passes what that many tokens can hold
	// is ended there, as cut at the bound.
	MaxTokens int
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

// client speaks one wire protocol: it builds the request of a call and
// reads the reply, once, into a Reply. It says more of an error of its
// server it knows (hint), and what it knows of the context window (info).
type client interface {
	generate(ctx context.Context, k *call) (*Reply, error)
	hint(ctx context.Context, e *Error)
	info(ctx context.Context) Window
}

// opened is a provider's client with what New reports about it.
type opened struct {
	client client
	numCtx int          // the context window asked of the server, or 0
	con    *constrainer // how the server binds replies, or nil for not at all
	images bool         // the client sends images (else the server refuses them)
}

// New returns the model cfg describes, as Resolve works it out: a
// Generator and an llms.Model, Constrainer, Windowed and Dropper. Every
// call through it carries the sampling options of cfg, and its errors are
// *Error values that say what to change. It reads the environment through
// cfg.Getenv alone. The model keeps its connections to the server for
// the calls after; its CloseIdleConnections method closes those idle. The
// replay provider's models are package cassette's to open.
func New(ctx context.Context, cfg Config) (llms.Model, error) {
	r, err := Resolve(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	maxReply, idle := cfg.MaxReplyBytes, cfg.IdleTimeout
	if maxReply <= 0 {
		maxReply = DefaultMaxReplyBytes
	}
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	hc := newHTTPClient(cfg.HTTPClient, cfg.Getenv, maxReply, idle)
	o, err := r.Provider.open(ctx, r, cfg, hc)
	if err != nil {
		var me *Error
		if errors.As(err, &me) {
			me.Provider = r.Provider.Name
			return nil, me
		}
		return nil, fmt.Errorf("%s: %w", r.Provider.Name, err)
	}
	var m llms.Model = &served{client: o.client, hc: hc, found: r.Found, provider: r.Provider.Name, name: r.Model, url: Redact(r.URL),
		addr: addressOf(r.URL), numCtx: o.numCtx, defaults: samplingOptions(cfg), secrets: secretsOf(r), con: o.con,
		options: maps.Clone(cfg.Options), images: o.images,
		about: Description{Temperature: cfg.Temperature, MaxTokens: max(cfg.MaxTokens, 0)}}
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

// secretsOf returns the secrets of r: its API key and the password of
// its server's URL.
func secretsOf(r Resolved) []string {
	secrets := []string{r.Key}
	if u, err := url.Parse(r.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw)
		}
	}
	return secrets
}

// served is a provider's model with the sampling options of its
// configuration sent on every call and errors that say what to change.
type served struct {
	client              client
	hc                  *http.Client // the client's, whose idle connections CloseIdleConnections closes
	found               bool         // Config.Found: the server gets only Config.APIKey
	provider, name, url string
	addr                Address // the server's
	numCtx              int
	defaults            []llms.CallOption
	secrets             []string       // removed from every error message
	con                 *constrainer   // how the server binds replies, or nil
	options             map[string]any // Config.Options, sent with every call
	images              bool           // the client sends images
	drop                dropped        // the parameters the server refused
	about               Description    // the server and the sampling options, for Describe
}

// CloseIdleConnections closes the connections to the server that no
// call is using, as http.Client's method does: those of the client given
// in Config.HTTPClient, or of the model's own. A model kept for many
// calls, as an evaluation keeps one for all its questions, is closed so
// when it is done with; it may be called again after.
func (m *served) CloseIdleConnections() { m.hc.CloseIdleConnections() }

// Dropped returns the request parameters ("stop", "temperature") the
// server refused, which the model leaves out of its calls since.
func (m *served) Dropped() []string { return m.drop.list() }

// Generate makes the call req asks for, once, with the configuration's
// options first. Its errors are *Error values. When the server refuses
// a parameter the call can do without (stop sequences, the temperature),
// as reasoning models and some servers do, or the constraint of
// req.Constraint, the model leaves it out of the calls after (see Dropped
// and ConstraintRefused), and the error says to make the call again at
// once (RetryParameterDropped, RetryConstraintDropped); so does a
// context window that grew (RetryWindowGrown), and a kept-alive
// connection the server closed (RetryStaleConnection).
func (m *served) Generate(ctx context.Context, req Request) (*Reply, error) {
	k := m.call(req)
	if !m.images && slices.ContainsFunc(req.Messages, func(msg llms.MessageContent) bool { return !isText(msg) }) {
		return nil, &Error{Provider: m.provider, Fix: SettingProvider,
			Err: fmt.Errorf("%w; use a provider whose server sees images (the OpenAI-compatible endpoint of the same server, for one)", ErrNoImages)}
	}
	// A call made without its constraint, the server having refused it,
	// tells whether the refusal stands.
	unbound := req.Constraint != nil && m.con != nil && m.con.dropped()
	k.bind = m.binding(ctx, req.Constraint)
	r, err := m.client.generate(ctx, k)
	if unbound {
		m.con.tried(err == nil)
	}
	if err != nil {
		return nil, m.failed(ctx, k, err)
	}
	r.Server, r.Binding = m.addr, k.bind
	return r, nil
}

// call returns the call req asks for, with the configuration's options.
func (m *served) call(req Request) *call {
	all := make([]llms.CallOption, 0, len(m.defaults)+len(req.Options)+4)
	all = append(append(all, m.defaults...), req.Options...)
	k := &call{msgs: req.Messages, model: m.name, options: m.options, con: req.Constraint, notice: req.OnNotice, drop: m.drop.list()}
	for _, opt := range all {
		opt(&k.o)
	}
	if req.Stop != nil {
		k.o.StopWords = req.Stop
	}
	if req.Tools != nil {
		k.o.Tools = req.Tools
	}
	if fn := req.OnText; fn != nil {
		k.o.StreamingFunc = fn
	}
	if fn := req.OnReasoning; fn != nil {
		k.o.StreamingReasoningFunc = func(ctx context.Context, reasoning, _ []byte) error { return fn(ctx, reasoning) }
	}
	if k.o.Model != "" {
		k.model = k.o.Model
	}
	k.opts = append(all, func(o *llms.CallOptions) {
		o.StopWords, o.Tools, o.StreamingFunc, o.StreamingReasoningFunc = k.o.StopWords, k.o.Tools, k.o.StreamingFunc, k.o.StreamingReasoningFunc
	})
	return k
}

// failed returns the error of the call k, classified, with what to do
// about it, and the secrets of the configuration taken out. A parameter
// or a constraint the server refused is left out of the calls after, and
// the call may be made again at once.
func (m *served) failed(ctx context.Context, k *call, err error) error {
	if ctx.Err() != nil {
		return redact.Error(err, m.secrets...)
	}
	e := explain(Classify(ctx, redact.Error(err, m.secrets...)), m.provider, m.name, m.url)
	m.client.hint(ctx, e)
	if refusedImages(e.StatusCode, k.msgs) {
		e.Hint = "the model may not see images: use one that does (a vision model), or leave the images out"
	}
	if m.found && e.Fix == SettingAPIKey {
		// Not the provider's KeyEnv, which the hint would name.
		e.Err, e.Hint = fmt.Errorf("%w; %w", e.Err, ErrFoundKey), ""
	}
	var se *statusError
	switch {
	case errors.As(err, &se) && se.param != "" && m.drop.add(se.param):
		e.Temporary, e.Retry = true, RetryParameterDropped
		e.Detail, e.Hint = fmt.Sprintf("the server refused the parameter %q, which is left out of the calls from now on", se.param), ""
	case k.bind != nil && refusesConstraint(e):
		refusal := *e
		m.con.refuse(&refusal)
		e.Temporary, e.Retry = true, RetryConstraintDropped
		e.Detail, e.Hint = "the server may have refused the constraint, which the next call goes without", ""
	}
	return e
}

// GenerateContent makes the call with the configuration's options first,
// through Generate, once: langchaingo's options of the call are taken as
// Request.Options, and its stop sequences, tools and streaming functions
// as the Request's. An error whose Retry says to make the call again at
// once (a refused parameter now left out) is the caller's to make again.
func (m *served) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	r, err := m.Generate(ctx, RequestOf(msgs, opts))
	if err != nil {
		return nil, err
	}
	return r.Content(), nil
}

// Call implements the deprecated part of llms.Model.
func (m *served) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, opts...)
}

// ContextWindow returns the context window asked of the server, or 0 when
// it is not known.
func (m *served) ContextWindow() int { return m.numCtx }

// Window returns what the model knows of its context window.
func (m *served) Window(ctx context.Context) Window { return m.client.info(ctx) }

// String names the provider, model and server, for logs.
func (m *served) String() string {
	if m.url == "" {
		return strings.TrimSpace(m.provider + " " + m.name)
	}
	return fmt.Sprintf("%s %s at %s", m.provider, m.name, m.url)
}

// Window is what a model knows of its context window, the tokens of a
// prompt and its reply together.
type Window struct {
	// Tokens is the window now, or 0 when it is not known.
	Tokens int
	// Max is the most the window grows to when a prompt needs it
	// (Ollama's, up to the longest context the model takes); Tokens when
	// it does not grow.
	Max int
	// Cuts reports whether the server may cut a prompt too long for the
	// window without a word (Ollama's OpenAI-compatible endpoint), where
	// the others refuse it.
	Cuts bool
	// Fix is the setting that makes the window larger: SettingNumCtx
	// where the client asks for it; NoSetting where the server sets it
	// (llama-server's -c), or where nothing can.
	Fix Setting
	// Detail says what is known of the window beyond its size, in words
	// that name no setting: that it grows, or how large it can be; ""
	// when there is nothing to say.
	Detail string
	// Hint says how to make it larger, in words that name no setting; ""
	// when nothing can, or it is not known.
	Hint string
}

// Windowed is a model that knows its context window: the models of New,
// and the recorders of them.
type Windowed interface {
	// ContextWindow returns the context window asked of the server when
	// the model was made, in tokens, or 0 when it is not known.
	ContextWindow() int
	// Window returns what the model knows of its context window now.
	Window(ctx context.Context) Window
}

// WindowOf returns what m knows of its context window; the zero Window
// for a model that is not Windowed.
func WindowOf(ctx context.Context, m llms.Model) Window {
	if w, ok := m.(Windowed); ok {
		return w.Window(ctx)
	}
	return Window{}
}

// Dropper is a model that leaves out of its calls the request parameters
// its server refused: the models of New, and the recorders of them.
type Dropper interface {
	// Dropped returns the parameters ("stop", "temperature") the server
	// refused, which the calls since leave out.
	Dropped() []string
}

// dropped is the set of parameters a model's server refused, left out of
// every request after.
type dropped struct {
	mu     sync.Mutex
	params []string
}

func (d *dropped) add(p string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if slices.Contains(d.params, p) {
		return false
	}
	d.params = append(d.params, p)
	return true
}

func (d *dropped) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.params)
}
