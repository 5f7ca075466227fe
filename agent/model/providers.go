package model

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Provider is a kind of model server New can talk to, with its defaults.
type Provider struct {
	// Name is what Config.Provider says to choose it.
	Name string
	// URLEnv names the environment variable read for the server's URL
	// when Config.BaseURL is empty; empty when the provider reads none.
	URLEnv string
	// KeyEnv names the environment variable read for the API key when
	// Config.APIKey is empty; empty when the provider reads none.
	KeyEnv string
	// Address is the server's usual URL, used when neither
	// Config.BaseURL nor URLEnv gives one.
	Address string
	// DefaultModel is the model used when Config.Model is empty and
	// Config.DefaultModel gives none.
	DefaultModel string

	// path is the path of the API, given to an address without one:
	// "/v1" for OpenAI-compatible servers.
	path string
	// hostPort says that an address without a port gets Address's, as
	// Ollama reads OLLAMA_HOST ("0.0.0.0", "gpu-box").
	hostPort bool
	// hosted says that the server needs a key, unless it runs on this
	// machine or a private network (an OpenAI-compatible one); keyed
	// that it needs one wherever it runs.
	hosted, keyed bool
	// open makes the provider's client for the resolved r.
	open func(ctx context.Context, r Resolved, cfg Config, hc *http.Client) (opened, error)
}

// port returns the port of the provider's Address, for an address
// without one, or "" when the provider gives it none.
func (p Provider) port() string {
	if !p.hostPort {
		return ""
	}
	u, err := url.Parse(p.Address)
	if err != nil {
		return ""
	}
	return u.Port()
}

// SameModel reports whether a and b name the same model of the provider's
// server. Ollama reads a name as its own registry does: without a tag it
// is the name's :latest, its "library/" namespace and its registry's host
// may be left out, and case does not count; so "qwen2.5" is
// "qwen2.5:latest" and "Library/Qwen2.5:latest". Other servers take names
// as they are.
func (p Provider) SameModel(a, b string) bool {
	if p.Name != ollamaProvider.Name {
		return a == b
	}
	return ollamaName(a) == ollamaName(b)
}

// ollamaName returns an Ollama model's name in full, in lower case, but
// for its registry's host and "library/" namespace, which Ollama takes
// when a name leaves them out: "Qwen2.5" is "qwen2.5:latest".
func ollamaName(name string) string {
	name = strings.TrimPrefix(strings.ToLower(name), "registry.ollama.ai/")
	name = strings.TrimPrefix(name, "library/")
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		name += ":latest"
	}
	return name
}

// The providers. Adding one is an entry here and, for a new wire
// protocol, a client.
var (
	ollamaProvider = Provider{Name: "ollama", URLEnv: "OLLAMA_HOST", Address: "http://127.0.0.1:11434", hostPort: true,
		// A small model that follows the ReAct format well, in English
		// and in Chinese: `ollama pull qwen2.5:7b`.
		DefaultModel: "qwen2.5:7b", open: openOllama}
	openaiProvider = Provider{Name: "openai", URLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY",
		Address: "https://api.openai.com/v1", path: "/v1", hosted: true, DefaultModel: "gpt-4o-mini", open: openOpenAI}
	llamacppProvider = Provider{Name: "llamacpp", URLEnv: "LLAMACPP_HOST", Address: "http://127.0.0.1:8080", hostPort: true,
		DefaultModel: "default", // llama-server serves the one model it loaded
		open:         openLlamacpp}
	vllmProvider = Provider{Name: "vllm", KeyEnv: "OPENAI_API_KEY", Address: "http://127.0.0.1:8000/v1", path: "/v1", hosted: true,
		open: serving(ServerVLLM)}
	sglangProvider = Provider{Name: "sglang", KeyEnv: "OPENAI_API_KEY", Address: "http://127.0.0.1:30000/v1", path: "/v1", hosted: true,
		open: serving(ServerSGLang)}
	llamafileProvider = Provider{Name: "llamafile", URLEnv: "LLAMAFILE_HOST", KeyEnv: "OPENAI_API_KEY",
		Address: "http://127.0.0.1:8080/v1", path: "/v1", hosted: true, DefaultModel: "LLaMA_CPP", open: openOpenAI}
	anthropicProvider = Provider{Name: "anthropic", KeyEnv: "ANTHROPIC_API_KEY", Address: "https://api.anthropic.com/v1",
		DefaultModel: "claude-3-5-haiku-latest", open: openAnthropic}
	// googleaiProvider talks to Gemini through its OpenAI-compatible
	// endpoint, which serves chat, streaming, stop sequences and tool
	// calls, so that Gemini needs no client of its own.
	googleaiProvider = Provider{Name: "googleai", KeyEnv: "GOOGLE_API_KEY",
		Address: "https://generativelanguage.googleapis.com/v1beta/openai", path: "/v1", keyed: true, DefaultModel: "gemini-2.5-flash", open: openOpenAI}
	replayProvider = Provider{Name: "replay", open: openReplay}
)

// providers lists every provider, in the order help texts show them.
var providers = []Provider{ollamaProvider, openaiProvider, llamacppProvider, vllmProvider, sglangProvider, llamafileProvider,
	anthropicProvider, googleaiProvider, replayProvider}

// Providers returns the providers New knows, in the order help texts show
// them.
func Providers() []Provider { return slices.Clone(providers) }

// Lookup returns the provider called name; the empty name is Ollama.
func Lookup(name string) (Provider, bool) {
	if name == "" {
		name = ollamaProvider.Name
	}
	for _, p := range providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// Names returns the names of the providers.
func Names() []string {
	names := make([]string, len(providers))
	for i, p := range providers {
		names[i] = p.Name
	}
	return names
}
