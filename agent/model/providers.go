package model

import (
	"context"
	"net/http"
	"slices"

	"github.com/tmc/langchaingo/llms"
)

// Provider is a kind of model server New can talk to.
type Provider struct {
	// Name is what Config.Provider says to choose it.
	Name string
	// URLEnv names the environment variable read for the server's URL
	// when Config.BaseURL is empty; empty when the provider reads none.
	URLEnv string
	// KeyEnv names the environment variable read for the API key when
	// Config.APIKey is empty; empty when the provider reads none.
	KeyEnv string
	// DefaultModel is the model used when Config.Model is empty.
	DefaultModel string
	// open connects to the provider's server as cfg says, with BaseURL and
	// APIKey already taken from the environment when cfg left them empty.
	open func(ctx context.Context, cfg Config, hc *http.Client) (opened, error)
}

// opened is a provider's model with what New reports about it.
type opened struct {
	model  llms.Model
	url    string            // the server's URL, or "" for a hosted API's default
	numCtx int               // the context window asked of the server, or 0
	con    *constrainer      // how the server binds replies, or nil for not at all
	images imageForm         // how the client sends images
	opts   []llms.CallOption // sent on every call after the sampling options
	tools  *toolSupport      // whether the server takes tool definitions, or nil when it is not known
	window *ollamaWindow     // Ollama's context window, which it cuts prompts to, or nil
	// options are sent with every generation request, before
	// Config.Options, which win (see placeOptions).
	options map[string]any
}

// providers lists every provider, in the order help texts show them.
// Adding a provider is a file that declares its Provider and an entry here.
var providers = []Provider{ollamaProvider, openaiProvider, llamacppProvider, vllmProvider, sglangProvider, llamafileProvider, anthropicProvider, googleaiProvider, replayProvider}

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
