package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// nativeServers are the fake servers the native protocol is tested
// against, with the real langchaingo clients: OpenAI's API, and Ollama,
// whose tool calls go through its OpenAI-compatible endpoint.
var nativeServers = []struct {
	provider string
	start    func([]string, ...modeltest.Option) *modeltest.Server
}{
	{"openai", modeltest.NewOpenAI},
	{"ollama", modeltest.NewOllama},
}

func nativeModel(t *testing.T, provider, url string) *Agent {
	t.Helper()
	m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: url, APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return New(m, registry(t), WithProtocol(ProtocolNative), fastRetries())
}

func TestNativeToolCalls(t *testing.T) {
	add := modeltest.Call{Name: "add", Arguments: map[string]any{"a": 17, "b": 25}}
	tests := []struct {
		name        string
		replies     []string
		wantArgs    map[string]any
		wantRescued int
	}{
		{"a tool call, then the answer", []string{modeltest.Calls("", add), "The sum is 42."}, map[string]any{"a": 17.0, "b": 25.0}, 0},
		{"parallel calls: the first is the step", []string{modeltest.Calls("Adding.", add, modeltest.Call{Name: "echo", Arguments: map[string]any{"input": "x"}}), "The sum is 42."},
			map[string]any{"a": 17.0, "b": 25.0}, 0},
		{"arguments that are not valid JSON", []string{modeltest.Calls("", modeltest.Call{Name: "add", Arguments: "{'a': 17, 'b': 25,}"}), "The sum is 42."},
			map[string]any{"a": 17.0, "b": 25.0}, 0},
		{"a call leaked into the text as a tool_call block", []string{"<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 17, \"b\": 25}}\n</tool_call>", "The sum is 42."},
			map[string]any{"a": 17.0, "b": 25.0}, 1},
		{"a call leaked into the text as ReAct labels", []string{"Thought: add them\nAction: add\nAction Input: {\"a\": 17, \"b\": 25}", "The sum is 42."},
			map[string]any{"a": 17.0, "b": 25.0}, 1},
	}
	for _, srv := range nativeServers {
		for _, tt := range tests {
			t.Run(srv.provider+": "+tt.name, func(t *testing.T) {
				s := srv.start(tt.replies)
				defer s.Close()
				res, err := nativeModel(t, srv.provider, s.URL).Run(context.Background(), "What is 17 + 25?")
				if err != nil {
					t.Fatal(err)
				}
				if res.Answer != "The sum is 42." || len(res.Steps) != 2 {
					t.Fatalf("answer %q after %d steps, want the sum after 2", res.Answer, len(res.Steps))
				}
				first := res.Steps[0]
				if first.Action != "add" || fmt.Sprint(first.Args) != fmt.Sprint(tt.wantArgs) || first.Observation != "42" {
					t.Errorf("first step %s %v → %q, want add %v → 42", first.Action, first.Args, first.Observation, tt.wantArgs)
				}
				if res.Rescued != tt.wantRescued {
					t.Errorf("Rescued = %d, want %d", res.Rescued, tt.wantRescued)
				}
				// The server got the tools as function definitions, and the
				// tool's result back as a tool message.
				req := s.Request(0)
				tools, _ := req["tools"].([]any)
				if len(tools) != 4 {
					t.Errorf("the first request offered %d tools, want 4: %v", len(tools), req["tools"])
				}
				if _, ok := req["stop"]; ok {
					t.Errorf("the native request sent stop sequences: %v", req["stop"])
				}
				msgs, _ := s.Request(1)["messages"].([]any)
				last, _ := msgs[len(msgs)-1].(map[string]any)
				if tt.wantRescued == 0 && (last["role"] != "tool" || last["content"] != "42") {
					t.Errorf("the second request ends with %v, want the tool's result", last)
				}
			})
		}
	}
}

func TestNativeForcedAnswerHasNoTools(t *testing.T) {
	add := modeltest.Call{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}}
	s := modeltest.NewOpenAI([]string{modeltest.Calls("", add), "It is 3."})
	defer s.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: s.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(m, registry(t), WithProtocol(ProtocolNative), WithMaxIterations(1)).Run(context.Background(), "1+2?")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Forced || res.Answer != "It is 3." {
		t.Errorf("forced %v, answer %q; want a forced answer", res.Forced, res.Answer)
	}
	if _, ok := s.Request(1)["tools"]; ok {
		t.Error("the call asking for the final answer offered tools")
	}
}

func TestNativeToolsRefused(t *testing.T) {
	s := modeltest.NewOpenAI([]string{"x"}, modeltest.Reject("tools"))
	defer s.Close()
	_, err := nativeModel(t, "openai", s.URL).Run(context.Background(), "q")
	if !errors.Is(err, ErrToolsRefused) {
		t.Fatalf("error %v, want ErrToolsRefused", err)
	}
	if s.Calls() != 1 {
		t.Errorf("%d calls, want 1: a refusal is not retried", s.Calls())
	}
}

func TestAutoFallsBackToText(t *testing.T) {
	s := modeltest.NewOpenAI(twoSteps(t), modeltest.Reject("tools"))
	defer s.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: s.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var warned bool
	res, err := New(m, registry(t), WithProtocol(ProtocolAuto), WithEvents(func(e event.Event) {
		warned = warned || e.Kind == event.Warning && errors.Is(e.Err, ErrToolsRefused)
	})).Run(context.Background(), "What is 17 + 25?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "17 + 25 = 42" || !warned {
		t.Errorf("answer %q, warned %v; want 42 through the text protocol, with a warning", res.Answer, warned)
	}
	if _, ok := s.Request(1)["tools"]; ok {
		t.Error("the call after the refusal still offered tools")
	}
}

// TestProtocolsBehaveAlike runs the same behaviours through both
// protocols, against the same fake server: the hooks, the observations,
// the repeated-call rule and the stop reasons are the same whichever
// protocol the model speaks.
func TestProtocolsBehaveAlike(t *testing.T) {
	type turn struct {
		tool, args string // a call, or
		answer     string // a final answer
	}
	script := func(p Protocol, turns []turn) []string {
		var out []string
		for _, tr := range turns {
			switch {
			case tr.answer != "" && p == ProtocolNative:
				out = append(out, tr.answer)
			case tr.answer != "":
				out = append(out, final(tr.answer))
			case p == ProtocolNative:
				out = append(out, modeltest.Calls("", modeltest.Call{Name: tr.tool, Arguments: tr.args}))
			default:
				out = append(out, action(tr.tool, tr.args))
			}
		}
		return out
	}
	echo := turn{tool: "echo", args: `{"text": "hi"}`}
	tests := []struct {
		name      string
		turns     []turn
		hook      *steer
		wantSeen  string
		wantObs   []string
		wantStop  event.StopReason
		wantSteps int
	}{
		{"hooks see every stage", []turn{echo, {answer: "done"}}, &steer{},
			"model parse:action tool:echo done:hi model parse:final", []string{"hi", ""}, event.StopFinalAnswer, 2},
		{"a denied call is not run", []turn{echo, {answer: "done"}}, &steer{decision: func(*ToolCall) Decision { return Deny("no") }},
			"model parse:action tool:echo model parse:final", []string{"Error: the call was not run: no", ""}, event.StopFinalAnswer, 2},
		{"a hook's arguments are the call's", []turn{echo, {answer: "done"}},
			&steer{decision: func(*ToolCall) Decision { return WithArgs(map[string]any{"text": "changed"}) }},
			"model parse:action tool:echo done:changed model parse:final", []string{"changed", ""}, event.StopFinalAnswer, 2},
		{"an unknown tool is an observation", []turn{{tool: "nope", args: `{}`}, {answer: "done"}}, &steer{},
			"model parse:action tool:nope done:Error: … model parse:final", nil, event.StopFinalAnswer, 2},
		{"the same call three times ends the loop", []turn{echo, echo, echo, {answer: "forced"}}, &steer{},
			"model parse:action tool:echo done:hi model parse:action model parse:action model parse:final", nil, event.StopRepeatedCall, 2},
	}
	for _, tt := range tests {
		for _, p := range []Protocol{ProtocolText, ProtocolNative} {
			t.Run(fmt.Sprintf("%s, %s", tt.name, p), func(t *testing.T) {
				hook := *tt.hook
				s := modeltest.NewOpenAI(script(p, tt.turns))
				defer s.Close()
				m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: s.URL, APIKey: "k"})
				if err != nil {
					t.Fatal(err)
				}
				res, _ := New(m, registry(t), WithProtocol(p), WithHooks(&hook)).Run(context.Background(), "q")
				seen := strings.Join(hook.seen, " ")
				if want := tt.wantSeen; !matchEllipsis(want, seen) {
					t.Errorf("hooks saw %q, want %q", seen, want)
				}
				if res.StopReason != tt.wantStop || len(res.Steps) != tt.wantSteps+boolInt(res.Forced) {
					t.Errorf("stop %s after %d steps, want %s after %d", res.StopReason, len(res.Steps), tt.wantStop, tt.wantSteps)
				}
				for i, want := range tt.wantObs {
					if i < len(res.Steps) && res.Steps[i].Observation != want {
						t.Errorf("step %d observation %q, want %q", i+1, res.Steps[i].Observation, want)
					}
				}
			})
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// matchEllipsis reports whether got is want, where "…" in want stands for
// any text without spaces.
func matchEllipsis(want, got string) bool {
	before, after, ok := strings.Cut(want, "…")
	if !ok {
		return got == want
	}
	if !strings.HasPrefix(got, before) {
		return false
	}
	rest := got[len(before):]
	i := strings.Index(rest, after)
	return i >= 0 && rest[i:] == after
}

// TestALlamaServerThatDropsToolsFallsBackToText runs against llama-server
// whose chat template takes no tools: it answers tools with 200 and plain
// text ("Thought: I will look it up."). Its /props says so: auto goes on
// with the text protocol, through /completion, where the steps are bound
// as on any text run; native says the server takes no tools. Neither asks
// /v1 for tools.
func TestALlamaServerThatDropsToolsFallsBackToText(t *testing.T) {
	for _, protocol := range []Protocol{ProtocolAuto, ProtocolNative} {
		t.Run(string(protocol), func(t *testing.T) {
			srv, calls := serveRecorded(t, map[string]string{
				"GET /props":                "llamacpp-b8355/props-notools",
				"POST /v1/chat/completions": "llamacpp-b8355/v1-plain",
				"POST /apply-template":      "llamacpp-b8355/apply-template",
				"POST /completion":          "llamacpp-b8355/completion-stream-final",
			})
			m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			var said warnings
			res, err := New(m, registry(t), WithProtocol(protocol), WithEvents(said.event)).Run(context.Background(), "What is 17 + 25?")
			if calls["POST /v1/chat/completions"] != 0 {
				t.Errorf("%d calls with tools", calls["POST /v1/chat/completions"])
			}
			switch protocol {
			case ProtocolAuto:
				if err != nil || res.Answer != "hello" || calls["POST /completion"] != 1 || said.count("the run goes on with the text protocol") != 1 {
					t.Errorf("answer %q, error %v, %d calls of /completion, warnings %q", res.Answer, err, calls["POST /completion"], said)
				}
			case ProtocolNative:
				if !errors.Is(err, ErrToolsRefused) || res.Answer != "" {
					t.Errorf("answer %q, error %v", res.Answer, err)
				}
			}
		})
	}
}
