package model

import (
	"context"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms/ollama"
)

// ollamaProvider talks to an Ollama server's own API.
var ollamaProvider = Provider{
	Name:   "ollama",
	URLEnv: "OLLAMA_HOST",
	// DefaultModel is a small model that follows the ReAct format well, in
	// English and in Chinese. Install it with `ollama pull qwen2.5:7b`.
	DefaultModel: "qwen2.5:7b",
	open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
		if st, ok := hc.Transport.(statusTransport); ok {
			st.maxLine = maxOllamaLine // its client reads no longer lines
			hc.Transport = st
		}
		u, err := serverURL(cfg.BaseURL, "http://127.0.0.1:11434", "", "11434")
		if err != nil {
			return opened{}, err
		}
		if cfg.ToolCalling {
			// langchaingo's Ollama client drops tool definitions: tool
			// calls go through Ollama's OpenAI-compatible endpoint.
			cfg.BaseURL, cfg.APIKey = strings.TrimRight(u, "/")+"/v1", "ollama"
			return openOpenAI(cfg, hc, cfg.BaseURL, 0)
		}
		m, err := ollama.New(ollama.WithServerURL(u), ollama.WithModel(cfg.Model),
			ollama.WithRunnerNumCtx(cfg.NumCtx), ollama.WithHTTPClient(hc))
		return opened{model: m, url: u, numCtx: cfg.NumCtx,
			con: fixed(ModeSchema, ollamaAPI, "the JSON object protocol, bound by a JSON schema in Ollama's format")}, err
	},
}
