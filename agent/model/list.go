package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
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

// ollamaModels lists the models installed on the Ollama server at base,
// from its /api/tags.
func ollamaModels(ctx context.Context, hc *http.Client, base string) ([]string, error) {
	infos, err := ollamaInfos(ctx, hc, base)
	return names(infos), err
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
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
		return nil, fmt.Errorf("the server's /api/tags is not Ollama's: %w", err)
	}
	var infos []Info
	for _, m := range tags.Models {
		modified, _ := time.Parse(time.RFC3339Nano, m.Modified) // zero when the server writes it otherwise
		infos = append(infos, Info{Name: m.Name, Size: max(m.Size, 0), Modified: modified})
	}
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return infos, nil
}

// explainOllamaNotFound tells a missing model from a wrong address in an
// Ollama 404: Ollama says "model ... not found" for the first; anything
// else answering 404 on /api/chat is not Ollama's API (a base URL ending
// in /v1, or another server). For a missing model it lists the installed
// ones.
func explainOllamaNotFound(ctx context.Context, e *Error, hc *http.Client) {
	if !strings.Contains(e.Err.Error(), "not found") || !strings.Contains(strings.ToLower(e.Err.Error()), "model") {
		e.Fix = SettingBaseURL
		e.Hint = fmt.Sprintf("the server at %s has no Ollama API at /api/chat: check that it is an Ollama server, and that its address does not end in /v1", e.URL)
		return
	}
	names, err := ollamaModels(ctx, hc, e.URL)
	switch {
	case err != nil:
	case len(names) == 0:
		e.Hint += "; no model is installed yet"
	default:
		e.Hint += "; installed: " + strings.Join(names, ", ")
	}
}

// List returns the names of the models the server cfg describes serves,
// sorted; see Models.
func List(ctx context.Context, cfg Config) ([]string, error) {
	infos, err := Models(ctx, cfg)
	return names(infos), err
}

// Models describes the models the server cfg describes serves, sorted by
// name:
// Ollama's installed models (/api/tags), or an OpenAI-compatible server's
// (/models under its base URL, /v1/models usually). Other providers have
// no such list here.
func Models(ctx context.Context, cfg Config) ([]Info, error) {
	p, ok := Lookup(cfg.Provider)
	if !ok {
		return nil, &Error{Provider: cfg.Provider, Fix: SettingProvider, Err: fmt.Errorf("%w %q: use one of %s", ErrUnknownProvider, cfg.Provider, strings.Join(Names(), ", "))}
	}
	if cfg.BaseURL == "" && p.URLEnv != "" {
		cfg.BaseURL = os.Getenv(p.URLEnv)
	}
	if cfg.APIKey == "" && p.KeyEnv != "" {
		cfg.APIKey = os.Getenv(p.KeyEnv)
	}
	hc := newHTTPClient(cfg.HTTPClient, bounds{maxReply: DefaultMaxReplyBytes, idle: 30 * time.Second})
	var infos []Info
	var err error
	var where string
	switch p.Name {
	case ollamaProvider.Name:
		where, err = serverURL(cfg.BaseURL, "http://127.0.0.1:11434", "", "11434")
		if err == nil {
			infos, err = ollamaInfos(ctx, hc, where)
		}
	case openaiProvider.Name, llamafileProvider.Name, llamacppProvider.Name, vllmProvider.Name, sglangProvider.Name:
		def := map[string]string{llamafileProvider.Name: "http://127.0.0.1:8080/v1", llamacppProvider.Name: "http://127.0.0.1:8080/v1",
			vllmProvider.Name: "http://127.0.0.1:8000/v1", sglangProvider.Name: "http://127.0.0.1:30000/v1"}[p.Name]
		if def == "" {
			def = "https://api.openai.com/v1"
		}
		where, err = serverURL(cfg.BaseURL, def, "/v1", "")
		if err == nil {
			infos, err = openaiInfos(ctx, hc, where, cfg.APIKey)
		}
	default:
		return nil, &Error{Provider: p.Name, Err: fmt.Errorf("listing models is not supported for %s", p.Name)}
	}
	if err != nil {
		e := explain(Classify(ctx, redactError(err, secretsOf(cfg)...)), p.Name, "", Redact(where))
		return nil, e
	}
	return infos, nil
}

// openaiInfos describes the models of the OpenAI-compatible server at
// base, sorted by name.
func openaiInfos(ctx context.Context, hc *http.Client, base, key string) ([]Info, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/models", nil)
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := hc.Do(req)
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
		return nil, fmt.Errorf("the server's /models is not an OpenAI list: %w", err)
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
