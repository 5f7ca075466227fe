package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms/fake"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/agent/redact"
)

// recorded is a tracer provider that keeps the spans it ends.
type recorded struct {
	*sdktrace.TracerProvider
	rec *tracetest.SpanRecorder
}

func newRecorded() recorded {
	rec := tracetest.NewSpanRecorder()
	return recorded{sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), rec}
}

// named returns the ended spans whose name starts with prefix, in the
// order they started.
func (r recorded) named(prefix string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range r.rec.Ended() {
		if strings.HasPrefix(s.Name(), prefix) {
			out = append(out, s)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].StartTime().Before(out[j-1].StartTime()); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// attrs returns the attributes of s by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// everything is all a span says, as text: its name, attributes, status
// and events with theirs.
func everything(s sdktrace.ReadOnlySpan) string {
	var b strings.Builder
	fmt.Fprintln(&b, s.Name(), s.Status().Description)
	for _, kv := range s.Attributes() {
		fmt.Fprintln(&b, kv.Key, kv.Value.Emit())
	}
	for _, e := range s.Events() {
		fmt.Fprintln(&b, e.Name)
		for _, kv := range e.Attributes {
			fmt.Fprintln(&b, kv.Key, kv.Value.Emit())
		}
	}
	return b.String()
}

// headers keeps the traceparent of each chat request a fake server got.
type headers struct {
	mu          sync.Mutex
	traceparent []string
}

func (h *headers) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat") || strings.HasSuffix(r.URL.Path, "/completions") {
			h.mu.Lock()
			h.traceparent = append(h.traceparent, r.Header.Get("traceparent"))
			h.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// TestARunIsOneTraceOfItsModelCallsAndToolCalls runs two steps against a
// fake Ollama: one invoke_agent span over two chat spans and an
// execute_tool span, with the conventions' attributes, and each chat
// request carries its chat span's traceparent to the server.
func TestARunIsOneTraceOfItsModelCallsAndToolCalls(t *testing.T) {
	srv := modeltest.NewOllama(twoSteps(t), modeltest.Model("qwen2.5:7b"))
	defer srv.Close()
	h := &headers{}
	srv.Config.Handler = h.wrap(srv.Config.Handler)
	m, err := model.New(context.Background(), model.Config{Provider: "ollama", BaseURL: srv.URL, Model: "qwen2.5:7b", Temperature: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	tp := newRecorded()
	ctx := InConversation(context.Background(), "c0ffee")
	if _, err := New(m, registry(t), WithTracerProvider(tp)).Run(ctx, "What is 17 + 25?"); err != nil {
		t.Fatal(err)
	}
	runs, chats, calls := tp.named("invoke_agent"), tp.named("chat"), tp.named("execute_tool")
	if len(runs) != 1 || len(chats) != 2 || len(calls) != 1 || len(tp.rec.Ended()) != 4 {
		t.Fatalf("%d invoke_agent, %d chat, %d execute_tool spans of %d; want 1, 2, 1 of 4", len(runs), len(chats), len(calls), len(tp.rec.Ended()))
	}
	run := runs[0]
	if run.Parent().IsValid() || run.Name() != "invoke_agent react-agent" || run.SpanKind() != trace.SpanKindInternal {
		t.Errorf("the run's span is %q (%v), parent %v; want the root, invoke_agent react-agent, internal", run.Name(), run.SpanKind(), run.Parent())
	}
	for _, s := range append(chats, calls...) {
		if s.Parent().SpanID() != run.SpanContext().SpanID() || s.SpanContext().TraceID() != run.SpanContext().TraceID() {
			t.Errorf("%s is not a child of the run's span", s.Name())
		}
	}
	want := map[string]map[attribute.Key]string{
		"run": {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "react-agent", "gen_ai.conversation.id": "c0ffee",
			"gen_ai.provider.name": "ollama", "gen_ai.request.model": "qwen2.5:7b", "gen_ai.response.model": "qwen2.5:7b",
			"gen_ai.usage.input_tokens": "200", "gen_ai.usage.output_tokens": "40", "react_agent.stop_reason": "final_answer",
			"react_agent.iterations": "2"},
		"chat": {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "ollama", "gen_ai.request.model": "qwen2.5:7b",
			"gen_ai.response.model": "qwen2.5:7b", "gen_ai.request.temperature": "0.2", "gen_ai.request.max_tokens": "4096",
			"server.address": "127.0.0.1", "gen_ai.usage.input_tokens": "100", "gen_ai.usage.output_tokens": "20",
			"gen_ai.response.finish_reasons": `["stop"]`, "gen_ai.conversation.id": "c0ffee", "react_agent.iteration": "1"},
		"tool": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add", "gen_ai.tool.call.id": "call_1",
			"gen_ai.tool.type": "function"},
	}
	for what, s := range map[string]sdktrace.ReadOnlySpan{"run": run, "chat": chats[0], "tool": calls[0]} {
		got := attrs(s)
		for k, v := range want[what] {
			if got[k].Emit() != v {
				t.Errorf("%s: %s = %q, want %q", s.Name(), k, got[k].Emit(), v)
			}
		}
		if s.Status().Code == codes.Error {
			t.Errorf("%s failed: %s", s.Name(), s.Status().Description)
		}
	}
	if chats[0].Name() != "chat qwen2.5:7b" || chats[0].SpanKind() != trace.SpanKindClient || calls[0].Name() != "execute_tool add" {
		t.Errorf("spans %q (%v) and %q", chats[0].Name(), chats[0].SpanKind(), calls[0].Name())
	}
	if p := attrs(chats[0])["server.port"].AsInt64(); p == 0 {
		t.Error("the chat span has no server.port")
	}
	if len(h.traceparent) != 2 {
		t.Fatalf("the server got %d chat requests, want 2", len(h.traceparent))
	}
	for i, got := range h.traceparent {
		sc := chats[i].SpanContext()
		if want := fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID()); got != want {
			t.Errorf("chat request %d carried traceparent %q, want its span's %q", i+1, got, want)
		}
	}
}

// TestAFailedAttemptIsASpanAndItsRetryAnEvent: a model call whose first
// attempt the server fails with a 503 is two chat spans, the first with
// error.type 503 and a retry event with its wait and reason.
func TestAFailedAttemptIsASpanAndItsRetryAnEvent(t *testing.T) {
	srv := modeltest.NewOpenAI([]string{final("4")}, modeltest.Fail(1, http.StatusServiceUnavailable))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	tp := newRecorded()
	if _, err := New(m, registry(t), WithTracerProvider(tp), fastRetries()).Run(context.Background(), "2+2?"); err != nil {
		t.Fatal(err)
	}
	chats := tp.named("chat")
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want one an attempt: 2", len(chats))
	}
	failed, retried := chats[0], chats[1]
	if failed.Status().Code != codes.Error || attrs(failed)["error.type"].AsString() != "503" || attrs(failed)["react_agent.attempt"].AsInt64() != 1 {
		t.Errorf("the failed attempt's span: status %v, %v", failed.Status(), failed.Attributes())
	}
	if len(failed.Events()) != 1 || failed.Events()[0].Name != "react_agent.retry" {
		t.Fatalf("the failed attempt's events are %v, want the retry", failed.Events())
	}
	ev := map[attribute.Key]attribute.Value{}
	for _, kv := range failed.Events()[0].Attributes {
		ev[kv.Key] = kv.Value
	}
	if ev["error.type"].AsString() != "503" || ev["react_agent.retry.wait_seconds"].AsFloat64() <= 0 || ev["react_agent.reason"].AsString() == "" {
		t.Errorf("the retry event says %v; want the error type, the wait and the reason", failed.Events()[0].Attributes)
	}
	if retried.Status().Code == codes.Error || attrs(retried)["react_agent.attempt"].AsInt64() != 2 {
		t.Errorf("the second attempt's span: status %v, %v", retried.Status(), retried.Attributes())
	}
	if !failed.EndTime().After(failed.StartTime()) || retried.StartTime().Before(failed.EndTime()) {
		t.Error("the failed attempt's span does not end before the next begins")
	}
}

// TestAReplyThatCannotBeReadIsAnEventOnItsChatSpan: a reply the parser
// cannot read is a parse_error event on its chat span, saying what kind
// of mistake, and the message it was given only with content.
func TestAReplyThatCannotBeReadIsAnEventOnItsChatSpan(t *testing.T) {
	for _, content := range []bool{false, true} {
		t.Run(fmt.Sprintf("content=%v", content), func(t *testing.T) {
			tp := newRecorded()
			m := fake.NewFakeLLM([]string{"Action: add\n", final("4")})
			if _, err := New(m, registry(t), WithTracerProvider(tp), WithSpanContent(content)).Run(context.Background(), "2+2?"); err != nil {
				t.Fatal(err)
			}
			chats := tp.named("chat")
			if len(chats) != 2 || len(chats[0].Events()) != 1 || chats[0].Events()[0].Name != "react_agent.parse_error" {
				t.Fatalf("%d chat spans, the first with the events %v; want the parse error on it", len(chats), chats[0].Events())
			}
			ev := chats[0].Events()[0]
			var typ, msg string
			for _, kv := range ev.Attributes {
				switch kv.Key {
				case "error.type":
					typ = kv.Value.AsString()
				case "react_agent.message":
					msg = kv.Value.AsString()
				}
			}
			if typ != "no_action_input" || (msg != "") != content {
				t.Errorf("the parse error's type is %q and its message %q", typ, msg)
			}
			if got := attrs(chats[0])["gen_ai.provider.name"].AsString(); got != "fake" {
				t.Errorf("a langchaingo model's provider is %q, want its package's name", got)
			}
		})
	}
}

// servedTool is a tool of a server of its own, as MCP's are.
type servedTool struct{ funcTool }

func (servedTool) Server() string { return "github" }

// TestToolSpansSayHowTheCallWent: a tool that failed, a call a hook
// refused and a tool of an MCP server.
func TestToolSpansSayHowTheCallWent(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		hooks Hooks
		want  map[attribute.Key]string
	}{
		{"a tool that fails", action("fail", `{"input": "x"}`), nil,
			map[attribute.Key]string{"error.type": "tool_error", "gen_ai.tool.type": "function"}},
		{"a call a hook refused", action("echo", `{"text": "x"}`), &steer{decision: func(*ToolCall) Decision { return Deny("not today") }},
			map[attribute.Key]string{"error.type": "denied"}},
		{"a tool of an MCP server", action("issues", `{"text": "x"}`), nil,
			map[attribute.Key]string{"gen_ai.tool.type": "extension", "react_agent.tool.server": "github", "mcp.method.name": "tools/call"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newRecorded()
			reg := registry(t, failTool(), echoTool(), servedTool{funcTool{name: "issues", schema: oneString("text"),
				fn: func(context.Context, map[string]any) (string, error) { return "none", nil }}})
			opts := []Option{WithTracerProvider(tp)}
			if tt.hooks != nil {
				opts = append(opts, WithHooks(tt.hooks))
			}
			if _, err := New(scripted(tt.reply, final("done")), reg, opts...).Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			calls := tp.named("execute_tool")
			if len(calls) != 1 {
				t.Fatalf("%d execute_tool spans, want 1", len(calls))
			}
			got := attrs(calls[0])
			for k, v := range tt.want {
				if got[k].Emit() != v {
					t.Errorf("%s = %q, want %q", k, got[k].Emit(), v)
				}
			}
			if _, failed := tt.want["error.type"]; failed != (calls[0].Status().Code == codes.Error) {
				t.Errorf("the span's status is %v", calls[0].Status())
			}
		})
	}
}

// TestContentIsInSpansOnlyWhenAskedAndRedacted runs a question that holds
// a secret against a server with a key and a password: without content,
// no span holds the question, the prompt or the tool's arguments; with
// it, they are there with the secret redacted; the key, the password and
// the secret are in no span either way.
func TestContentIsInSpansOnlyWhenAskedAndRedacted(t *testing.T) {
	const key, password, secret = "sk-test-key-0123456789abcdef", "hunter2-password", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	question := "Echo the token " + secret + " back, please"
	for _, content := range []bool{false, true} {
		t.Run(fmt.Sprintf("content=%v", content), func(t *testing.T) {
			srv := modeltest.NewOpenAI([]string{action("echo", `{"text": "`+secret+`"}`), final("it is " + secret)}, modeltest.APIKey(key))
			defer srv.Close()
			base := strings.Replace(srv.URL, "http://", "http://user:"+password+"@", 1)
			m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: base, Model: "m", APIKey: key})
			if err != nil {
				t.Fatal(err)
			}
			tp := newRecorded()
			a := New(m, registry(t, echoTool()), WithTracerProvider(tp), WithSpanContent(content), WithRedactor(redact.New(key, password)))
			if _, err := a.Run(context.Background(), question); err != nil {
				t.Fatal(err)
			}
			var all strings.Builder
			for _, s := range tp.rec.Ended() {
				all.WriteString(everything(s))
			}
			text := all.String()
			for _, never := range []string{key, password, secret, "Authorization", "Bearer"} {
				if strings.Contains(text, never) {
					t.Errorf("a span holds %q:\n%s", never, text)
				}
			}
			for _, what := range []string{"Echo the token", "You are a careful assistant", `"text":"`, "gen_ai.input.messages",
				"gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", redact.Redacted} {
				if strings.Contains(text, what) != content {
					t.Errorf("with content %v, the spans hold %q: %v", content, what, !content)
				}
			}
		})
	}
}

// TestARunInsideAServiceSpanIsItsChild: a run whose context holds a
// span, as a service's request handler's does, is part of its trace.
func TestARunInsideAServiceSpanIsItsChild(t *testing.T) {
	tp := newRecorded()
	ctx, parent := tp.Tracer("service").Start(context.Background(), "handle request")
	if _, err := New(scripted(final("4")), registry(t), WithTracerProvider(tp)).Run(ctx, "2+2?"); err != nil {
		t.Fatal(err)
	}
	parent.End()
	run := tp.named("invoke_agent")[0]
	if run.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("the run's parent is %v, want the service's span %v", run.Parent().SpanID(), parent.SpanContext().SpanID())
	}
}

// TestTheGlobalTracerProviderIsTheDefault: an agent made without
// WithTracerProvider makes its spans with the one the program set, even
// when set after the agent was made.
func TestTheGlobalTracerProviderIsTheDefault(t *testing.T) {
	before := otel.GetTracerProvider()
	defer otel.SetTracerProvider(before)
	a := New(scripted(final("4")), registry(t))
	tp := newRecorded()
	otel.SetTracerProvider(tp)
	if _, err := a.Run(context.Background(), "2+2?"); err != nil {
		t.Fatal(err)
	}
	if len(tp.named("invoke_agent")) != 1 || len(tp.named("chat")) != 1 {
		t.Errorf("the global provider got %d spans, want the run's and its call's", len(tp.rec.Ended()))
	}
}

// TestAFailedRunSaysWhy: a run against a server that cannot be reached
// ends its span with the error's type and the server's words.
func TestAFailedRunSaysWhy(t *testing.T) {
	srv := modeltest.NewOllama(nil)
	srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "ollama", BaseURL: srv.URL, Model: "m", NumCtx: 2048})
	if err != nil {
		t.Fatal(err)
	}
	tp := newRecorded()
	_, err = New(m, registry(t), WithTracerProvider(tp), WithRetries(0, 0, 0)).Run(context.Background(), "2+2?")
	if err == nil {
		t.Fatal("the run did not fail")
	}
	run := tp.named("invoke_agent")[0]
	if run.Status().Code != codes.Error || attrs(run)["error.type"].AsString() != "unreachable" || !strings.Contains(run.Status().Description, "refused") {
		t.Errorf("the run's span: status %v, error.type %q", run.Status(), attrs(run)["error.type"].AsString())
	}
	var me *model.Error
	if !errors.As(err, &me) {
		t.Errorf("the run's error %v is no model error", err)
	}
}
