package model

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// TestSecretsNeverReachErrorsOrCassettes records a call to a server that
// echoes the key it was sent and is reached through a URL with a password:
// neither the error nor the cassette holds either secret.
func TestSecretsNeverReachErrorsOrCassettes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error": {"message": "Incorrect API key provided: ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}}`))
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://me:hunter2pw@", 1)
	cassette := filepath.Join(t.TempDir(), "run.jsonl")
	m, err := New(context.Background(), Config{Provider: "openai", BaseURL: base, APIKey: "sk-very-secret-key", Record: cassette})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")})
	var me *Error
	if !errors.As(err, &me) || me.StatusCode != 401 {
		t.Fatalf("error = %v, want a 401", err)
	}
	data, _ := os.ReadFile(cassette)
	for _, where := range []string{err.Error(), string(data)} {
		if strings.Contains(where, "sk-very-secret-key") || strings.Contains(where, "hunter2pw") {
			t.Errorf("a secret leaked: %s", where)
		}
	}
}
