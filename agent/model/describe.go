package model

import (
	"net/url"
	"reflect"
	"strconv"
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
	// Address is the server's host name or IP address, and Port its
	// port; "" and 0 for a model that talks to no server (a cassette).
	Address string
	Port    int
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
	d.Provider, d.Model = m.provider, m.name
	return d
}

// Describe passes on what the recorded model says of its calls.
func (r *Recorder) Describe() Description { return Describe(r.model) }

// Describe says that a replay answers from a cassette, with no server.
func (r *Replay) Describe() Description { return Description{Provider: replayProvider.Name} }

// describeServer returns the sampling options of cfg and the server of
// the URL raw, for the model's Description.
func describeServer(raw string, cfg Config) Description {
	d := Description{Temperature: cfg.Temperature, MaxTokens: max(cfg.MaxTokens, 0)}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return d
	}
	d.Address = u.Hostname()
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if p, err := strconv.Atoi(port); err == nil {
		d.Port = p
	}
	return d
}
