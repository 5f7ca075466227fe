package model

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tmc/langchaingo/llms/anthropic"
)

// anthropicProvider talks to Anthropic's API.
var anthropicProvider = Provider{
	Name:         "anthropic",
	KeyEnv:       "ANTHROPIC_API_KEY",
	DefaultModel: "claude-3-5-haiku-latest",
	open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
		if cfg.APIKey == "" {
			return opened{}, &Error{Fix: SettingAPIKey, Err: fmt.Errorf("%w: set ANTHROPIC_API_KEY", ErrNoAPIKey)}
		}
		opts := []anthropic.Option{anthropic.WithModel(cfg.Model), anthropic.WithToken(cfg.APIKey), anthropic.WithHTTPClient(doer{hc})}
		if cfg.BaseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(cfg.BaseURL))
		}
		m, err := anthropic.New(opts...)
		return opened{model: m, url: cfg.BaseURL}, err
	},
}
