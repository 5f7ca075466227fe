package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
		e.Fix = "BaseURL"
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
