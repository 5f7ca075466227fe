package model

import "context"

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
	m, err := New(ctx, cfg)
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
