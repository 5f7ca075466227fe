package model_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
)

// env is an environment of a few variables, as getenv reads it.
type env map[string]string

func (e env) get(name string) string { return e[name] }

func TestResolve(t *testing.T) {
	tests := []struct {
		name string
		cfg  model.Config
		env  env
		want model.Resolved // of which Provider.Name, URL, Key, Model and the sources
	}{
		{"the zero config is Ollama on this machine with its default model", model.Config{}, nil,
			model.Resolved{URL: "http://127.0.0.1:11434", Model: "qwen2.5:7b", URLFrom: model.FromDefault, KeyFrom: model.FromDefault, ModelFrom: model.FromDefault}},
		{"OLLAMA_HOST in Ollama's own form", model.Config{}, env{"OLLAMA_HOST": "0.0.0.0"},
			model.Resolved{URL: "http://127.0.0.1:11434", Model: "qwen2.5:7b", URLFrom: "OLLAMA_HOST", KeyFrom: model.FromDefault, ModelFrom: model.FromDefault}},
		{"OLLAMA_HOST as host:port", model.Config{Model: "llama3"}, env{"OLLAMA_HOST": "gpu:9999"},
			model.Resolved{URL: "http://gpu:9999", Model: "llama3", URLFrom: "OLLAMA_HOST", KeyFrom: model.FromDefault}},
		{"a base URL wins over OLLAMA_HOST", model.Config{BaseURL: "http://box"}, env{"OLLAMA_HOST": "gpu:9999"},
			model.Resolved{URL: "http://box:11434", Model: "qwen2.5:7b", KeyFrom: model.FromDefault, ModelFrom: model.FromDefault}},
		{"openai reads its key and address, and gets /v1", model.Config{Provider: "openai"},
			env{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "localhost:8000"},
			model.Resolved{URL: "http://localhost:8000/v1", Key: "sk-1", Model: "gpt-4o-mini", URLFrom: "OPENAI_BASE_URL", KeyFrom: "OPENAI_API_KEY", ModelFrom: model.FromDefault}},
		{"openai at OpenAI's own address", model.Config{Provider: "openai", APIKey: "k"}, nil,
			model.Resolved{URL: "https://api.openai.com/v1", Key: "k", Model: "gpt-4o-mini", URLFrom: model.FromDefault, ModelFrom: model.FromDefault}},
		{"llama.cpp on its port", model.Config{Provider: "llamacpp", BaseURL: "127.0.0.1"}, nil,
			model.Resolved{URL: "http://127.0.0.1:8080", Model: "default", KeyFrom: model.FromDefault, ModelFrom: model.FromDefault}},
		{"anthropic at its own address", model.Config{Provider: "anthropic"}, env{"ANTHROPIC_API_KEY": "a"},
			model.Resolved{URL: "https://api.anthropic.com/v1", Key: "a", Model: "claude-3-5-haiku-latest", URLFrom: model.FromDefault, KeyFrom: "ANTHROPIC_API_KEY", ModelFrom: model.FromDefault}},
		{"a default model for each provider", model.Config{Provider: "llamacpp", DefaultModel: func(p string) string { return "chosen-for-" + p }}, nil,
			model.Resolved{URL: "http://127.0.0.1:8080", Model: "chosen-for-llamacpp", URLFrom: model.FromDefault, KeyFrom: model.FromDefault, ModelFrom: model.FromDefault}},
		{"a default model left to the provider", model.Config{Provider: "ollama", DefaultModel: func(string) string { return "" }}, nil,
			model.Resolved{URL: "http://127.0.0.1:11434", Model: "qwen2.5:7b", URLFrom: model.FromDefault, KeyFrom: model.FromDefault, ModelFrom: model.FromDefault}},
		{"the replay talks to no server", model.Config{Provider: "replay"}, nil,
			model.Resolved{URLFrom: model.FromDefault, KeyFrom: model.FromDefault, ModelFrom: model.FromDefault}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Getenv = tt.env.get
			r, err := model.Resolve(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%s %q %q %q from %q %q %q", r.Provider.Name, r.URL, r.Key, r.Model, r.URLFrom, r.KeyFrom, r.ModelFrom)
			p, _ := model.Lookup(tt.cfg.Provider)
			w := tt.want
			want := fmt.Sprintf("%s %q %q %q from %q %q %q", p.Name, w.URL, w.Key, w.Model, w.URLFrom, w.KeyFrom, w.ModelFrom)
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestResolveRefusesWhatIsNoServer(t *testing.T) {
	for _, cfg := range []model.Config{
		{Provider: "bard"},
		{BaseURL: "http://"},
		{BaseURL: "ftp://box/models"},
		{Provider: "openai", BaseURL: "file:///etc/passwd"},
		{BaseURL: "http://user:hunter2@[::1"},
	} {
		cfg.Getenv = env{}.get
		_, err := model.Resolve(cfg)
		var me *model.Error
		if !errors.As(err, &me) || me.Fix != model.SettingProvider && me.Fix != model.SettingBaseURL {
			t.Errorf("%+v: error %v", cfg, err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}
