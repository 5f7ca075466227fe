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

func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`GET https://api.example/v1?key=AIzaSyA-123&alt=json: 400`, `GET https://api.example/v1?key=xxxxx&alt=json: 400`},
		{`request had Authorization: Bearer sk-abcdef123456`, `request had Authorization: Bearer xxxxx`},
		{`{"authorization": "Basic dXNlcjpwdw=="}`, `{"authorization": "Basic xxxxx"}`},
		{`the key sk-live-secret was refused`, `the key xxxxx was refused`},
		{`nothing secret here`, `nothing secret here`},
	}
	for _, tt := range tests {
		if got := redactText(tt.in, "sk-live-secret"); got != tt.want {
			t.Errorf("redactText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

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
