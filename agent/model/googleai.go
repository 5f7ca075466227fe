package model

import (
	"context"
	"fmt"
	"net/http"
)

// googleaiProvider talks to Google's Gemini API through its
// OpenAI-compatible endpoint, which serves chat, streaming, stop
// sequences and tool calls, so that Gemini needs no client of its own.
var googleaiProvider = Provider{
	Name:         "googleai",
	KeyEnv:       "GOOGLE_API_KEY",
	DefaultModel: "gemini-2.5-flash",
	open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
		if cfg.APIKey == "" {
			return opened{}, &Error{Fix: SettingAPIKey, Err: fmt.Errorf("%w: set GOOGLE_API_KEY", ErrNoAPIKey)}
		}
		return openOpenAI(cfg, hc, "https://generativelanguage.googleapis.com/v1beta/openai", 0)
	},
}
