package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// The tests against real servers: the behaviour the recorded responses of
// testdata/model show, from llama-server and Ollama themselves (skipped
// where they are not installed, as package realserver says).

// words is a question of n words, a few tokens each.
func words(n int) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "Answer the question."),
		llms.TextParts(llms.ChatMessageTypeHuman, strings.Repeat("word ", n))}
}

func streamed() llms.CallOption {
	return llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })
}

// boundCall makes a streamed call of msgs to m, bound by c, telling notices
// to notice when not nil.
func boundCall(m llms.Model, msgs []llms.MessageContent, c *Constraint, notice func(string)) (*Reply, error) {
	return m.(Generator).Generate(context.Background(), Request{Messages: msgs, Constraint: c, OnNotice: notice,
		OnText: func(context.Context, []byte) error { return nil }})
}

func TestRealLlamaServer(t *testing.T) {
	t.Run("taken for Ollama, it is told at once to be no Ollama, and which provider fits", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Spell("Final Answer: 42"))
		start := time.Now()
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		for _, stream := range []bool{true, false} {
			req := Request{Messages: words(3)}
			if stream {
				req.OnText = func(context.Context, []byte) error { return nil }
			}
			_, err = m.(Generator).Generate(context.Background(), req)
			var me *Error
			if !errors.As(err, &me) || !errors.Is(err, ErrWrongServer) || me.Temporary || me.Fix != SettingProvider || me.Fitting != "llamacpp" {
				t.Fatalf("streamed %v: error %v (%+v)", stream, err, me)
			}
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("it took %s to tell", took)
		}
		// A prompt longer than its context is refused as llama-server
		// refuses one, not as Ollama does.
		small := realserver.LlamaServer(t, realserver.Context(256), realserver.Spell("Final Answer: 42"))
		m, err = New(context.Background(), Config{Provider: "ollama", BaseURL: small.URL, Model: small.Model})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.(Generator).Generate(context.Background(), Request{Messages: words(1000)})
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrWrongServer) || errors.Is(err, ErrContextOverflow) || me.Fitting != "llamacpp" {
			t.Errorf("a prompt too long: error %v (%+v)", err, me)
		}
	})

	t.Run("a prompt over the context is an overflow with both sizes", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Context(512))
		m, err := New(context.Background(), Config{Provider: "llamacpp", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = boundCall(m, words(1000), bound, nil)
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.Temporary || me.ContextTokens != 512 || me.PromptTokens <= 512 {
			t.Fatalf("error %v (%+v)", err, me)
		}
		if refused := m.(Constrainer).ConstraintRefused(); refused != nil {
			t.Errorf("the overflow was taken for a refused grammar: %v", refused)
		}
	})
	t.Run("a prompt over the context says how far -c can go", func(t *testing.T) {
		for _, tt := range []struct {
			trained, c int
			hint       string
		}{
			{8192, 512, "start llama-server with a larger context (its -c), up to the 8192 tokens the model was trained for"},
			{512, 512, "512 tokens is the context the model was trained for"},
		} {
			srv := realserver.LlamaServer(t, realserver.Context(tt.c), realserver.Model(gguf.Model{Spell: "Final Answer: 42", Context: tt.trained, Seed: 1}))
			m, err := New(context.Background(), Config{Provider: "llamacpp", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if w := WindowOf(context.Background(), m); w.Tokens != tt.c || w.Fix != NoSetting || !strings.Contains(w.Hint+w.Detail, tt.hint) {
				t.Errorf("window %+v, want %d tokens, no setting, and %q", w, tt.c, tt.hint)
			}
			_, err = m.GenerateContent(context.Background(), words(1000), streamed())
			var me *Error
			if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.Fix != NoSetting || !strings.Contains(me.Error(), tt.hint) {
				t.Errorf("error %v (%+v), want the hint %q", err, me, tt.hint)
			}
		}
	})
	t.Run("a reply that fills the context is said to, not taken for one cut at its bound", func(t *testing.T) {
		never := map[int]float32{gguf.EOS: -40}
		srv := realserver.LlamaServer(t, realserver.Context(256), realserver.Model(gguf.Model{Prior: never, Context: 8192, Seed: 1}))
		m, err := New(context.Background(), Config{Provider: "llamacpp", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := m.GenerateContent(context.Background(), words(3), streamed())
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextFull) || me.ContextTokens != 256 || me.PromptTokens == 0 ||
			!strings.Contains(me.Hint, "its -c") || strings.Contains(err.Error(), "token limit") {
			t.Fatalf("error %v (%+v), reply %v", err, me, resp)
		}
	})
	t.Run("bytes that are no UTF-8 end the stream with the server's error", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Model(gguf.Model{Spell: "Final Answer: caf\xff ok", AllBytes: true, Seed: 1}))
		m, err := New(context.Background(), Config{Provider: "llamacpp", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), words(3), streamed())
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrNotUTF8) || me.Temporary || !strings.Contains(err.Error(), "Failed to parse input") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a template without tools refuses them before the call", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.NoTools(), realserver.Spell("Final Answer: 42"))
		for _, cfg := range []Config{{Provider: "llamacpp", BaseURL: srv.URL}, {Provider: "openai", BaseURL: srv.URL + "/v1"}} {
			m, err := New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.GenerateContent(context.Background(), words(3),
				llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "echo", Parameters: map[string]any{"type": "object"}}}}))
			if !errors.Is(err, ErrNoToolCalls) {
				t.Errorf("%s: error %v", cfg.Provider, err)
			}
		}
	})
	t.Run("the openai provider binds it with the grammar, and a cut reply says so", func(t *testing.T) {
		srv := realserver.LlamaServer(t, realserver.Spell("Action: calc\nAction Input: {\"x\": 1}"))
		m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", MaxTokens: 3})
		if err != nil {
			t.Fatal(err)
		}
		if mode, _ := m.(Constrainer).Constraining(context.Background()); mode != ModeGrammar {
			t.Fatalf("mode %q", mode)
		}
		c := &Constraint{Grammar: "root ::= \"Action: \" [a-z]+\n"}
		got, err := boundCall(m, words(3), c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != "Action: calc"[:len(got.Text)] || got.Finish != FinishLength {
			t.Errorf("reply %q, stop reason %q (%q)", got.Text, got.Finish, got.FinishWord)
		}
	})
}

// chats counts the calls of /api/chat in the log of a real Ollama, once
// the count has not changed for a moment: Ollama writes a call's line
// after its reply.
func chats(srv *realserver.Server) int {
	n := -1
	for i := 0; i < 20; i++ {
		m := strings.Count(srv.Log(), `"/api/chat"`)
		if m == n {
			return n
		}
		n = m
		time.Sleep(150 * time.Millisecond)
	}
	return n
}

func TestRealOllama(t *testing.T) {
	t.Run("a prompt longer than the window grows it once, to what it needs, and says so", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Context(32768), realserver.Spell("Final Answer: 42"))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		// The test model's tokens are bytes, not the 3 bytes a token the
		// client takes before the server has counted a prompt: a first
		// call lets it count one.
		if _, err := m.GenerateContent(context.Background(), words(100), streamed()); err != nil {
			t.Fatal(err)
		}
		before := chats(srv)
		var notices []string
		resp, err := boundCall(m, words(1500), nil, func(s string) { notices = append(notices, s) })
		if err != nil {
			t.Fatal(err)
		}
		if u := resp.Usage; u.PromptTokens <= DefaultNumCtx || strings.Contains(srv.Log(), "truncating input prompt") {
			t.Errorf("the prompt was %d tokens; the server's log says it cut it: %v", u.PromptTokens, strings.Contains(srv.Log(), "truncating input prompt"))
		}
		if len(notices) != 1 || !strings.Contains(notices[0], "asking for 16384") || !strings.Contains(notices[0], "loads the model again") ||
			!strings.Contains(notices[0], "keeps it loaded") {
			t.Errorf("notices %q, want one that the window grows to 16384, that Ollama loads the model again and keeps it loaded", notices)
		}
		if n := chats(srv) - before; n != 1 {
			t.Errorf("%d calls of /api/chat, want 1: the window grew before the call, to what the prompt needs", n)
		}
	})
	t.Run("a prompt that cannot fit the model is refused at once, with the sizes", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Context(2048), realserver.Spell("Final Answer: 42"))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		if w := m.(interface{ ContextWindow() int }).ContextWindow(); w != 2048 {
			t.Errorf("the context window is %d, want the 2048 the model takes", w)
		}
		before := chats(srv)
		_, err = m.GenerateContent(context.Background(), words(3000), streamed())
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.PromptTokens <= 2048 || me.ContextTokens != 2048 ||
			strings.Contains(srv.Log(), "truncating input prompt") {
			t.Fatalf("error %v; the log says the prompt was cut: %v", err, strings.Contains(srv.Log(), "truncating input prompt"))
		}
		if n := chats(srv) - before; n > 1 {
			t.Errorf("%d calls of /api/chat, want at most 1", n)
		}
	})
	t.Run("a window asked for is the largest", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Context(8192), realserver.Spell("Final Answer: 42"))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model, NumCtx: 1024})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), words(1000), streamed())
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.Fix != SettingNumCtx || strings.Contains(srv.Log(), "num_ctx=2048") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a reply that fills the window is said to, not taken for one cut at its bound", func(t *testing.T) {
		never := map[int]float32{gguf.EOS: -40}
		srv := realserver.Ollama(t, realserver.Context(1024), realserver.Model(gguf.Model{Prior: never, Seed: 1}))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), words(3), streamed())
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextFull) || me.ContextTokens != 1024 || !strings.Contains(me.Error(), "1024 tokens is the longest") {
			t.Fatalf("error %v", err)
		}
		if strings.Contains(srv.Log(), "context limit hit - shifting") {
			t.Error("Ollama shifted the window")
		}
	})
	t.Run("its OpenAI endpoint's cut is found by the window it loaded, under the openai provider", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Context(2048), realserver.Spell("Final Answer: 42"))
		m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range [][]llms.CallOption{{streamed()}, nil} {
			_, err = m.GenerateContent(context.Background(), words(1000), opts...)
			var me *Error
			if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.ContextTokens != 2048 || !strings.Contains(me.Hint, "OLLAMA_CONTEXT_LENGTH") {
				t.Fatalf("streamed %v: error %v", len(opts) > 0, err)
			}
		}
	})
	t.Run("a reply that filled the window its OpenAI endpoint shifted is found by its usage", func(t *testing.T) {
		never := map[int]float32{gguf.EOS: -40}
		srv := realserver.Ollama(t, realserver.Context(512), realserver.Model(gguf.Model{Prior: never, Seed: 1}))
		m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: srv.Model, MaxTokens: 600})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), words(3), streamed())
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextFull) || me.ContextTokens != 512 || !strings.Contains(me.Hint, "OLLAMA_CONTEXT_LENGTH") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a model that writes one token over and over is stopped, and the error says what is known and where to look", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Model(gguf.Model{Prior: map[int]float32{gguf.ByteToken('a'): 20}, Seed: 1}))
		for _, v1 := range []bool{false, true} {
			cfg := Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model}
			if v1 {
				cfg.Provider, cfg.BaseURL = "openai", srv.URL+"/v1"
			}
			m, err := New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range [][]llms.CallOption{{streamed()}, nil} {
				resp, err := m.GenerateContent(context.Background(), words(3), opts...)
				var me *Error
				if !errors.Is(err, ErrStreamCut) || !errors.As(err, &me) || me.Fix != NoSetting || !strings.Contains(err.Error(), "before the server finished it") ||
					!strings.Contains(err.Error(), "runner") || !strings.Contains(err.Error(), "server's log") {
					t.Errorf("through /v1 %v, streamed %v: error %v, reply %v", v1, len(opts) > 0, err, resp)
				}
			}
		}
	})
	t.Run("a runner that dies mid-reply is the server's error, worth a try again, not a reply", func(t *testing.T) {
		// Of the two causes of a reply Ollama cuts that ErrStreamCut
		// names, a runner killed while it writes is said: Ollama ends
		// the stream with its error.
		srv := realserver.Ollama(t, realserver.Model(gguf.Model{Prior: map[int]float32{gguf.EOS: -40}, Seed: 1}))
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model, MaxTokens: 100000})
		if err != nil {
			t.Fatal(err)
		}
		killed := 0
		req := Request{Messages: words(3), OnText: func(context.Context, []byte) error {
			if killed == 0 {
				killed = killRunners(srv.Dir)
			}
			return nil
		}}
		r, err := m.(Generator).Generate(context.Background(), req)
		var me *Error
		if killed == 0 || r != nil || !errors.As(err, &me) || !me.Temporary || me.Retry != RetryServerError || !strings.Contains(err.Error(), "ended the reply with an error") {
			t.Fatalf("%d runners killed: reply %v, error %v", killed, r, err)
		}
	})
	t.Run("a schema with $refs and a loop of definitions binds the reply", func(t *testing.T) {
		srv := realserver.Ollama(t, realserver.Spell(`{"thought": "t", "action": "expr", "action_input": {"e": "x"}}`))
		schema := `{"anyOf":[{"type":"object","properties":{"thought":{"type":"string"},"action":{"type":"string","enum":["expr"]},` +
			`"action_input":{"$ref":"#/$defs/expr"}},"required":["thought","action","action_input"]}],"$defs":{"expr":{"type":"object",` +
			`"properties":{"e":{"$ref":"#/$defs/expr/$defs/Expr"}},"required":["e"],"$defs":{"Expr":{"anyOf":[{"$ref":"#/$defs/expr/$defs/Term"},` +
			`{"type":"string"}]},"Term":{"anyOf":[{},{"type":"number"}]}}}}}`
		m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: srv.URL, Model: srv.Model})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := boundCall(m, words(3), &Constraint{Schema: json.RawMessage(schema)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if refused := m.(Constrainer).ConstraintRefused(); refused != nil || !strings.HasPrefix(resp.Text, "{") {
			t.Errorf("reply %q, refused %v", resp.Text, refused)
		}
	})
}

// TestIdentifyRealServers holds Identify, and the fakes it is tested
// against, to what the real servers answer: each is told by its own
// endpoints, and its OpenAI-compatible API by /v1; and the model each
// says it served is the one it loaded.
func TestIdentifyRealServers(t *testing.T) {
	llama := realserver.LlamaServer(t, realserver.Name("tiny-llama"), realserver.Spell("Final Answer: 42"))
	ollama := realserver.Ollama(t, realserver.Name("tiny"), realserver.Spell("Final Answer: 42"))
	for _, tt := range []struct {
		url              string
		provider, server string
	}{
		{llama.URL, "llamacpp", ""},
		{llama.URL + "/v1", "openai", ServerLlamaCpp},
		{ollama.URL, "ollama", ""},
		{ollama.URL + "/v1", "openai", ServerOllama},
	} {
		got, err := Identify(context.Background(), Config{BaseURL: tt.url})
		if err != nil || got.Provider != tt.provider || got.Server != tt.server {
			t.Errorf("%s: provider %q, server %q, error %v; want %q, %q", tt.url, got.Provider, got.Server, err, tt.provider, tt.server)
			continue
		}
		got.Model = "tiny"
		m, err := New(context.Background(), got)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := boundCall(m, words(3), nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		want := "tiny"
		if strings.HasPrefix(tt.url, llama.URL) {
			want = "tiny-llama" // whatever the name asked for
		}
		if served := resp.Model; served != want {
			t.Errorf("%s: the server says it served %q, want %q", tt.url, served, want)
		}
	}
}

// killRunners kills the runners of the Ollama whose folder is dir (they
// have it in their environment), and returns how many.
func killRunners(dir string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmd, _ := os.ReadFile(p + "/cmdline")
		env, _ := os.ReadFile(p + "/environ")
		if bytes.Contains(cmd, []byte("\x00runner\x00")) && bytes.Contains(env, []byte(dir)) {
			if pid, err := strconv.Atoi(filepath.Base(p)); err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
	}
	return n
}
