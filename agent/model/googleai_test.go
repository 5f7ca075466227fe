package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestGoogleAIServesThroughTheOpenAICompatibleEndpoint points the googleai
// provider at a loopback OpenAI-compatible server, as Gemini's endpoint is:
// the key is sent as a bearer token, and the stop sequences and the reply
// go through as with any OpenAI-compatible server.
func TestGoogleAIServesThroughTheOpenAICompatibleEndpoint(t *testing.T) {
	srv := modeltest.NewOpenAI([]string{"Thought: easy\nFinal Answer: 4\nObservation: made up"},
		modeltest.APIKey("gemini-key"), modeltest.Model("gemini-2.5-flash"))
	defer srv.Close()
	env := map[string]string{"GOOGLE_API_KEY": "gemini-key"}
	m, err := model.New(context.Background(), model.Config{Provider: "googleai", BaseURL: srv.URL + "/v1", Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(interface{ String() string }).String(); !strings.HasPrefix(got, "googleai gemini-2.5-flash at ") {
		t.Errorf("model = %s, want googleai's default model at the given URL", got)
	}
	resp, err := m.GenerateContent(context.Background(),
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "2+2?")}, llms.WithStopWords([]string{"\nObservation"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; got != "Thought: easy\nFinal Answer: 4" {
		t.Errorf("reply = %q, want it cut at the stop sequence", got)
	}
	if stop := srv.Request(0)["stop"]; stop == nil {
		t.Errorf("the request carried no stop sequences: %v", srv.Request(0))
	}
}

// TestGoogleAIDefaultsToGeminisEndpoint checks the address used when no
// base URL is given.
func TestGoogleAIDefaultsToGeminisEndpoint(t *testing.T) {
	m, err := model.New(context.Background(), model.Config{Provider: "googleai", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	want := "googleai gemini-2.5-flash at https://generativelanguage.googleapis.com/v1beta/openai"
	if got := m.(interface{ String() string }).String(); got != want {
		t.Errorf("model = %s, want %s", got, want)
	}
}
