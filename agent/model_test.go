package agent

import (
	"context"
	"strings"
	"testing"
)

func TestNewModelErrors(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	tests := []struct {
		name string
		cfg  ModelConfig
		want string
	}{
		{"an unknown provider lists the known ones", ModelConfig{Provider: "bard"}, "use one of ollama, openai"},
		{"openai without a key says how to give one", ModelConfig{Provider: "openai"}, "set OPENAI_API_KEY"},
		{"anthropic without a key", ModelConfig{Provider: "anthropic"}, "ANTHROPIC_API_KEY"},
		{"googleai without a key", ModelConfig{Provider: "googleai"}, "GOOGLE_API_KEY"},
		{"replay without a cassette", ModelConfig{Provider: "replay"}, "pass --replay FILE"},
		{"a bad base URL", ModelConfig{Provider: "ollama", BaseURL: "http://"}, "bad server URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewModel(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNewModelDefaults(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("LLAMAFILE_HOST", "")
	tests := []struct {
		name    string
		env     map[string]string
		cfg     ModelConfig
		want    string
		wantCtx int
	}{
		{"the zero config is Ollama on this machine", nil, ModelConfig{}, "ollama qwen2.5:7b at http://127.0.0.1:11434", 8192},
		{"OLLAMA_HOST in Ollama's own form", map[string]string{"OLLAMA_HOST": "0.0.0.0"}, ModelConfig{}, "ollama qwen2.5:7b at http://127.0.0.1:11434", 8192},
		{"a base URL wins over OLLAMA_HOST", map[string]string{"OLLAMA_HOST": "gpu:11434"}, ModelConfig{BaseURL: "http://box:9999", NumCtx: 32768}, "ollama qwen2.5:7b at http://box:9999", 32768},
		{"a local OpenAI-compatible server needs no key and gets /v1", nil, ModelConfig{Provider: "openai", BaseURL: "localhost:8080", Model: "qwen"}, "openai qwen at http://localhost:8080/v1", 0},
		{"OPENAI_BASE_URL is read", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}, ModelConfig{Provider: "openai"}, "openai gpt-4o-mini at http://127.0.0.1:8000/v1", 0},
		{"llamafile speaks the OpenAI API on port 8080", nil, ModelConfig{Provider: "llamafile"}, "llamafile LLaMA_CPP at http://127.0.0.1:8080/v1", 8192},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			m, err := NewModel(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			pm := m.(*providerModel)
			if got := pm.String(); got != tt.want {
				t.Errorf("model = %s, want %s", got, tt.want)
			}
			if pm.ContextWindow() != tt.wantCtx {
				t.Errorf("context window %d, want %d", pm.ContextWindow(), tt.wantCtx)
			}
		})
	}
}

func TestNewModelRecords(t *testing.T) {
	path := t.TempDir() + "/rec.jsonl"
	m, err := NewModel(context.Background(), ModelConfig{Record: path})
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := m.(*Recorder)
	if !ok || rec.ContextWindow() != DefaultNumCtx {
		t.Fatalf("got %T, want a *Recorder passing on the context window", m)
	}
	if _, err := NewModel(context.Background(), ModelConfig{Record: t.TempDir() + "/no/such/dir/rec.jsonl"}); err == nil {
		t.Error("recording to a missing directory succeeded")
	}
}
