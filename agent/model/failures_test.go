package model

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// bound is a constraint for the tests, in every form.
var bound = &Constraint{Grammar: "root ::= \"x\"\n", Schema: []byte(`{"type":"object"}`)}

func TestAPromptLargerThanTheContextIsAnOverflow(t *testing.T) {
	tests := []struct {
		name, provider, path, route, file string
		prompt, context                   int
		hint                              string
	}{
		// llama-server -c 256, a prompt of 2101 tokens.
		{"llama.cpp's /completion", "llamacpp", "", "POST /completion", "llamacpp-b8355/completion-overflow", 2101, 256,
			"the prompt is 2101 tokens, more than the context window of 256: start llama-server with a larger context (its -c)"},
		{"llama.cpp's /v1", "openai", "/v1", "POST /v1/chat/completions", "llamacpp-b8355/v1-overflow", 2124, 256,
			"the prompt is 2124 tokens, more than the context window of 256: give the server's model a larger context"},
		// Ollama asked not to truncate ("truncate": false), num_ctx 1024.
		{"Ollama's /api/chat", "ollama", "", "POST /api/chat", "ollama-v0.24.0/chat-toolong", 0, 8192,
			"the prompt is larger than the context window of 8192 tokens: ask for a larger context window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routes := llamacppRoutes("completion-overflow")
			routes[tt.route] = tt.file
			srv := serveRecorded(t, routes)
			m, err := New(context.Background(), Config{Provider: tt.provider, BaseURL: srv.URL + tt.path, Model: "tiny", IdleTimeout: quick})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.(Generator).Generate(context.Background(), Request{Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
				OnText: func(context.Context, []byte) error { return nil }, Constraint: bound})
			var me *Error
			if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.Temporary {
				t.Fatalf("error %v: want a permanent ErrContextOverflow", err)
			}
			if me.PromptTokens != tt.prompt || me.ContextTokens != tt.context || !strings.Contains(me.Error(), tt.hint) {
				t.Errorf("prompt %d, context %d, error %q", me.PromptTokens, me.ContextTokens, me.Error())
			}
			if n := len(srv.requests(tt.route)); n != 1 {
				t.Errorf("the request was sent %d times: an overflow is no refused constraint", n)
			}
			if refused := m.(Constrainer).ConstraintRefused(); refused != nil {
				t.Errorf("the constraint is said to be refused: %v", refused)
			}
		})
	}
}

func TestAnErrorInTheMiddleOfAStreamIsTheServersError(t *testing.T) {
	// llama-server -c 256 with a model that writes "ok " and then bytes
	// that are no UTF-8: the stream begins, then carries
	// data: {"error":{"code":500,"message":"Failed to parse input at pos 0: …"}}.
	tests := []struct{ name, provider, path, route, file string }{
		{"llama.cpp's /completion", "llamacpp", "", "POST /completion", "llamacpp-b8355/completion-stream-badutf8"},
		{"llama.cpp's /v1", "openai", "/v1", "POST /v1/chat/completions", "llamacpp-b8355/v1-stream-badutf8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routes := llamacppRoutes("completion-stream-badutf8")
			routes[tt.route] = tt.file
			srv := serveRecorded(t, routes)
			_, err := ask(t, Config{Provider: tt.provider, BaseURL: srv.URL + tt.path, Model: "tiny", IdleTimeout: quick})
			var me *Error
			if !errors.As(err, &me) || !errors.Is(err, ErrNotUTF8) || me.Temporary || errors.Is(err, ErrIncomplete) ||
				!strings.Contains(err.Error(), "Failed to parse input at pos 0") {
				t.Fatalf("error %v (%#v): want the server's error, not transient", err, me)
			}
		})
	}
}

func TestTextThatIsNoUTF8IsNotTriedAgain(t *testing.T) {
	// The same model, not streamed: HTTP 500.
	srv := serveRecorded(t, map[string]string{"POST /v1/chat/completions": "llamacpp-b8355/v1-badutf8"})
	m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "tiny", IdleTimeout: quick})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	var me *Error
	if !errors.As(err, &me) || !errors.Is(err, ErrNotUTF8) || me.Temporary || me.StatusCode != 500 {
		t.Fatalf("error %v: want a permanent ErrNotUTF8", err)
	}
}

func TestAWholeReplyToAStreamedRequestIsReadAsOne(t *testing.T) {
	tests := []struct {
		name, provider, path, route, file, want string
	}{
		{"llama.cpp's /completion", "llamacpp", "", "POST /completion", "llamacpp-b8355/completion-nonstream-limit", "Thoue"},
		{"llama.cpp's /v1", "openai", "/v1", "POST /v1/chat/completions", "llamacpp-b8355/v1-nonstream-limit", "Thoue"},
		{"Ollama's /api/chat", "ollama", "", "POST /api/chat", "ollama-v0.24.0/chat-nonstream", "Thoug"},
		{"Ollama's /v1", "openai", "/v1", "POST /v1/chat/completions", "ollama-v0.24.0/v1-nonstream", "Thoug"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routes := llamacppRoutes("completion-nonstream-limit")
			routes[tt.route] = tt.file
			srv := serveRecorded(t, routes)
			m, err := New(context.Background(), Config{Provider: tt.provider, BaseURL: srv.URL + tt.path, Model: "tiny", IdleTimeout: quick})
			if err != nil {
				t.Fatal(err)
			}
			var streamed strings.Builder
			resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
				llms.WithStreamingFunc(func(_ context.Context, b []byte) error { streamed.Write(b); return nil }))
			if err != nil {
				t.Fatal(err)
			}
			c := resp.Choices[0]
			if c.Content != tt.want || streamed.String() != tt.want || !AtTokenLimit(c.StopReason) {
				t.Errorf("reply %q, streamed %q, stop reason %q; want %q, cut at the token limit", c.Content, streamed.String(), c.StopReason, tt.want)
			}
			if !strings.Contains(srv.requests(tt.route)[0], `"stream":true`) {
				t.Errorf("the request did not ask for a stream: %s", srv.requests(tt.route)[0])
			}
		})
	}
}

func TestASchemaOllamaCannotMakeAGrammarOfIsARefusedConstraint(t *testing.T) {
	// Ollama's 500 "invalid JSON schema in format", then the reply to the
	// request without it.
	srv := serveRecorded(t, map[string]string{"POST /api/chat": "ollama-v0.24.0/chat-badschema,ollama-v0.24.0/chat-limit"})
	m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: "tiny", IdleTimeout: quick})
	if err != nil {
		t.Fatal(err)
	}
	if mode, _ := m.(Constrainer).Constraining(context.Background()); mode != ModeSchema {
		t.Fatalf("mode %q", mode)
	}
	req := Request{Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
		OnText: func(context.Context, []byte) error { return nil }, Constraint: bound}
	_, err = m.(Generator).Generate(context.Background(), req)
	var me *Error
	if !errors.As(err, &me) || !me.Temporary || me.Retry != RetryConstraintDropped || m.(Constrainer).ConstraintRefused() != nil {
		t.Fatalf("the first call's error is %#v: want one that says to make the call again at once, without the constraint", err)
	}
	if _, err = m.(Generator).Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests("POST /api/chat")
	if len(reqs) != 2 || !strings.Contains(reqs[0], `"format":{"type":"object"}`) || strings.Contains(reqs[1], `"format":{`) {
		t.Errorf("requests %q: want one with the schema, then one without", reqs)
	}
	if refused := m.(Constrainer).ConstraintRefused(); refused == nil || !strings.Contains(refused.Error(), "invalid JSON schema in format") {
		t.Errorf("the refusal is %v", refused)
	}
	if e := Classify(context.Background(), newStatusError(500, []byte(`{"error":"invalid JSON schema in format"}`), "")); e.Temporary {
		t.Error("Ollama's 500 for a schema it cannot take is taken as transient")
	}
}

func TestTheOpenAIProviderBindsALlamaServerWithTheGrammar(t *testing.T) {
	c := &Constraint{Grammar: "root ::= reply\n", ThinkingGrammar: "root ::= think-0\n", Schema: []byte(`{"type":"object"}`)}
	for _, tt := range []struct{ template, want string }{
		{"apply-template", c.Grammar},               // "…<|assistant|>"
		{"apply-template-think", c.ThinkingGrammar}, // "…<|assistant|>\n<think>"
	} {
		t.Run(tt.template, func(t *testing.T) {
			srv := serveRecorded(t, map[string]string{
				"GET /v1/models":            "llamacpp-b8355/v1-models", // owned_by llamacpp
				"POST /apply-template":      "llamacpp-b8355/" + tt.template,
				"POST /v1/chat/completions": "llamacpp-b8355/v1-stream-grammar-action",
			})
			m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", IdleTimeout: quick})
			if err != nil {
				t.Fatal(err)
			}
			if mode, how := m.(Constrainer).Constraining(context.Background()); mode != ModeGrammar || !strings.Contains(how, "/v1/chat/completions") {
				t.Fatalf("mode %q, %q", mode, how)
			}
			_, err = m.(Generator).Generate(context.Background(), Request{Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
				OnText: func(context.Context, []byte) error { return nil }, Constraint: c})
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			json.Unmarshal([]byte(srv.requests("POST /v1/chat/completions")[0]), &body)
			if body["grammar"] != tt.want || body["response_format"] != nil {
				t.Errorf("the request binds with grammar %q, response_format %v", body["grammar"], body["response_format"])
			}
		})
	}
}

func TestAWholeReplyIsReadAsAStreamAlsoWhenAnOptionAsksForOne(t *testing.T) {
	// -o stream=false: the server is asked for a whole reply, which the
	// client reads as the stream it asked for.
	srv := serveRecorded(t, llamacppRoutes("completion-nonstream-limit"))
	m, err := New(context.Background(), Config{Provider: "llamacpp", BaseURL: srv.URL, IdleTimeout: quick, Options: map[string]any{"stream": false}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ask2(m)
	if err != nil || resp.Choices[0].Content != "Thoue" {
		t.Fatalf("reply %v, error %v", resp, err)
	}
	if !strings.Contains(srv.requests("POST /completion")[0], `"stream":false`) {
		t.Errorf("the option was not sent: %s", srv.requests("POST /completion")[0])
	}
}
