package chatml_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest/chatml"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
	"github.com/react-agent/react-agent/tools"
)

// A conversation is a question the agent runs with the native protocol,
// the tools it offers and what the model replies at each call.
type conversation struct {
	name     string
	question string
	all      bool // the default tools, not the calculator alone
	replies  []*llms.ContentChoice
}

func call(id, args string) *llms.ContentChoice {
	return &llms.ContentChoice{StopReason: "tool_calls", ToolCalls: []llms.ToolCall{{ID: id, Type: "function",
		FunctionCall: &llms.FunctionCall{Name: "calculator", Arguments: args}}}}
}

func text(s string) *llms.ContentChoice { return &llms.ContentChoice{Content: s, StopReason: "stop"} }

func withText(s string, c *llms.ContentChoice) *llms.ContentChoice {
	c.Content = s
	return c
}

var conversations = []conversation{
	{name: "calls, an error, an empty reply and the answer", question: "What is 9 cubed, minus 4 < 5 & \"6\"? Café ☕",
		replies: []*llms.ContentChoice{text(""), call("c1", `{"expression": "9 cubed"}`), call("c2", `{"expression":"9 ** 3 - 4 < 5"}`),
			withText("I will write it with symbols.", call("c3", `{"expression":"9 ** 3 - 4"}`)), text("725")}},
	{name: "the default tools", question: "What is 2 + 2?", all: true,
		replies: []*llms.ContentChoice{call("c1", `{"expression":"2 + 2"}`), text("4")}},
}

// relay is a model that sends each call to a real server, which renders
// it, and replies from a script; it keeps the messages and tools of each
// call.
type relay struct {
	server  llms.Model
	replies []*llms.ContentChoice
	msgs    [][]llms.MessageContent
	tools   [][]llms.Tool
}

func (r *relay) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	r.msgs, r.tools = append(r.msgs, slices.Clone(msgs)), append(r.tools, o.Tools)
	if _, err := r.server.GenerateContent(ctx, msgs, opts...); err != nil {
		return nil, err
	}
	i := len(r.msgs) - 1
	if i >= len(r.replies) {
		return nil, io.EOF
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{r.replies[i]}}, nil
}

func (r *relay) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, p, opts...)
}

// recorder keeps the bodies of the requests to paths ending in suffix.
type recorder struct {
	suffix string
	mu     sync.Mutex
	bodies [][]byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && strings.HasSuffix(req.URL.Path, r.suffix) {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		r.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

// ollamaPrompt is the line of Ollama's trace log that holds a prompt it
// rendered.
var ollamaPrompt = regexp.MustCompile(`msg="completion request" prompt=("(?:[^"\\]|\\.)*")`)

// TestRenderIsWhatTheServersRender runs the agent with the native
// protocol on a model that relays every call to the real server and
// replies from a script, and holds Render to the prompt the server
// rendered for each call: llama-server's /apply-template of the request
// the llamacpp client sent, and the prompt Ollama's trace log shows. A
// change to the clients' request bodies, to the servers or to the template
// fails here; the toy model of testdata/toy, trained on Render's prompts,
// must then be trained again.
func TestRenderIsWhatTheServersRender(t *testing.T) {
	for _, s := range chatml.Servers {
		t.Run(string(s), func(t *testing.T) {
			var srv *realserver.Server
			provider, rec := "llamacpp", &recorder{suffix: "/chat/completions"}
			if s == chatml.Ollama {
				provider = "ollama"
				srv = realserver.Ollama(t, realserver.Context(8192), realserver.Env("OLLAMA_DEBUG=2"))
			} else {
				srv = realserver.LlamaServer(t, realserver.Context(8192))
			}
			all, err := tools.Builtins(tools.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			calc, _ := all.Get("calculator")
			only, err := tools.NewRegistry(calc)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, c := range conversations {
				m, err := model.New(t.Context(), model.Config{Provider: provider, BaseURL: srv.URL, Model: srv.Model, MaxTokens: 1,
					HTTPClient: &http.Client{Transport: rec}})
				if err != nil {
					t.Fatal(err)
				}
				r := &relay{server: m, replies: c.replies}
				reg := only
				if c.all {
					reg = all
				}
				a := agent.New(r, reg, agent.WithProtocol(agent.ProtocolNative), agent.WithRetries(0, 0, 0))
				if _, err := a.Run(t.Context(), c.question); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if len(r.msgs) != len(c.replies) {
					t.Fatalf("%s: the agent made %d calls, the script has %d replies", c.name, len(r.msgs), len(c.replies))
				}
				for i := range r.msgs {
					p, err := chatml.Render(s, r.msgs[i], r.tools[i])
					if err != nil {
						t.Fatalf("%s, call %d: %v", c.name, i+1, err)
					}
					want = append(want, p)
				}
			}
			var got []string
			if s == chatml.Ollama {
				for _, m := range ollamaPrompt.FindAllStringSubmatch(srv.Log(), -1) {
					p, err := strconv.Unquote(m[1])
					if err != nil {
						t.Fatalf("a prompt of Ollama's log: %v", err)
					}
					got = append(got, p)
				}
			} else {
				for _, body := range rec.bodies {
					resp, err := http.Post(srv.URL+"/apply-template", "application/json", bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					var out struct {
						Prompt string `json:"prompt"`
					}
					err = json.NewDecoder(resp.Body).Decode(&out)
					resp.Body.Close()
					if err != nil || resp.StatusCode != http.StatusOK {
						t.Fatalf("/apply-template: %s, %v", resp.Status, err)
					}
					got = append(got, out.Prompt)
				}
			}
			t.Logf("%d prompts compared", len(want))
			if len(got) != len(want) {
				t.Fatalf("the server rendered %d prompts, the agent made %d calls", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("call %d: the server rendered\n%q\nRender\n%q", i+1, got[i], want[i])
				}
			}
		})
	}
}
