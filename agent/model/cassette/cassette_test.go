package cassette_test

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

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/agent/modeltest"
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
	path := filepath.Join(t.TempDir(), "run.jsonl")
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: base, APIKey: "sk-very-secret-key"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cassette.NewRecorder(m, path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rec.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")})
	var me *model.Error
	if !errors.As(err, &me) || me.StatusCode != 401 {
		t.Fatalf("error = %v, want a 401", err)
	}
	data, _ := os.ReadFile(path)
	for _, where := range []string{err.Error(), string(data)} {
		if strings.Contains(where, "sk-very-secret-key") || strings.Contains(where, "hunter2pw") {
			t.Errorf("a secret leaked: %s", where)
		}
	}
}

func TestACutReplyReplaysAsCut(t *testing.T) {
	s := modeltest.NewOpenAI([]string{"Final Answer: Paris is the capital of France."})
	defer s.Close()
	path := filepath.Join(t.TempDir(), "cassette.jsonl")
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: s.URL, Model: "m", APIKey: "k", MaxTokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cassette.NewRecorder(m, path)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}
	if _, err := rec.GenerateContent(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	play, err := cassette.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := play.Generate(context.Background(), model.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Finish != model.FinishLength || !model.AtTokenLimit(reply.FinishWord) {
		t.Errorf("replayed stop reason %q (%q), want one at the token limit", reply.Finish, reply.FinishWord)
	}
}

func TestARecorderPassesOnWhatItsModelKnows(t *testing.T) {
	m, err := model.New(context.Background(), model.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cassette.NewRecorder(m, filepath.Join(t.TempDir(), "rec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var w model.Windowed = rec
	if w.ContextWindow() != model.DefaultNumCtx {
		t.Errorf("the recorder's context window is %d, want the model's %d", w.ContextWindow(), model.DefaultNumCtx)
	}
	if _, err := cassette.NewRecorder(m, filepath.Join(t.TempDir(), "no", "such", "dir", "rec.jsonl")); err == nil {
		t.Error("recording to a missing directory succeeded")
	}
}
