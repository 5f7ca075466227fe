package model

import (
	"reflect"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// Description is what a model says of the calls it makes, for traces: the
// provider, the model asked for, the server and the sampling options sent
// on every call. It holds no key and no password.
type Description struct {
	// Provider is the provider's name, as Config.Provider names it.
	Provider string
	// Model is the model asked for, "" when not known.
	Model string
	// Server is the server's host and port; the zero Address for a
	// model that talks to no server (a cassette).
	Server Address
	// Temperature is the sampling temperature sent on every call.
	Temperature float64
	// MaxTokens is the bound on the tokens of a reply sent on every
	// call, 0 when none is sent.
	MaxTokens int
}

// Describer is implemented by models that describe their calls: those of
// New, and the Recorder of one.
type Describer interface {
	Describe() Description
}

// Describe returns what m says of its calls when it is a Describer. For
// any other model it returns only the provider, as the Go package of m's
// type names it (langchaingo's openai, ollama, anthropic…).
func Describe(m llms.Model) Description {
	if d, ok := m.(Describer); ok {
		return d.Describe()
	}
	t := reflect.TypeOf(m)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return Description{}
	}
	path := t.PkgPath()
	return Description{Provider: path[strings.LastIndexByte(path, '/')+1:]}
}

// Describe returns what the model's calls ask of its server.
func (m *served) Describe() Description {
	d := m.about
	d.Provider, d.Model, d.Server = m.provider, m.name, m.addr
	return d
}
