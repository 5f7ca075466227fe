package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

func TestConstrainOffSendsTheRequestsOfBefore(t *testing.T) {
	// testdata/agent/requests holds the bodies the same run sent before
	// constraints existed, as JSON values, but for the bound on a reply's
	// tokens that every call carries since (num_predict, max_tokens) and,
	// on Ollama, the question of the model's longest context (/api/show),
	// "truncate": false and "shift": false, so that a prompt too long is
	// refused, not cut, and a reply that fills the window ends, and the
	// empty "format" langchaingo's client sent.
	for _, provider := range []string{"ollama", "openai"} {
		for _, c := range []Constrain{ConstrainOff, ""} {
			t.Run(provider+" "+string(c), func(t *testing.T) {
				data, err := os.ReadFile("../testdata/agent/requests/" + provider + ".json")
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				if err := json.Unmarshal(data, &want); err != nil {
					t.Fatal(err)
				}
				got := requestsOf(t, provider, WithConstrain(c))
				if len(got) != len(want) {
					t.Fatalf("the run sent %d requests, before %d", len(got), len(want))
				}
				for i := range got {
					if !sameRequest(got[i], want[i]) {
						t.Errorf("request %d differs:\n%s\nbefore:\n%s", i+1, got[i], want[i])
					}
				}
			})
		}
	}
}

// sameRequest reports whether two requests, "METHOD /path" and a JSON body
// on the lines after, are the same call with the same JSON value.
func sameRequest(a, b string) bool {
	la, ja, _ := strings.Cut(a, "\n")
	lb, jb, _ := strings.Cut(b, "\n")
	var va, vb any
	if la != lb || json.Unmarshal([]byte(ja), &va) != nil || json.Unmarshal([]byte(jb), &vb) != nil {
		return la == lb && ja == jb
	}
	return reflect.DeepEqual(va, vb)
}

// warnings collects the text of a run's warnings.
// warnings are the texts of the warnings and notices of a run.
type warnings []string

func (w *warnings) event(e event.Event) {
	if e.Kind == event.Warning || e.Kind == event.Notice || e.Kind == event.Retry {
		*w = append(*w, e.Text)
	}
}

func (w warnings) count(sub string) int {
	n := 0
	for _, s := range w {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

func TestLlamaCppBindsTheActionWithAGrammarOfTheWholeReply(t *testing.T) {
	tests := []struct {
		name     string
		opts     []modeltest.Option
		wantRoot string
	}{
		{"a reasoning block at the start stays free", nil, "root ::= reply\n"},
		{"a prompt the template left inside a reasoning block is free until its end", []modeltest.Option{modeltest.OpenThinking()}, "root ::= think-0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewLlamaCpp(twoSteps(t), append(tt.opts, modeltest.ContextSize(2048), modeltest.Repeat())...)
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL, Temperature: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			if w := m.(interface{ ContextWindow() int }).ContextWindow(); w != 2048 {
				t.Errorf("the context window is %d, want the 2048 of /props", w)
			}
			var said warnings
			a := New(m, registry(t), WithConstrain(ConstrainAuto), WithEvents(said.event))
			for range 2 {
				res, err := a.Run(context.Background(), "What is 17 + 25?")
				if err != nil {
					t.Fatal(err)
				}
				if res.Answer != "17 + 25 = 42" || res.Steps[0].Observation != "42" || res.Usage.PromptTokens != 200 {
					t.Errorf("answer %q, first observation %q, usage %+v", res.Answer, res.Steps[0].Observation, res.Usage)
				}
			}
			if n := said.count("constrained: the tool name and its arguments are bound by a GBNF grammar"); n != 1 {
				t.Errorf("the trace said how steps are bound %d times, want once: %q", n, said)
			}
			for i := range srv.Calls() {
				req := srv.Request(i)
				g, _ := req["grammar"].(string)
				if !strings.HasPrefix(g, tt.wantRoot) || !strings.Contains(g, "\naction ::= \"Action:\" \" \"? (call-add | call-echo | call-fail | call-slow)\n") {
					t.Fatalf("call %d carries the grammar %.300q", i+1, g)
				}
				if _, lazy := req["grammar_lazy"]; lazy || req["grammar_triggers"] != nil {
					t.Errorf("call %d asks for a lazy grammar, whose triggers llama.cpp matches against the whole reply at every token: %v %v",
						i+1, req["grammar_lazy"], req["grammar_triggers"])
				}
				if req["cache_prompt"] != true || req["stream"] != true || req["temperature"] != 0.1 || len(stopsOf(req["stop"])) != 4 {
					t.Errorf("call %d: %v", i+1, req)
				}
				if p, _ := req["prompt"].(string); !strings.HasPrefix(p, "<|im_start|>system\nYou are a careful assistant") {
					t.Errorf("call %d's prompt is not the chat template's: %q", i+1, p)
				}
			}
		})
	}
}

func TestVLLMAndSGLangGetAStructuralTag(t *testing.T) {
	for name, start := range map[string]func([]string, ...modeltest.Option) *modeltest.Server{
		"vLLM": modeltest.NewVLLM, "SGLang": modeltest.NewSGLang} {
		t.Run(name, func(t *testing.T) {
			srv := start(twoSteps(t))
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL, Model: "qwen"})
			if err != nil {
				t.Fatal(err)
			}
			var said warnings
			res, err := New(m, registry(t), WithConstrain(ConstrainAuto), WithEvents(said.event)).Run(context.Background(), "What is 17 + 25?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "17 + 25 = 42" {
				t.Errorf("answer %q", res.Answer)
			}
			if said.count("structural tag in response_format ("+name+")") != 1 {
				t.Errorf("the trace said %q", said)
			}
			rf, _ := srv.Request(0)["response_format"].(map[string]any)
			structures, _ := rf["structures"].([]any)
			if rf["type"] != "structural_tag" || len(structures) != 4 {
				t.Fatalf("response_format is %v", rf)
			}
			first := structures[0].(map[string]any)
			if first["begin"] != "Action: add\nAction Input: " || first["end"] != "\n" {
				t.Errorf("the first structure is %v", first)
			}
			if schema, _ := first["schema"].(map[string]any); schema["type"] != "object" || len(schema["required"].([]any)) != 2 {
				t.Errorf("the add tool's schema is %v", first["schema"])
			}
		})
	}
}

func TestAConstraintTheServerRefusesIsLeftOutAfterOneRetry(t *testing.T) {
	srv := modeltest.NewVLLM(twoSteps(t), modeltest.NoStructuralTags())
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL, Model: "qwen"})
	if err != nil {
		t.Fatal(err)
	}
	var said warnings
	res, err := New(m, registry(t), WithConstrain(ConstrainAuto), WithEvents(said.event)).Run(context.Background(), "What is 17 + 25?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "17 + 25 = 42" {
		t.Errorf("answer %q", res.Answer)
	}
	var with []bool
	for i := range srv.Calls() {
		_, ok := srv.Request(i)["response_format"]
		with = append(with, ok)
	}
	if len(with) != 3 || !with[0] || with[1] || with[2] {
		t.Errorf("response_format was sent in the calls %v; want the first, refused, then never again", with)
	}
	if said.count("the server refused the constraint") != 1 {
		t.Errorf("the trace said %q", said)
	}
}

func TestOllamaGetsTheJSONObjectProtocolWithConstrainOn(t *testing.T) {
	replies := []string{
		`{"thought": "I will use add.", "action": "add", "action_input": {"a": 17, "b": 25}}`,
		`{"thought": "I know it now.", "action": "Final Answer", "action_input": "17 + 25 = 42"}`,
	}
	srv := modeltest.NewOllama(replies)
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "ollama", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var said warnings
	res, err := New(m, registry(t), WithConstrain(ConstrainOn), WithEvents(said.event)).Run(context.Background(), "What is 17 + 25?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "17 + 25 = 42" || res.Steps[0].Observation != "42" || res.Recovered != 0 {
		t.Errorf("answer %q, first observation %q, recovered %d", res.Answer, res.Steps[0].Observation, res.Recovered)
	}
	format, _ := srv.Request(0)["format"].(map[string]any)
	branches, _ := format["anyOf"].([]any)
	if len(branches) != 5 {
		t.Fatalf("format is %v; want a branch for each of the 4 tools and the final answer", format)
	}
	msgs := srv.Request(1)["messages"].([]any)
	system := msgs[0].(map[string]any)["content"].(string)
	user := msgs[1].(map[string]any)["content"].(string)
	if !strings.Contains(system, "Reply with exactly one JSON object") ||
		!strings.Contains(user, `{"thought": "I will use add.", "action": "add", "action_input": {"a":17,"b":25}}`+"\nObservation: 42") {
		t.Errorf("the second prompt is\n%s\n%s", system, user)
	}
	if said.count("JSON object protocol") != 1 {
		t.Errorf("the trace said %q", said)
	}
}

func TestAutoLeavesTheServersOfTheJSONObjectProtocolAsTheyAre(t *testing.T) {
	srv := modeltest.NewOllama(twoSteps(t))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "ollama", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var said warnings
	if _, err := New(m, registry(t), WithConstrain(ConstrainAuto), WithEvents(said.event)).Run(context.Background(), "What is 17 + 25?"); err != nil {
		t.Fatal(err)
	}
	if f, ok := srv.Request(0)["format"]; ok || len(said) != 0 {
		t.Errorf("format %v, warnings %q", f, said)
	}
}

func TestConstrainOnWithAServerThatCannotIsAnError(t *testing.T) {
	srv := modeltest.NewOpenAI(twoSteps(t), modeltest.Model("m"))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(m, registry(t), WithConstrain(ConstrainOn)).Run(context.Background(), "What is 17 + 25?")
	if !errors.Is(err, model.ErrCannotConstrain) || srv.Calls() != 0 {
		t.Errorf("err %v after %d calls; want ErrCannotConstrain before any", err, srv.Calls())
	}
}

func TestLMStudioAndOpenAIGetAJSONSchemaInResponseFormat(t *testing.T) {
	replies := []string{
		`{"thought": "I will use add.", "action": "add", "action_input": {"a": 17, "b": 25}}`,
		`{"thought": "I know it now.", "action": "Final Answer", "action_input": "17 + 25 = 42"}`,
	}
	tests := []struct {
		server string
		strict bool
	}{
		{model.ServerLMStudio, false},
		{model.ServerOpenAI, true}, // the tools' arguments fit strict mode's subset
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			srv := modeltest.NewOpenAI(replies)
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL, Model: "m", Server: tt.server})
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(m, registry(t), WithConstrain(ConstrainOn)).Run(context.Background(), "What is 17 + 25?")
			if err != nil || res.Answer != "17 + 25 = 42" {
				t.Fatalf("answer %q, err %v", res.Answer, err)
			}
			rf, _ := srv.Request(0)["response_format"].(map[string]any)
			js, _ := rf["json_schema"].(map[string]any)
			schema, _ := js["schema"].(map[string]any)
			if rf["type"] != "json_schema" || js["name"] != "react_step" || js["strict"] != tt.strict || schema == nil {
				t.Fatalf("response_format is %v", rf)
			}
			if _, rootAnyOf := schema["anyOf"]; rootAnyOf == tt.strict {
				t.Errorf("strict %v with a root anyOf %v: %v", tt.strict, rootAnyOf, schema)
			}
		})
	}
}

// declaredTool is a tool whose arguments have a JSON schema of their own,
// as an MCP tool's have.
type declaredTool struct {
	funcTool
	schema string
}

func (t declaredTool) JSONSchema() json.RawMessage { return json.RawMessage(t.schema) }

func TestATooLargeSchemaIsSaidAndTheOtherToolsStayBound(t *testing.T) {
	props := make([]string, 3000)
	for i := range props {
		props[i] = fmt.Sprintf(`"property_with_a_long_name_%d":{"type":"string"}`, i)
	}
	huge := declaredTool{funcTool{name: "huge", fn: func(context.Context, map[string]any) (string, error) { return "", nil }},
		`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`}
	srv := modeltest.NewLlamaCpp(twoSteps(t))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var said warnings
	res, err := New(m, registry(t, addTool(), huge), WithConstrain(ConstrainAuto), WithEvents(said.event)).Run(context.Background(), "What is 17 + 25?")
	if err != nil || res.Answer != "17 + 25 = 42" {
		t.Fatalf("answer %q, error %v", res.Answer, err)
	}
	if said.count("the arguments of huge are not bound") != 1 {
		t.Errorf("the trace said %q", said)
	}
	if g, _ := srv.Request(0)["grammar"].(string); !strings.Contains(g, `call-add-args ::= "{" space "\"a\""`) || len(g) > 1<<20 {
		t.Errorf("the grammar of %d bytes does not bind add:\n%.400s", len(g), g)
	}
}

// TestTheOpenAIProviderAtALlamaServerBindsTheSteps runs against a
// llama-server found by its /v1/models, whose chat template opens a
// reasoning block in the prompt (its /apply-template): each step goes
// with the grammar of a reply that starts inside the block.
func TestTheOpenAIProviderAtALlamaServerBindsTheSteps(t *testing.T) {
	srv, calls := serveRecorded(t, map[string]string{
		"GET /v1/models":            "llamacpp-b8355/v1-models",
		"POST /apply-template":      "llamacpp-b8355/apply-template-think",
		"POST /v1/chat/completions": "llamacpp-b8355/v1-stream-think-final", // "I ponder.\n</think>\nThought: I know it now.\nFinal Answer: hello"
	})
	rec := &rawBodies{}
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL + "/v1", HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	var said warnings
	res, err := New(m, registry(t), WithConstrain(ConstrainAuto), WithEvents(said.event)).Run(context.Background(), "Say hello.")
	if err != nil || res.Answer != "hello" {
		t.Fatalf("answer %q, error %v", res.Answer, err)
	}
	if said.count("bound by a GBNF grammar on llama.cpp's /v1/chat/completions") != 1 || calls["POST /v1/chat/completions"] != 1 {
		t.Errorf("warnings %q, %d calls", said, calls["POST /v1/chat/completions"])
	}
	for _, b := range rec.bodies {
		if strings.HasPrefix(b, "POST /v1/chat/completions") && !strings.Contains(b, `"grammar":"root ::= think-0\n`) {
			t.Errorf("the call does not carry the grammar of a reply inside a reasoning block: %.300s", b)
		}
	}
}

// TestAutosTextFallbackIsBound checks that the text protocol --protocol
// auto goes on with, on a llama-server whose template takes no tools, is
// bound as a run of the text protocol is: the grammar goes with every
// call.
func TestAutosTextFallbackIsBound(t *testing.T) {
	srv := modeltest.NewLlamaCpp(twoSteps(t), modeltest.NoTools())
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var said warnings
	res, err := New(m, registry(t), WithProtocol(ProtocolAuto), WithConstrain(ConstrainAuto), WithEvents(said.event)).Run(context.Background(), "What is 17 + 25?")
	if err != nil || res.Answer != "17 + 25 = 42" {
		t.Fatalf("answer %q, error %v", res.Answer, err)
	}
	if srv.Calls() == 0 || said.count("the run goes on with the text protocol") != 1 || said.count("constrained:") != 1 {
		t.Fatalf("%d calls, warnings %q", srv.Calls(), said)
	}
	for i := range srv.Calls() {
		if g, _ := srv.Request(i)["grammar"].(string); !strings.Contains(g, "action ::=") {
			t.Errorf("call %d of the text protocol carries no grammar: %.200q", i+1, g)
		}
	}
}
