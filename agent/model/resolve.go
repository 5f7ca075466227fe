package model

import "context"

// resolvingKey is the context key that tells a provider's open that New
// is called to resolve a Config: it asks the server nothing.
type resolvingKey struct{}

// resolving reports whether ctx is Resolve's.
func resolving(ctx context.Context) bool {
	r, _ := ctx.Value(resolvingKey{}).(bool)
	return r
}

// Resolved is what New makes of a Config: the provider, the model and the
// server's URL it talks to, once empty fields are taken from the
// environment and the provider's defaults.
type Resolved struct {
	Provider Provider
	// Model is the model's name.
	Model string
	// URL is the server's URL with any password removed, or empty for a
	// hosted API reached at its own address.
	URL string
}

// Resolve returns what New makes of cfg, without talking to the server.
func Resolve(ctx context.Context, cfg Config) (Resolved, error) {
	cfg.Record = ""
	m, err := New(context.WithValue(ctx, resolvingKey{}, true), cfg)
	if err != nil {
		return Resolved{}, err
	}
	s, ok := m.(*served)
	if !ok {
		p, _ := Lookup(cfg.Provider)
		return Resolved{Provider: p, Model: cfg.Model}, nil
	}
	p, _ := Lookup(s.provider)
	return Resolved{Provider: p, Model: s.name, URL: s.url}, nil
}
