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

// ollamaModels lists the models installed on the Ollama server at base,
// from its /api/tags.
func ollamaModels(ctx context.Context, hc *http.Client, base string) ([]string, error) {
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
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return nil, fmt.Errorf("the server's /api/tags is not Ollama's: %w", err)
	}
	var names []string
	for _, m := range tags.Models {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	return names, nil
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

// List returns the names of the models the server cfg describes serves:
// Ollama's installed models (/api/tags), or an OpenAI-compatible server's
// (/models under its base URL, /v1/models usually). Other providers have
// no such list here.
func List(ctx context.Context, cfg Config) ([]string, error) {
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
	var names []string
	var err error
	var where string
	switch p.Name {
	case ollamaProvider.Name:
		where, err = serverURL(cfg.BaseURL, "http://127.0.0.1:11434", "", "11434")
		if err == nil {
			names, err = ollamaModels(ctx, hc, where)
		}
	case openaiProvider.Name, llamafileProvider.Name, llamacppProvider.Name, vllmProvider.Name, sglangProvider.Name:
		def := map[string]string{llamafileProvider.Name: "http://127.0.0.1:8080/v1", llamacppProvider.Name: "http://127.0.0.1:8080/v1",
			vllmProvider.Name: "http://127.0.0.1:8000/v1", sglangProvider.Name: "http://127.0.0.1:30000/v1"}[p.Name]
		if def == "" {
			def = "https://api.openai.com/v1"
		}
		where, err = serverURL(cfg.BaseURL, def, "/v1", "")
		if err == nil {
			names, err = openaiModels(ctx, hc, where, cfg.APIKey)
		}
	default:
		return nil, &Error{Provider: p.Name, Err: fmt.Errorf("listing models is not supported for %s", p.Name)}
	}
	if err != nil {
		e := explain(Classify(ctx, redactError(err, secretsOf(cfg)...)), p.Name, "", Redact(where))
		return nil, e
	}
	return names, nil
}

// openaiModels lists the models of the OpenAI-compatible server at base.
func openaiModels(ctx context.Context, hc *http.Client, base, key string) ([]string, error) {
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
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("the server's /models is not an OpenAI list: %w", err)
	}
	var names []string
	for _, m := range list.Data {
		names = append(names, m.ID)
	}
	slices.Sort(names)
	return names, nil
}
