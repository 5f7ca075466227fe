package realserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// toyDir is the folder of the toy model, a tiny llama trained here on
// synthetic ReAct transcripts (see its README).
var toyDir = filepath.Join("..", "..", "..", "testdata", "toy")

// A probe is a prompt and the reply the toy model's training code wrote
// to it, decoding greedily.
type probe struct {
	Family string  `json:"family"`
	Prompt string  `json:"prompt"`
	Reply  string  `json:"reply"`
	Tokens int     `json:"tokens"`
	Margin float64 `json:"margin"`
}

// toyModels are the toy models, each with the file of its probes: the
// toy, and an early checkpoint of its training, which still breaks the
// format now and then.
var toyModels = []struct{ model, probes string }{
	{"toy.gguf", "greedy.json"},
	{"early.gguf", "early-greedy.json"},
}

// toy reads a toy model and its probes.
func toy(t *testing.T, model, probes string) (gguf.Model, []probe) {
	t.Helper()
	m, err := gguf.ReadFile(filepath.Join(toyDir, model))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(toyDir, probes))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Probes []probe `json:"probes"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Probes) == 0 {
		t.Fatalf("%s holds no probes", probes)
	}
	return m, g.Probes
}

// maxProbeTokens is the longest reply the training code decoded.
const maxProbeTokens = 200

// TestTheToyModelWritesWhatItsTrainingCodeWrote sends each probe's prompt
// as it is (the chat template already applied, the start of text added by
// the server) to llama-server and to Ollama, which runs the llama
// architecture in its own engine, and decodes greedily: each reply is the
// one PyTorch wrote at training time, for the toy model and its early
// checkpoint. Ollama's default repeat penalty, which would change greedy
// replies, is off in the toy model's Modelfile.
func TestTheToyModelWritesWhatItsTrainingCodeWrote(t *testing.T) {
	for _, tm := range toyModels {
		t.Run(tm.model, func(t *testing.T) {
			m, probes := toy(t, tm.model, tm.probes)
			writesAsTrained(t, m, probes)
		})
	}
}

// writesAsTrained holds the servers' greedy replies to the probes to the
// training code's.
func writesAsTrained(t *testing.T, m gguf.Model, probes []probe) {
	t.Run("llama-server", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Model(m), realserver.Context(2048), realserver.Name("toy"))
		for i, p := range probes {
			body, _ := json.Marshal(map[string]any{"prompt": p.Prompt, "n_predict": maxProbeTokens, "temperature": 0, "cache_prompt": false})
			status, reply := post(t, srv.URL+"/completion", string(body))
			if got, _ := reply["content"].(string); status != 200 || got != p.Reply {
				t.Errorf("probe %d (%s, smallest margin %.3f): llama-server wrote\n%q\nthe training code\n%q", i, p.Family, p.Margin, got, p.Reply)
			}
		}
	})
	t.Run("ollama", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Model(m), realserver.Context(2048), realserver.Name("toy"), realserver.Parameter("repeat_penalty", "1"))
		for i, p := range probes {
			body, _ := json.Marshal(map[string]any{"model": srv.Model, "prompt": p.Prompt, "raw": true, "stream": false,
				"options": map[string]any{"temperature": 0, "num_predict": maxProbeTokens}})
			status, reply := post(t, srv.URL+"/api/generate", string(body))
			if got, _ := reply["response"].(string); status != 200 || got != p.Reply {
				t.Errorf("probe %d (%s, smallest margin %.3f): Ollama wrote\n%q\nthe training code\n%q", i, p.Family, p.Margin, got, p.Reply)
			}
		}
	})
}
