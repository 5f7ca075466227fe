package model

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/react-agent/react-agent/agent/redact"
)

// Resolved is what a Config comes to once its empty fields are taken from
// the environment and the provider's defaults: the one place where they
// are worked out, for New, Models, and what a command line shows or logs
// of them.
type Resolved struct {
	// Provider is the provider chosen.
	Provider Provider
	// URL is the server's URL, normalised ("host:port" gets a scheme, an
	// OpenAI-compatible address without a path gets /v1). It may hold a
	// password: show it through Redact.
	URL string
	// Key is the API key, or "".
	Key string
	// Model is the model's name.
	Model string
	// URLFrom and KeyFrom say where URL and Key came from: "" for the
	// Config, the name of the environment variable that gave them, or
	// FromDefault for the provider's own (Key: none at all).
	URLFrom, KeyFrom string
	// ModelFrom is "" for Config.Model, or FromDefault for a default:
	// Config.DefaultModel's or the provider's.
	ModelFrom string
	// Found is Config.Found: the provider is the kind of server found at
	// the URL, which gets no key from the provider's KeyEnv and needs
	// none unless it asks.
	Found bool
}

// ErrFoundKey is in the error of a call that a server found by asking it
// (Config.Found) refused for its API key: such a server is sent only
// Config.APIKey, never the key of the provider's KeyEnv.
var ErrFoundKey = errors.New("a server found at an address is sent only the API key given for it")

// FromDefault is the source of a Resolved field that came from the
// provider's defaults rather than from the Config or the environment.
const FromDefault = "default"

// Resolve returns what cfg comes to in the environment cfg.Getenv reads
// (os.Getenv for the process's, nil for none), as New reads it: the
// provider, the server's URL, the key and the model. The key of a
// provider cfg.Found is cfg.APIKey alone. It asks no server anything. Its
// errors are *Error values: an unknown provider, or an address that is
// not a URL.
func Resolve(cfg Config) (Resolved, error) {
	p, ok := Lookup(cfg.Provider)
	if !ok {
		return Resolved{}, &Error{Provider: cfg.Provider, Fix: SettingProvider,
			Err: fmt.Errorf("%w %q: use one of %s", ErrUnknownProvider, cfg.Provider, strings.Join(Names(), ", "))}
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	r := Resolved{Provider: p, Key: cfg.APIKey, Model: cfg.Model, Found: cfg.Found}
	raw := cfg.BaseURL
	if raw == "" && p.URLEnv != "" {
		raw, r.URLFrom = getenv(p.URLEnv), p.URLEnv
	}
	if raw == "" {
		raw, r.URLFrom = p.Address, FromDefault
	}
	if r.Key == "" && p.KeyEnv != "" && !cfg.Found {
		r.Key, r.KeyFrom = getenv(p.KeyEnv), p.KeyEnv
	}
	if r.Key == "" {
		r.KeyFrom = FromDefault
	}
	if r.Model == "" {
		var given string
		if cfg.DefaultModel != nil {
			given = cfg.DefaultModel(p.Name)
		}
		r.Model, r.ModelFrom = cmp.Or(given, p.DefaultModel), FromDefault
	}
	if raw == "" {
		return r, nil // the replay provider talks to no server
	}
	u, err := serverURL(raw, p.path, p.port())
	if err != nil {
		err.Provider = p.Name
		return Resolved{}, err
	}
	r.URL = u
	return r, nil
}

// serverURL normalises a server address: "host:port" and OLLAMA_HOST's
// "0.0.0.0" forms get a scheme, a URL without a port gets port when that
// is not empty, and a URL without a path gets path.
func serverURL(raw, path, port string) (string, *Error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
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
// replaced by "***" (see redact.URL), for messages and files, also in an
// address that is no valid URL; other text comes back unchanged.
func Redact(raw string) string { return redact.URL(raw) }
