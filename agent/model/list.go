package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/react-agent/react-agent/agent/redact"
)

// Info describes a model a server serves, as far as the server says.
type Info struct {
	// Name is the model's name, as a Config names it.
	Name string `json:"name"`
	// Size is the size of the model's files in bytes, or 0 when the server
	// does not say (an OpenAI-compatible one).
	Size int64 `json:"size,omitempty"`
	// Modified is when the model was installed or last changed (Ollama),
	// or made (an OpenAI-compatible server's "created"); zero when the
	// server does not say.
	Modified time.Time `json:"modified,omitzero"`
}

// names returns the names of infos.
func names(infos []Info) []string {
	var out []string
	for _, m := range infos {
		out = append(out, m.Name)
	}
	return out
}

// ollamaInfos describes the models installed on the Ollama server at base,
// from its /api/tags, sorted by name.
func ollamaInfos(ctx context.Context, hc *http.Client, base string) ([]Info, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	resp, err := get(ctx, hc, strings.TrimSuffix(base, "/")+"/api/tags", "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var tags struct {
		Models []struct {
			Name     string `json:"name"`
			Size     int64  `json:"size"`
			Modified string `json:"modified_at"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return nil, fmt.Errorf("%w: the server's /api/tags is not Ollama's: %w", ErrMalformed, err)
	}
	var infos []Info
	for _, m := range tags.Models {
		modified, _ := time.Parse(time.RFC3339Nano, m.Modified) // zero when the server writes it otherwise
		infos = append(infos, Info{Name: m.Name, Size: max(m.Size, 0), Modified: modified})
	}
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return infos, nil
}

// List returns the names of the models the server cfg describes serves,
// sorted; see Models.
func List(ctx context.Context, cfg Config) ([]string, error) {
	infos, err := Models(ctx, cfg)
	return names(infos), err
}

// Models describes the models the server cfg describes serves, sorted by
// name: Ollama's installed models (/api/tags), or an OpenAI-compatible
// server's (/models under its base URL, /v1/models usually). Other
// providers have no such list here. It reads the environment through
// cfg.Getenv alone, as New does.
func Models(ctx context.Context, cfg Config) ([]Info, error) {
	r, err := Resolve(cfg)
	if err != nil {
		return nil, err
	}
	hc := newHTTPClient(cfg.HTTPClient, cfg.Getenv, DefaultMaxReplyBytes, 30*time.Second)
	if cfg.HTTPClient == nil {
		defer hc.CloseIdleConnections() // the client's connections are of no use after
	}
	var infos []Info
	where := r.URL
	switch p := r.Provider; {
	case p.Name == ollamaProvider.Name:
		infos, err = ollamaInfos(ctx, hc, where)
	case p.Name == llamacppProvider.Name:
		where = llamaBase(where) + "/v1"
		infos, err = openaiInfos(ctx, hc, where, r.Key)
	case p.path == "/v1":
		infos, err = openaiInfos(ctx, hc, where, r.Key)
	default:
		return nil, &Error{Provider: p.Name, Err: fmt.Errorf("listing models is not supported for %s", p.Name)}
	}
	if err != nil {
		return nil, explain(Classify(ctx, redact.Error(err, secretsOf(r)...)), r.Provider.Name, "", Redact(where))
	}
	return infos, nil
}

// openaiInfos describes the models of the OpenAI-compatible server at
// base, sorted by name.
func openaiInfos(ctx context.Context, hc *http.Client, base, key string) ([]Info, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := get(ctx, hc, strings.TrimSuffix(base, "/")+"/models", key)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID      string  `json:"id"`
			Created float64 `json:"created"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("%w: the server's /models is not an OpenAI list: %w", ErrMalformed, err)
	}
	var infos []Info
	for _, m := range list.Data {
		var created time.Time
		if m.Created > 0 && m.Created < 1e11 { // seconds since 1970, as OpenAI writes it
			created = time.Unix(int64(m.Created), 0)
		}
		infos = append(infos, Info{Name: m.ID, Modified: created})
	}
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return infos, nil
}
