package model

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tmc/langchaingo/llms/openai"
)

// openaiProvider talks to OpenAI's API or any OpenAI-compatible server
// (llama.cpp server, vLLM, LM Studio, Ollama's /v1).
var openaiProvider = Provider{
	Name:         "openai",
	URLEnv:       "OPENAI_BASE_URL",
	KeyEnv:       "OPENAI_API_KEY",
	DefaultModel: "gpt-4o-mini",
	open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
		return openOpenAI(cfg, hc, "https://api.openai.com/v1", 0)
	},
}

// llamafileProvider talks to a llamafile, which serves the OpenAI API;
// langchaingo's own llamafile client takes neither a server URL nor an
// HTTP client.
var llamafileProvider = Provider{
	Name:         "llamafile",
	URLEnv:       "LLAMAFILE_HOST",
	KeyEnv:       "OPENAI_API_KEY",
	DefaultModel: "LLaMA_CPP",
	open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
		return openOpenAI(cfg, hc, "http://127.0.0.1:8080/v1", cfg.NumCtx)
	},
}

// openOpenAI opens an OpenAI-compatible server at cfg.BaseURL, or def.
func openOpenAI(cfg Config, hc *http.Client, def string, numCtx int) (opened, error) {
	u, err := serverURL(cfg.BaseURL, def, "/v1", "")
	if err != nil {
		return opened{}, err
	}
	key := cfg.APIKey
	if key == "" {
		if !isLocal(u) {
			return opened{}, &Error{Fix: "APIKey", URL: Redact(u),
				Err: fmt.Errorf("%w: set OPENAI_API_KEY; a local OpenAI-compatible server needs none (%s is not local)", ErrNoAPIKey, Redact(u))}
		}
		key = "local" // local servers ignore the key but the client wants one
	}
	m, err := openai.New(openai.WithBaseURL(u), openai.WithModel(cfg.Model),
		openai.WithToken(key), openai.WithHTTPClient(doer{hc}))
	return opened{model: m, url: u, numCtx: numCtx}, err
}
