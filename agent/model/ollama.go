package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms/ollama"
)

// ollamaProvider talks to an Ollama server's own API.
var ollamaProvider = Provider{
	Name:   "ollama",
	URLEnv: "OLLAMA_HOST",
	// DefaultModel is a small model that follows the ReAct format well, in
	// English and in Chinese. Install it with `ollama pull qwen2.5:7b`.
	DefaultModel: "qwen2.5:7b",
	open: func(ctx context.Context, cfg Config, hc *http.Client) (opened, error) {
		if st, ok := hc.Transport.(statusTransport); ok {
			st.maxLine = maxOllamaLine // its client reads no longer lines
			st.ollama = true
			hc.Transport = st
		}
		u, err := serverURL(cfg.BaseURL, "http://127.0.0.1:11434", "", "11434")
		if err != nil {
			return opened{}, err
		}
		longest := ollamaContextLength(ctx, hc, u, cfg.Model)
		if cfg.ToolCalling {
			// langchaingo's Ollama client drops tool definitions: tool
			// calls go through Ollama's OpenAI-compatible endpoint, which
			// takes no num_ctx: the model has the server's own window.
			cfg.BaseURL, cfg.APIKey = strings.TrimRight(u, "/")+"/v1", "ollama"
			o, err := openOpenAI(cfg, hc, cfg.BaseURL, 0)
			o.window = &ollamaWindow{longest: longest, loaded: func(ctx context.Context) int { return ollamaLoaded(ctx, hc, u, cfg.Model) }}
			return o, err
		}
		numCtx := cfg.NumCtx
		if longest > 0 && numCtx > longest {
			numCtx = longest // Ollama would cut it to that, and say nothing
		}
		m, err := ollama.New(ollama.WithServerURL(u), ollama.WithModel(cfg.Model),
			ollama.WithRunnerNumCtx(numCtx), ollama.WithHTTPClient(hc))
		return opened{model: m, url: u, numCtx: numCtx, window: &ollamaWindow{asked: numCtx, longest: longest},
			// A prompt longer than num_ctx is refused rather than cut:
			// Ollama cuts it silently otherwise, keeping its end.
			options: map[string]any{"truncate": false},
			con:     fixed(ModeSchema, ollamaAPI, "the JSON object protocol, bound by a JSON schema in Ollama's format")}, err
	},
}

// ollamaContextLength asks the Ollama server at base for the longest
// context the model takes, from its /api/show: the "context_length" of
// its architecture; 0 when it does not say.
func ollamaContextLength(ctx context.Context, hc *http.Client, base, model string) int {
	if resolving(ctx) {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"model": model})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+"/api/show", strings.NewReader(string(body)))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var show struct {
		ModelInfo map[string]any `json:"model_info"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&show) != nil {
		return 0
	}
	arch, _ := show.ModelInfo["general.architecture"].(string)
	n, _ := show.ModelInfo[arch+".context_length"].(float64)
	return int(n)
}

// ollamaLoaded asks the Ollama server at base for the context window the
// model is loaded with, from its /api/ps; 0 when it is not loaded or the
// server does not say.
func ollamaLoaded(ctx context.Context, hc *http.Client, base, model string) int {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/api/ps", nil)
	if err != nil {
		return 0
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&ps) != nil {
		return 0
	}
	for _, m := range ps.Models {
		if m.Name == model || m.Model == model || m.Name == model+":latest" {
			return m.ContextLength
		}
	}
	return 0
}

// ollamaWindow is what is known of the context window of a model that
// Ollama serves, which it cuts a longer prompt to without a word: on its
// own API the num_ctx asked, which may grow up to the longest the model
// takes when a prompt does not fit; on its OpenAI-compatible endpoint,
// which takes no num_ctx, the window the server loaded the model with.
type ollamaWindow struct {
	mu      sync.Mutex
	asked   int                           // the num_ctx sent, or 0 on /v1
	longest int                           // the longest context the model takes, or 0
	loaded  func(ctx context.Context) int // the window the model is loaded with, on /v1
	seen    int                           // what loaded said
}

// size returns the window a prompt is cut to, or 0 when it is not known.
func (w *ollamaWindow) size(ctx context.Context) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.asked > 0 {
		return w.asked
	}
	if w.seen == 0 && w.loaded != nil {
		w.seen = w.loaded(ctx)
	}
	return w.seen
}

// grow doubles the num_ctx asked, up to the longest the model takes, and
// reports whether it grew: the next call asks for it.
func (w *ollamaWindow) grow() (int, bool) {
	if w == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.asked == 0 || w.longest <= w.asked {
		return w.asked, false
	}
	w.asked = min(2*w.asked, w.longest)
	return w.asked, true
}

// asking returns the num_ctx asked now, 0 on /v1.
func (w *ollamaWindow) asking() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked
}

// explain fills in what to do about a prompt too large for the window.
func (w *ollamaWindow) explain(e *Error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e.ContextTokens == 0 {
		e.ContextTokens = max(w.asked, w.seen)
	}
	switch {
	case w.asked == 0:
		e.Fix = NoSetting
		e.Hint = overflowHint(e, "") + "; Ollama's OpenAI-compatible endpoint takes no context size: " +
			"set OLLAMA_CONTEXT_LENGTH where the server runs, or use the text protocol"
	case w.longest > 0 && w.asked >= w.longest:
		e.Fix = NoSetting
		e.Hint = overflowHint(e, "") + fmt.Sprintf("; %d tokens is the longest the model takes", w.longest)
	default:
		e.Fix, e.Hint = SettingNumCtx, overflowHint(e, "ollama")
	}
}

// cut reports whether a reply whose prompt was prompt tokens, as the
// server counted them, filled the whole window: Ollama cut it to fit
// (keeping its first few tokens and its end), so the model did not see
// the instructions and tools at its start. It returns the window too.
func (w *ollamaWindow) cut(ctx context.Context, prompt int) (int, bool) {
	if w == nil || prompt <= 0 {
		return 0, false
	}
	size := w.size(ctx)
	return size, size > 0 && prompt >= size
}

// errOverflow reports whether err is a prompt refused as too large.
func errOverflow(err error) bool {
	return errors.Is(err, ErrContextOverflow)
}
