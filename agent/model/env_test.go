package model_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestTheProcessEnvironmentIsNotRead sets OPENAI_API_KEY in the process's
// environment to the key a server asks for, and calls the server without
// giving New or Models an environment: once, both read the process's, and
// a test's environment without a key still sent it. Now the server gets
// no key, and refuses; with Config.Getenv, it gets the key of that
// environment.
func TestTheProcessEnvironmentIsNotRead(t *testing.T) {
	const key = "sk-from-the-process-environment"
	t.Setenv("OPENAI_API_KEY", key)
	srv := modeltest.NewOpenAI([]string{"Thought: done\nFinal Answer: 4"}, modeltest.APIKey(key), modeltest.Repeat())
	defer srv.Close()
	for _, env := range []map[string]string{nil, {"OPENAI_API_KEY": key}} {
		cfg := model.Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "m"}
		if env != nil {
			cfg.Getenv = func(k string) string { return env[k] }
		}
		m, err := model.New(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, callErr := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "2+2?")})
		_, listErr := model.Models(context.Background(), cfg)
		for what, err := range map[string]error{"a call": callErr, "the list of models": listErr} {
			var me *model.Error
			refused := errors.As(err, &me) && me.StatusCode == http.StatusUnauthorized
			if want := env == nil; refused != want {
				t.Errorf("with the environment %v, %s was refused for its key: %v, want %v (%v)", env, what, refused, want, err)
			}
		}
	}
}
