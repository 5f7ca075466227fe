package model

import (
	"context"
	"strings"
	"testing"
)

// poisonProcessEnv sets every variable the package could read in the
// process's environment, to values a test fails on if they are read.
func poisonProcessEnv(t *testing.T) {
	for k, v := range map[string]string{
		"OPENAI_API_KEY": "sk-poison-openai", "ANTHROPIC_API_KEY": "sk-poison-anthropic", "GOOGLE_API_KEY": "sk-poison-google",
		"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OLLAMA_HOST": "127.0.0.1:1", "LLAMACPP_HOST": "127.0.0.1:1",
		"LLAMAFILE_HOST": "127.0.0.1:1", "HTTP_PROXY": "http://127.0.0.1:1", "HTTPS_PROXY": "http://127.0.0.1:1",
	} {
		t.Setenv(k, v)
	}
}

// mapEnv is an environment of vars, as Config.Getenv reads one.
func mapEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestNewErrors runs with every key set in the process's environment,
// which New does not read: only Config.Getenv's environment counts.
func TestNewErrors(t *testing.T) {
	poisonProcessEnv(t)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"an unknown provider lists the known ones", Config{Provider: "bard"}, "use one of ollama, openai"},
		{"openai without a key says how to give one", Config{Provider: "openai"}, "set OPENAI_API_KEY"},
		{"anthropic without a key", Config{Provider: "anthropic"}, "ANTHROPIC_API_KEY"},
		{"googleai without a key", Config{Provider: "googleai"}, "GOOGLE_API_KEY"},
		{"replay without a cassette", Config{Provider: "replay"}, "no cassette"},
		{"a bad base URL", Config{Provider: "ollama", BaseURL: "http://"}, "bad server URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNewModelDefaults(t *testing.T) {
	poisonProcessEnv(t)
	tests := []struct {
		name    string
		env     map[string]string
		cfg     Config
		want    string
		wantCtx int
	}{
		{"the zero config is Ollama on this machine", nil, Config{}, "ollama qwen2.5:7b at http://127.0.0.1:11434", 8192},
		{"OLLAMA_HOST in Ollama's own form", map[string]string{"OLLAMA_HOST": "0.0.0.0"}, Config{}, "ollama qwen2.5:7b at http://127.0.0.1:11434", 8192},
		{"a base URL wins over OLLAMA_HOST", map[string]string{"OLLAMA_HOST": "gpu:11434"}, Config{BaseURL: "http://box:9999", NumCtx: 32768}, "ollama qwen2.5:7b at http://box:9999", 32768},
		{"a local OpenAI-compatible server needs no key and gets /v1", nil, Config{Provider: "openai", BaseURL: "localhost:8080", Model: "qwen"}, "openai qwen at http://localhost:8080/v1", 0},
		{"OPENAI_BASE_URL is read", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}, Config{Provider: "openai"}, "openai gpt-4o-mini at http://127.0.0.1:8000/v1", 0},
		{"a password in the URL is never shown", nil, Config{Provider: "openai", BaseURL: "http://bob:hunter2@127.0.0.1:8000/v1"}, "openai gpt-4o-mini at http://bob:***@127.0.0.1:8000/v1", 0},
		{"llamafile speaks the OpenAI API on port 8080, and its window is its own", nil, Config{Provider: "llamafile"}, "llamafile LLaMA_CPP at http://127.0.0.1:8080/v1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Getenv = mapEnv(tt.env)
			m, err := New(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			pm := m.(*served)
			if got := pm.String(); got != tt.want {
				t.Errorf("model = %s, want %s", got, tt.want)
			}
			if pm.ContextWindow() != tt.wantCtx {
				t.Errorf("context window %d, want %d", pm.ContextWindow(), tt.wantCtx)
			}
		})
	}
}
