package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// Default model names, used when ModelConfig.Model is empty.
const (
	// DefaultOllamaModel is a small model that follows the ReAct format
	// well, in English and in Chinese. Install it with `ollama pull qwen2.5:7b`.
	DefaultOllamaModel = "qwen2.5:7b"
	// DefaultOpenAIModel is used with OpenAI's own API.
	DefaultOpenAIModel = "gpt-4o-mini"
	// DefaultAnthropicModel is used with Anthropic's API.
	DefaultAnthropicModel = "claude-3-5-haiku-latest"
	// DefaultGoogleAIModel is used with Google AI's API.
	DefaultGoogleAIModel = "gemini-1.5-flash"
	// DefaultNumCtx is the context window asked of Ollama and llamafile,
	// whose own default (2048) silently truncates agent prompts.
	DefaultNumCtx = 8192
)

// Providers returns the names ModelConfig.Provider accepts.
func Providers() []string {
	return []string{"ollama", "openai", "llamafile", "anthropic", "googleai", "replay"}
}

// ProviderEnv returns the environment variables NewModel reads for a
// provider's server URL and API key when ModelConfig leaves them empty.
// Either is empty when the provider reads none.
func ProviderEnv(provider string) (baseURL, apiKey string) {
	switch provider {
	case "", "ollama":
		return "OLLAMA_HOST", ""
	case "openai":
		return "OPENAI_BASE_URL", "OPENAI_API_KEY"
	case "llamafile":
		return "LLAMAFILE_HOST", "OPENAI_API_KEY"
	case "anthropic":
		return "", "ANTHROPIC_API_KEY"
	case "googleai":
		return "", "GOOGLE_API_KEY"
	}
	return "", ""
}

// ModelConfig says which model to talk to and how. The zero ModelConfig
// means Ollama at OLLAMA_HOST or http://127.0.0.1:11434 with
// DefaultOllamaModel.
type ModelConfig struct {
	// Provider is one of Providers (--provider); empty means "ollama".
	Provider string
	// Model is the model's name (--model); empty means the provider's default.
	Model string
	// BaseURL is the server's URL (--base-url). Empty means OLLAMA_HOST or
	// http://127.0.0.1:11434 for ollama, OPENAI_BASE_URL or OpenAI's API
	// for openai, LLAMAFILE_HOST or http://127.0.0.1:8080 for llamafile.
	// With openai it points at any OpenAI-compatible server (llama.cpp
	// server, vLLM, LM Studio); a URL without a path gets /v1.
	BaseURL string
	// APIKey is the provider's key (--api-key). Empty means OPENAI_API_KEY,
	// ANTHROPIC_API_KEY or GOOGLE_API_KEY. A local OpenAI-compatible server
	// (a BaseURL on this machine) needs none.
	APIKey string
	// NumCtx is the context window asked of Ollama and llamafile, in tokens
	// (--num-ctx); zero means DefaultNumCtx.
	NumCtx int
	// Temperature is the sampling temperature, sent on every call; zero
	// (the default) keeps the agent's steps as repeatable as the model allows.
	Temperature float64
	// TopP, TopK, Seed and MaxTokens are sent on every call when not zero.
	TopP      float64
	TopK      int
	Seed      int
	MaxTokens int
	// Record, when set, is a file to write every request and response to,
	// as a JSONL cassette (--record).
	Record string
	// Replay is the cassette the "replay" provider answers from (--replay).
	Replay string
	// HTTPClient, when set, is the client the provider talks through; its
	// Transport is kept.
	HTTPClient *http.Client
}

// NewModel returns the model cfg describes. Every call through it carries
// the sampling options of cfg (langchaingo's Ollama client lets the options
// of a call replace the constructor's), and its errors are *ModelError
// values that say what to fix. With cfg.Record set, every call is also
// written to the cassette.
func NewModel(ctx context.Context, cfg ModelConfig) (llms.Model, error) {
	if cfg.Provider == "" {
		cfg.Provider = "ollama"
	}
	if cfg.NumCtx <= 0 {
		cfg.NumCtx = DefaultNumCtx
	}
	m := &providerModel{provider: cfg.Provider}
	urlEnv, keyEnv := ProviderEnv(cfg.Provider)
	hc := newHTTPClient(cfg.HTTPClient)
	var err error
	switch cfg.Provider {
	case "ollama":
		m.name = or(cfg.Model, DefaultOllamaModel)
		m.url, err = baseURL(or(cfg.BaseURL, os.Getenv(urlEnv)), "http://127.0.0.1:11434", "", "11434")
		if err == nil {
			m.numCtx = cfg.NumCtx
			m.Model, err = ollama.New(ollama.WithServerURL(m.url), ollama.WithModel(m.name),
				ollama.WithRunnerNumCtx(cfg.NumCtx), ollama.WithHTTPClient(hc))
		}
	case "openai", "llamafile":
		// llamafile serves the OpenAI API; langchaingo's own llamafile
		// client takes neither a server URL nor an HTTP client.
		def, model := "https://api.openai.com/v1", DefaultOpenAIModel
		if cfg.Provider == "llamafile" {
			def, model = "http://127.0.0.1:8080/v1", "LLaMA_CPP"
			m.numCtx = cfg.NumCtx
		}
		m.name = or(cfg.Model, model)
		m.url, err = baseURL(or(cfg.BaseURL, os.Getenv(urlEnv)), def, "/v1", "")
		key := or(cfg.APIKey, os.Getenv(keyEnv))
		if err == nil && key == "" {
			if !isLocal(m.url) {
				return nil, fmt.Errorf("openai: no API key: set OPENAI_API_KEY or pass --api-key; "+
					"for a local OpenAI-compatible server, pass its --base-url (%s is not local)", m.url)
			}
			key = "local" // local servers ignore the key but the client wants one
		}
		if err == nil {
			m.Model, err = openai.New(openai.WithBaseURL(m.url), openai.WithModel(m.name),
				openai.WithToken(key), openai.WithHTTPClient(doer{hc}))
		}
	case "anthropic":
		m.name = or(cfg.Model, DefaultAnthropicModel)
		key := or(cfg.APIKey, os.Getenv(keyEnv))
		if key == "" {
			return nil, errors.New("anthropic: no API key: set ANTHROPIC_API_KEY or pass --api-key")
		}
		opts := []anthropic.Option{anthropic.WithModel(m.name), anthropic.WithToken(key), anthropic.WithHTTPClient(doer{hc})}
		if cfg.BaseURL != "" {
			m.url = cfg.BaseURL
			opts = append(opts, anthropic.WithBaseURL(cfg.BaseURL))
		}
		m.Model, err = anthropic.New(opts...)
	case "googleai":
		m.name = or(cfg.Model, DefaultGoogleAIModel)
		key := or(cfg.APIKey, os.Getenv(keyEnv))
		if key == "" {
			return nil, errors.New("googleai: no API key: set GOOGLE_API_KEY or pass --api-key")
		}
		m.Model, err = googleai.New(ctx, googleai.WithAPIKey(key), googleai.WithDefaultModel(m.name))
	case "replay":
		if cfg.Replay == "" {
			return nil, errors.New("replay: no cassette: pass --replay FILE, a cassette written with --record")
		}
		m.name = "replay"
		m.Model, err = NewReplay(cfg.Replay)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown provider %q: use one of %s", cfg.Provider, strings.Join(Providers(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Provider, err)
	}
	m.defaults = samplingOptions(cfg)
	if cfg.Record != "" {
		rec, err := NewRecorder(m, cfg.Record)
		if err != nil {
			return nil, err
		}
		return rec, nil
	}
	return m, nil
}

// samplingOptions are the call options of cfg sent on every call.
func samplingOptions(cfg ModelConfig) []llms.CallOption {
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
	if cfg.MaxTokens != 0 {
		opts = append(opts, llms.WithMaxTokens(cfg.MaxTokens))
	}
	return opts
}

// providerModel is a provider's model with the sampling options of its
// configuration sent on every call and errors that say what to fix.
type providerModel struct {
	llms.Model
	provider, name, url string
	numCtx              int
	defaults            []llms.CallOption
}

// GenerateContent calls the provider with the configured options first.
func (m *providerModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	all := make([]llms.CallOption, 0, len(m.defaults)+len(opts))
	all = append(append(all, m.defaults...), opts...)
	resp, err := m.Model.GenerateContent(ctx, msgs, all...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, explain(classify(ctx, err), m.provider, m.name, m.url)
	}
	return resp, nil
}

// Call implements the deprecated part of llms.Model.
func (m *providerModel) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, opts...)
}

// ContextWindow returns the context window asked of the server, or 0 when
// the provider does not take one.
func (m *providerModel) ContextWindow() int { return m.numCtx }

// String names the provider, model and server, for logs.
func (m *providerModel) String() string {
	if m.url == "" {
		return m.provider + " " + m.name
	}
	return fmt.Sprintf("%s %s at %s", m.provider, m.name, m.url)
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// baseURL normalises a server address: "host:port" and OLLAMA_HOST's
// "0.0.0.0" forms get a scheme, a URL without a port gets port when that
// is not empty, and a URL without a path gets path.
func baseURL(raw, def, path, port string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return def, nil
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("bad server URL %q: write it as http://host:port", raw)
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
