package constrain

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/tools"
)

// sampleRequest is what sample.mjs is asked for.
type sampleRequest struct {
	Model     string        `json:"model"`
	Samples   int           `json:"samples"`
	MaxTokens int           `json:"maxTokens"`
	Seed      int           `json:"seed"`
	Free      int           `json:"free"`
	Grammars  []namedText   `json:"grammars"`
	Texts     []grammarText `json:"texts"`
}

type namedText struct {
	Name    string `json:"name"`
	Grammar string `json:"grammar"`
}

type grammarText struct {
	Name    string `json:"name"`
	Grammar string `json:"grammar"`
	Text    string `json:"text"`
}

// sampleResult is one line of sample.mjs's answer.
type sampleResult struct {
	Name     string  `json:"name"`
	Text     string  `json:"text"`
	MS       float64 `json:"ms"`
	Accepted bool    `json:"accepted"`
	Complete bool    `json:"complete"`
}

// tinyPrior is the tiny model's bias towards the tokens that end what a
// grammar has open: quotes, brackets and the end of the reply.
var tinyPrior = map[int]float32{
	gguf.EOS: 8, gguf.ByteToken('"'): 4, gguf.ByteToken('}'): 4, gguf.ByteToken(']'): 4,
	gguf.ByteToken(','): -1, gguf.ByteToken(' '): -1, gguf.ByteToken('\\'): -3,
}

// tinyModel writes the tiny model into a temporary folder: random weights
// that know nothing of any grammar, so that what a sample fits comes from
// the grammar alone, and every byte may be written.
func tinyModel(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := gguf.WriteFile(path, gguf.Model{Prior: tinyPrior, AllBytes: true, Context: 1024, Seed: 26}); err != nil {
		t.Fatal(err)
	}
	return path
}

// runSamples has llama.cpp answer req with sample.mjs.
func runSamples(t testing.TB, req sampleRequest) []sampleResult {
	t.Helper()
	input, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sample.mjs")
	cmd.Dir = llamaDir
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node sample.mjs: %v\n%s", err, stderr.String())
	}
	var out []sampleResult
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if line == "" {
			continue
		}
		var r sampleResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("sample.mjs wrote %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// fromAction returns grammar with its root at the action label, as a
// reply is once a line starts with it: the tiny model, which never writes
// the label of itself, samples calls under it.
func fromAction(grammar string) string {
	_, rules, _ := strings.Cut(grammar, "\n")
	return "root ::= action\n" + rules
}

// call is the text of a step that calls tool with the input args.
func call(tool, args string) string { return ActionLabel + " " + tool + "\n" + InputLabel + " " + args }

func TestLlamaTakesWhatTheSchemasAllowAndRefusesTheRest(t *testing.T) {
	requireLlama(t)
	var texts []grammarText
	for _, a := range awkward {
		one, err := tools.NewRegistry(a.tool())
		if err != nil {
			t.Fatal(err)
		}
		g := For(one).Step().Grammar
		if !narrowed[a.name] {
			s := resolve(t, a.tool())
			for _, fit := range a.fit {
				var v any
				if err := json.Unmarshal([]byte(fit), &v); err != nil || s.Validate(v) != nil {
					t.Fatalf("%s: %s does not fit the schema: %v %v", a.name, fit, err, s.Validate(v))
				}
			}
		}
		for _, fit := range a.fit {
			texts = append(texts, grammarText{"fit " + a.name, g, call(a.toolName, fit)})
		}
		for _, misfit := range a.misfit {
			texts = append(texts, grammarText{"misfit " + a.name, g, call(a.toolName, misfit)})
		}
		texts = append(texts, grammarText{"misfit " + a.name, g, call(a.toolName+"x", a.fit[0])},
			grammarText{"fit " + a.name + ", a final answer, which is free", g, "Final Answer: " + a.fit[0]})
	}
	res := runSamples(t, sampleRequest{Model: tinyModel(t), Texts: texts})
	if len(res) != len(texts) {
		t.Fatalf("llama.cpp checked %d texts of %d", len(res), len(texts))
	}
	for i, r := range res {
		fit := strings.HasPrefix(texts[i].Name, "fit ")
		if took := r.Accepted && r.Complete; took != fit {
			t.Errorf("%s: llama.cpp's grammar took %q: %v (every byte %v, then the end %v)", texts[i].Name, r.Text, took, r.Accepted, r.Complete)
		}
	}
}

func TestSamplesUnderTheGrammarAreCallsOfRegisteredToolsThatFitTheirSchemas(t *testing.T) {
	requireLlama(t)
	all := []tools.Tool{}
	builtins, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, builtins.List()...)
	for _, a := range awkward {
		if !narrowed[a.name] {
			all = append(all, a.tool())
		}
	}
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	const samples = 6
	res := runSamples(t, sampleRequest{Model: tinyModel(t), Samples: samples, MaxTokens: 120, Seed: 7,
		Grammars: []namedText{{"all", fromAction(For(reg).Step().Grammar)}}})
	if len(res) != samples {
		t.Fatalf("llama.cpp gave %d samples of %d", len(res), samples)
	}
	p := parser.New(reg)
	seen := map[string]bool{}
	for _, r := range res {
		step, err := p.Parse(r.Text)
		if err != nil || step.Kind != parser.KindAction {
			t.Errorf("the sample %q does not parse to a call: %v %+v", r.Text, err, step)
			continue
		}
		tl, ok := reg.Get(step.Action)
		if !ok {
			t.Errorf("the sample %q calls %q, which is not registered", r.Text, step.Action)
			continue
		}
		seen[step.Action] = true
		if _, js := tl.(tools.SchemaDeclarer); js {
			if err := resolve(t, tl).Validate(step.Args); err != nil {
				t.Errorf("the sample %q: its arguments do not fit %s's schema: %v", r.Text, step.Action, err)
			}
		} else if _, err := tools.CheckArgs(tl.Name(), tl.Schema(), step.Args); err != nil {
			t.Errorf("the sample %q: %v", r.Text, err)
		}
	}
	t.Logf("%d samples, %d tools called: %v", len(res), len(seen), seen)
}

// resolve returns the JSON schema of a tool that has one, ready to
// validate arguments with.
func resolve(t *testing.T, tl tools.Tool) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(tl.(tools.SchemaDeclarer).JSONSchema(), &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
