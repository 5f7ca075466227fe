package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with what the tests get")

// bodies is a loopback server that answers every endpoint the clients
// call with a short reply of its protocol, and keeps each request, as it
// came, byte for byte.
type bodies struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD /path" and the body, on the line after
}

func serveBodies(t *testing.T, owner string) *bodies {
	t.Helper()
	b := &bodies{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.seen = append(b.seen, r.Method+" "+r.URL.Path+"\n"+string(data))
		b.mu.Unlock()
		stream := bytes.Contains(data, []byte(`"stream":true`))
		switch r.URL.Path {
		case "/api/show":
			io.WriteString(w, `{"model_info":{"general.architecture":"llama","llama.context_length":32768}}`)
		case "/api/chat":
			w.Header().Set("Content-Type", "application/x-ndjson")
			io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"Final Answer: 4"},"done":true,"done_reason":"stop","prompt_eval_count":40,"eval_count":4}`+"\n")
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"m","owned_by":"`+owner+`"}]}`)
		case "/props":
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":4096},"chat_template_caps":{"supports_tool_calls":true}}`)
		case "/apply-template":
			io.WriteString(w, `{"prompt":"<|user|>q<|assistant|>"}`)
		case "/completion":
			if stream {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, `data: {"content":"Final Answer: 4","stop":true,"stop_type":"eos","tokens_predicted":4,"tokens_evaluated":40}`+"\n\n")
				return
			}
			io.WriteString(w, `{"content":"Final Answer: 4","stop":true,"stop_type":"eos","tokens_predicted":4,"tokens_evaluated":40}`)
		case "/v1/chat/completions":
			if stream {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Final Answer: 4"},"finish_reason":"stop"}]}`+"\n\n"+
					`data: {"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":4}}`+"\n\ndata: [DONE]\n\n")
				return
			}
			io.WriteString(w, `{"choices":[{"index":0,"message":{"content":"Final Answer: 4"},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":4}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(b.Close)
	return b
}

// requests returns what the server was sent, each request after its
// "METHOD /path" line, separated by blank lines.
func (b *bodies) requests() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.seen, "\n\n") + "\n"
}

// toServer is a transport that takes every request to the server at
// url, over plain HTTP, whatever host it names.
type toServer struct{ url string }

func (s toServer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = "http", strings.TrimPrefix(s.url, "http://")
	return http.DefaultTransport.RoundTrip(req)
}

// goldenTools are two tools as the agent defines them for the native
// protocol, from their schemas.
func goldenTools() []llms.Tool {
	calc := tools.Schema{Args: []tools.Arg{{Name: "expression", Type: "string", Description: "an arithmetic expression, such as 2+2", Required: true}}}
	search := tools.Schema{Args: []tools.Arg{
		{Name: "query", Type: "string", Description: "what to search for", Required: true},
		{Name: "count", Type: "integer", Description: "how many results"},
	}}
	return []llms.Tool{
		{Type: "function", Function: &llms.FunctionDefinition{Name: "calculator", Description: "Evaluates arithmetic <exactly> & safely.", Parameters: calc.JSONSchema()}},
		{Type: "function", Function: &llms.FunctionDefinition{Name: "web_search", Description: "Searches the web.", Parameters: search.JSONSchema()}},
	}
}

// textMessages are the messages of a text-protocol step.
func textMessages() []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You answer with tools. Reply as Thought/Action/Action Input."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Question: What is 2+2 <and> 3&4?\n\n"),
		llms.TextParts(llms.ChatMessageTypeAI, "Thought: add\nAction: calculator\nAction Input: {\"expression\":\"2+2\"}"),
		llms.TextParts(llms.ChatMessageTypeHuman, "Observation: 4\n"),
	}
}

// nativeMessages are the messages of a native-protocol step, a tool
// call and its result among them, and an image.
func nativeMessages() []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a helpful assistant."),
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "What is in the picture, plus 2?"},
			llms.BinaryContent{MIMEType: "image/png", Data: []byte("\x89PNG")}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "I will add."},
			llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "calculator", Arguments: `{"expression":"2+2"}`}}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "call_1", Name: "calculator", Content: "4"}}},
	}
}

// goldenConstraint binds a reply in every form a server takes.
func goldenConstraint() *model.Constraint {
	return &model.Constraint{
		Grammar:         `root ::= "Final Answer: " [0-9]+`,
		ThinkingGrammar: `root ::= [^<]* "</think>" "Final Answer: " [0-9]+`,
		Tag: &model.StructuralTag{Triggers: []string{"Action:"}, Structures: []model.Structure{
			{Begin: "Action: calculator\nAction Input: ", Schema: json.RawMessage(`{"type":"object"}`), End: "\n"}}},
		Schema:       json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}},"required":["action"]}`),
		StrictSchema: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}},"required":["action"],"additionalProperties":false}`),
		Name:         "step",
	}
}

// TestRequestBodiesAreAsBefore sends calls of each protocol, text and
// native, bound and free, streamed or not, with options set and not, and
// compares what reached the server, byte for byte, with
// testdata/model/requests: a change of a request, the tools' definitions
// above all (a model trained on how servers render them sees them so), is
// seen here first. go test -run TestRequestBodiesAreAsBefore -update
// rewrites them after a change that is meant.
func TestRequestBodiesAreAsBefore(t *testing.T) {
	stream := llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })
	stops := llms.WithStopWords([]string{"\nObservation", "\nobservation"})
	tests := []struct {
		name  string
		owner string // what the server's /v1/models says owns its models
		path  string // the path of the base URL
		cfg   model.Config
		msgs  []llms.MessageContent
		opts  []llms.CallOption
		bound bool // the call is bound by goldenConstraint
	}{
		{"ollama-text", "", "", model.Config{Provider: "ollama", Model: "m"}, textMessages(), []llms.CallOption{stream, stops}, false},
		{"ollama-native", "", "", model.Config{Provider: "ollama", Model: "m"}, nativeMessages(),
			[]llms.CallOption{llms.WithTools(goldenTools())}, false},
		{"ollama-options", "", "", model.Config{Provider: "ollama", Model: "m", Temperature: 0.7, TopP: 0.9, TopK: 40, Seed: 7, MaxTokens: 100,
			Options: map[string]any{"keep_alive": "1m", "repeat_penalty": 1.1, "think": false, "num_ctx": 4096}},
			textMessages(), []llms.CallOption{stops, llms.WithJSONMode()}, false},
		{"ollama-constrained", "", "", model.Config{Provider: "ollama", Model: "m"}, textMessages(),
			[]llms.CallOption{stream}, true},
		{"openai-text", "", "/v1", model.Config{Provider: "openai", Model: "m"}, textMessages(), []llms.CallOption{stream, stops}, false},
		{"openai-native", "", "/v1", model.Config{Provider: "openai", Model: "m"}, nativeMessages(),
			[]llms.CallOption{llms.WithTools(goldenTools()), llms.WithToolChoice("auto")}, false},
		{"openai-options", "", "/v1", model.Config{Provider: "openai", Model: "m", Temperature: 0.2, TopP: 0.5, TopK: 20, Seed: 3, MaxTokens: -1,
			Options: map[string]any{"min_p": 0.05, "repeat_penalty": 1.2, "temperature": 0.4}},
			textMessages(), []llms.CallOption{stream, stops, llms.WithJSONMode(), llms.WithFrequencyPenalty(0.1), llms.WithPresencePenalty(0.2)}, false},
		{"openai-grammar", "llamacpp", "/v1", model.Config{Provider: "openai", Model: "m"}, textMessages(),
			[]llms.CallOption{stream, stops}, true},
		{"openai-tag", "vllm", "/v1", model.Config{Provider: "openai", Model: "m"}, textMessages(),
			[]llms.CallOption{stream}, true},
		{"openai-schema", "", "/v1", model.Config{Provider: "openai", Model: "m", Server: model.ServerLMStudio,
			Options: map[string]any{"response_format": map[string]any{"extra": true}}},
			textMessages(), nil, true},
		{"openai-hosted", "", "", model.Config{Provider: "openai", Model: "o3-mini", APIKey: "sk-test", TopK: 3, TopP: 0.5},
			textMessages(), []llms.CallOption{stream, stops}, true},
		{"llamacpp-text", "llamacpp", "", model.Config{Provider: "llamacpp"}, textMessages(), []llms.CallOption{stream, stops}, false},
		{"llamacpp-options", "llamacpp", "", model.Config{Provider: "llamacpp", Temperature: 0.3, TopK: 5, Seed: 9,
			Options: map[string]any{"min_p": 0.1, "n_predict": 50, "cache_prompt": false}},
			textMessages(), []llms.CallOption{stops, llms.WithFrequencyPenalty(0.1)}, false},
		{"llamacpp-grammar", "llamacpp", "", model.Config{Provider: "llamacpp"}, textMessages(),
			[]llms.CallOption{stream, stops}, true},
		{"llamacpp-native", "llamacpp", "", model.Config{Provider: "llamacpp"}, nativeMessages()[2:],
			[]llms.CallOption{llms.WithTools(goldenTools())}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveBodies(t, tt.owner)
			cfg := tt.cfg
			cfg.BaseURL = srv.URL + tt.path
			if cfg.APIKey != "" {
				// OpenAI's own API, at its address, answered here.
				cfg.BaseURL, cfg.HTTPClient = "https://api.openai.com/v1", &http.Client{Transport: toServer{srv.URL}}
			}
			m, err := model.New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			req := model.RequestOf(tt.msgs, tt.opts)
			if tt.bound {
				req.Constraint = goldenConstraint()
			}
			if _, err := m.(model.Generator).Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			got := srv.requests()
			path := filepath.Join("..", "..", "testdata", "model", "requests", tt.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("the requests differ from %s:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}
