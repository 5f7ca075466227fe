package agent_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools"
)

// TestImagesGoWithTheQuestion runs a question with an image through the
// real clients: Ollama gets it in its message's images, an
// OpenAI-compatible server as an image_url part with a data URL, on every
// step of the run; llama.cpp's own API cannot take it, and says so.
func TestImagesGoWithTheQuestion(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n fake image bytes")
	encoded := base64.StdEncoding.EncodeToString(png)
	script := []string{"Thought: look\nAction: calculator\nAction Input: 2+2", "Thought: done\nFinal Answer: a 4"}
	tests := []struct {
		name string
		srv  *modeltest.Server
		cfg  model.Config
		want string // in the last message of each request
	}{
		{"ollama", modeltest.NewOllama(script), model.Config{Provider: "ollama"}, `images:[` + encoded + `]`},
		{"openai", modeltest.NewOpenAI(script), model.Config{Provider: "openai"}, `image_url:map[url:data:image/png;base64,` + encoded + `]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.srv.Close()
			tt.cfg.BaseURL = tt.srv.URL
			m, err := model.New(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			reg, _ := tools.Builtins(tools.DefaultOptions())
			a := agent.New(m, reg, agent.WithImages(agent.Image{MIMEType: "image/png", Data: png}))
			res, err := a.Run(context.Background(), "What does this sum to?")
			if err != nil || res.Answer != "a 4" {
				t.Fatalf("run: %v, %+v", err, res)
			}
			for i := range tt.srv.Calls() {
				msgs, _ := tt.srv.Request(i)["messages"].([]any)
				if last := fmt.Sprint(msgs[len(msgs)-1]); !strings.Contains(last, tt.want) || !strings.Contains(last, "What does this sum to?") {
					t.Errorf("call %d: the question's message lacks its text or image (%s):\n%.300s", i+1, tt.want, last)
				}
			}
		})
	}
	t.Run("llamacpp says it cannot", func(t *testing.T) {
		srv := modeltest.NewLlamaCpp(script)
		defer srv.Close()
		m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		reg, _ := tools.Builtins(tools.DefaultOptions())
		_, err = agent.New(m, reg, agent.WithImages(agent.Image{MIMEType: "image/png", Data: png})).Run(context.Background(), "What is it?")
		if !errors.Is(err, model.ErrNoImages) {
			t.Errorf("error = %v, want one matching model.ErrNoImages", err)
		}
	})
}
