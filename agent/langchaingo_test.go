package agent

import (
	"context"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// TestLangchaingosOwnClientsRunTheAgent runs the agent, on the text
// protocol, with langchaingo's own Ollama and OpenAI clients against the
// real Ollama and llama-server: a library user who swaps models through
// langchaingo, as agent.New takes any llms.Model, keeps an agent that
// works. The clients are imported here only, not by the program.
func TestLangchaingosOwnClientsRunTheAgent(t *testing.T) {
	spelled := realserver.Model(gguf.Model{Spell: "Thought: I know it.\nFinal Answer: 42", Seed: 1})
	ollamaSrv := realserver.Ollama(t, spelled)
	llamaSrv := realserver.LlamaServer(t, spelled)
	tests := []struct {
		name string
		open func() (llms.Model, error)
	}{
		{"langchaingo's Ollama client", func() (llms.Model, error) {
			return ollama.New(ollama.WithServerURL(ollamaSrv.URL), ollama.WithModel(ollamaSrv.Model), ollama.WithRunnerNumCtx(8192))
		}},
		{"langchaingo's OpenAI client at Ollama's /v1", func() (llms.Model, error) {
			return openai.New(openai.WithBaseURL(ollamaSrv.URL+"/v1"), openai.WithModel(ollamaSrv.Model), openai.WithToken("unused"))
		}},
		{"langchaingo's OpenAI client at llama-server", func() (llms.Model, error) {
			return openai.New(openai.WithBaseURL(llamaSrv.URL+"/v1"), openai.WithModel(llamaSrv.Model), openai.WithToken("unused"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.open()
			if err != nil {
				t.Fatal(err)
			}
			var streamed []string
			res, err := New(m, registry(t), WithStreaming(func(s string) { streamed = append(streamed, s) })).
				Run(context.Background(), "What is 6 * 7?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "42" || len(streamed) == 0 {
				t.Errorf("answer %q after %d steps, %d pieces streamed", res.Answer, len(res.Steps), len(streamed))
			}
		})
	}
}
