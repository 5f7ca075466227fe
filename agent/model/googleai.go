package model

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tmc/langchaingo/llms/googleai"
)

// googleaiProvider talks to Google AI's API.
var googleaiProvider = Provider{
	Name:         "googleai",
	KeyEnv:       "GOOGLE_API_KEY",
	DefaultModel: "gemini-1.5-flash",
	open: func(ctx context.Context, cfg Config, _ *http.Client) (opened, error) {
		if cfg.APIKey == "" {
			return opened{}, &Error{Fix: "APIKey", Err: fmt.Errorf("%w: set GOOGLE_API_KEY", ErrNoAPIKey)}
		}
		m, err := googleai.New(ctx, googleai.WithAPIKey(cfg.APIKey), googleai.WithDefaultModel(cfg.Model))
		return opened{model: m}, err
	},
}
