package model_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestBrokenServersEndInBoundedTimeAndMemory runs every misbehaving server
// against both clients: each call ends soon, with an error that says what
// happened, and none is taken as an answer.
func TestBrokenServersEndInBoundedTimeAndMemory(t *testing.T) {
	reply := "Thought: I know.\nFinal Answer: 42, and a few more words to cut in half"
	tests := []struct {
		name    string
		opt     modeltest.Option
		want    error
		streams []bool // the client modes it applies to
	}{
		{"a JSON body that never ends", modeltest.Misbehave(modeltest.EndlessBody), model.ErrReplyTooLarge, []bool{false}},
		{"a stream that never ends", modeltest.Misbehave(modeltest.EndlessStream), model.ErrReplyTooLarge, []bool{true}},
		{"a server that hangs before its headers", modeltest.Hang(), model.ErrIdle, []bool{false, true}},
		{"a server that hangs after its headers", modeltest.Misbehave(modeltest.HangAfterHeaders), model.ErrIdle, []bool{false, true}},
		{"a stream cut off without its end", modeltest.Misbehave(modeltest.TruncatedStream), model.ErrIncomplete, []bool{true}},
		{"a stream ended as Ollama ends a model that repeats itself", modeltest.Misbehave(modeltest.RepeatLimit), model.ErrIncomplete, []bool{true}},
		{"a connection dropped mid-reply", modeltest.Misbehave(modeltest.DroppedConnection), model.ErrIncomplete, []bool{true}},
	}
	servers := map[string]func([]string, ...modeltest.Option) *modeltest.Server{
		"ollama": modeltest.NewOllama, "openai": modeltest.NewOpenAI,
	}
	for provider, newServer := range servers {
		for _, tt := range tests {
			for _, stream := range tt.streams {
				name := provider + ": " + tt.name
				if stream {
					name += ", streamed"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					s := newServer([]string{reply}, tt.opt)
					defer s.Close()
					// Only the cases that wait for ErrIdle have a short idle
					// time: a busy machine may pause a stream for a second.
					idle := time.Minute
					if tt.want == model.ErrIdle {
						idle = time.Second
					}
					m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: s.URL, Model: "m",
						APIKey: "k", MaxReplyBytes: 256 << 10, IdleTimeout: idle})
					if err != nil {
						t.Fatal(err)
					}
					var opts []llms.CallOption
					if stream {
						opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
					}
					var before runtime.MemStats
					runtime.ReadMemStats(&before)
					start := time.Now()
					resp, err := m.GenerateContent(context.Background(),
						[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}, opts...)
					if took := time.Since(start); took > 20*time.Second {
						t.Errorf("the call took %s", took)
					}
					if !errors.Is(err, tt.want) {
						content := ""
						if resp != nil && len(resp.Choices) > 0 {
							content = resp.Choices[0].Content
						}
						t.Fatalf("error = %v (content %.40q), want %v", err, content, tt.want)
					}
					var me *model.Error
					if !errors.As(err, &me) {
						t.Errorf("error %T is not a *model.Error", err)
					} else if temporary := !errors.Is(err, model.ErrReplyTooLarge); me.Temporary != temporary {
						t.Errorf("Temporary = %v, want %v", me.Temporary, temporary)
					}
					var after runtime.MemStats
					runtime.ReadMemStats(&after)
					if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
						t.Errorf("the heap grew by %d MB", grew>>20)
					}
				})
			}
		}
	}
}

// TestALongLineIsReadWithinTheBounds checks that a reply streamed as one
// line of nearly a megabyte is read like any other: its text cut where it
// passes what the reply's bound on tokens can hold, whole with no bound,
// and an error past Config.MaxReplyBytes; never the empty reply or the
// bare "token too long" that langchaingo's clients made of a line longer
// than they read (512,000 bytes on Ollama, 64 KiB on OpenAI's API). A line
// past model.MaxLineBytes is an error that names the bound, not retried:
// what help safety and help limits say.
func TestALongLineIsReadWithinTheBounds(t *testing.T) {
	const text = "Final Answer: x"
	long := text + strings.Repeat(" ", model.MaxLineBytes-4<<10)
	servers := map[string]func([]string, ...modeltest.Option) *modeltest.Server{
		"ollama": modeltest.NewOllama, "openai": modeltest.NewOpenAI,
	}
	tests := []struct {
		name      string
		line      modeltest.Misbehaviour
		maxTokens int
		maxReply  int64
		want      string // the reply's text, when there is one
		cut       bool
		err       error
	}{
		{"cut at what the bound on tokens holds", modeltest.LongLine, 0, 0, long[:model.DefaultMaxTokens*128], true, nil},
		{"whole without a bound on tokens", modeltest.LongLine, -1, 0, long, false, nil},
		{"an error past the bound on bytes", modeltest.LongLine, -1, 512 << 10, "", false, model.ErrReplyTooLarge},
		{"an error past the bound on a line", modeltest.HugeLine, -1, 0, "", false, model.ErrLineTooLong},
	}
	for provider, newServer := range servers {
		for _, tt := range tests {
			t.Run(provider+": "+tt.name, func(t *testing.T) {
				s := newServer([]string{text}, modeltest.Misbehave(tt.line))
				defer s.Close()
				m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: s.URL, Model: "m", APIKey: "k",
					MaxTokens: tt.maxTokens, MaxReplyBytes: tt.maxReply})
				if err != nil {
					t.Fatal(err)
				}
				var streamed strings.Builder
				resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
					llms.WithStreamingFunc(func(_ context.Context, b []byte) error { streamed.Write(b); return nil }))
				if tt.err != nil {
					var me *model.Error
					if !errors.Is(err, tt.err) || !errors.As(err, &me) || me.Temporary {
						t.Fatalf("error = %v, want %v, not to be retried", err, tt.err)
					}
					if tt.err == model.ErrLineTooLong && !strings.Contains(err.Error(), "1 MiB") {
						t.Errorf("error = %v, want one that names the bound, 1 MiB", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				c := resp.Choices[0]
				if c.Content != tt.want || streamed.String() != tt.want || model.AtTokenLimit(c.StopReason) != tt.cut {
					t.Errorf("reply of %d bytes (%d streamed), stop reason %q; want %d bytes, cut %v",
						len(c.Content), streamed.Len(), c.StopReason, len(tt.want), tt.cut)
				}
			})
		}
	}
}

// TestAReplyOllamaCutSaysSoAndWhereToLook checks that a reply Ollama
// ended with neither its done message nor an error, as it does when the
// model writes one token more than 30 times in a row and when its runner
// fails, is an error that says what is known, on its own API and on its
// OpenAI-compatible one, streamed or not: the reply was cut before the
// server finished it, for one of those two causes, which the server's log
// tells apart. It is worth a try again, and no setting is to blame: not
// the temperature, which it once said to raise.
func TestAReplyOllamaCutSaysSoAndWhereToLook(t *testing.T) {
	for _, tt := range []struct {
		name     string
		v1       bool // through Ollama's /v1, under the openai provider, which knows it by its replies
		streamed bool
	}{
		{"streamed", false, true},
		{"whole", false, false},
		{"streamed through its OpenAI-compatible API", true, true},
		{"whole through its OpenAI-compatible API", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewOllama([]string{"Final Answer: x"}, modeltest.Repeat(), modeltest.Misbehave(modeltest.RepeatLimit))
			defer s.Close()
			cfg := model.Config{BaseURL: s.URL, Model: "m"}
			if tt.v1 {
				cfg.Provider, cfg.BaseURL = "openai", s.URL+"/v1"
			}
			m, err := model.New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var opts []llms.CallOption
			if tt.streamed {
				opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			}
			resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}, opts...)
			var me *model.Error
			if !errors.Is(err, model.ErrStreamCut) || !errors.Is(err, model.ErrIncomplete) || !errors.As(err, &me) {
				content := ""
				if resp != nil && len(resp.Choices) > 0 {
					content = resp.Choices[0].Content
				}
				t.Fatalf("error = %v (reply %q), want ErrStreamCut", err, content)
			}
			msg := err.Error()
			for _, want := range []string{"before the server finished it", "more than 30 times in a row", "runner", "fails", "server's log"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the message does not say %q: %s", want, msg)
				}
			}
			if !me.Temporary || me.Retry != model.RetryIncomplete || me.Fix != model.NoSetting || strings.Contains(msg, "temperature") {
				t.Errorf("Temporary %v (%q), Fix %v, message %q: want a temporary error that blames no setting", me.Temporary, me.Retry, me.Fix, msg)
			}
		})
	}
}

// TestAStreamThatEndsWithoutItsMarkerElsewhereIsNoRepeatLimit checks that
// only Ollama's clean end is taken for its repeat limit: a connection
// dropped mid-reply, or an OpenAI-compatible server's stream cut short,
// is an incomplete reply and no more.
func TestAStreamThatEndsWithoutItsMarkerElsewhereIsNoRepeatLimit(t *testing.T) {
	for _, tt := range []struct {
		name     string
		provider string
		start    func([]string, ...modeltest.Option) *modeltest.Server
		how      modeltest.Misbehaviour
	}{
		{"Ollama's connection dropped", "ollama", modeltest.NewOllama, modeltest.DroppedConnection},
		{"an OpenAI server's connection dropped", "openai", modeltest.NewOpenAI, modeltest.DroppedConnection},
		{"an OpenAI server's stream cut short", "openai", modeltest.NewOpenAI, modeltest.RepeatLimit},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.start([]string{"Final Answer: forty-two"}, modeltest.Misbehave(tt.how))
			defer s.Close()
			m, err := model.New(context.Background(), model.Config{Provider: tt.provider, BaseURL: s.URL, Model: "m", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
				llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			if !errors.Is(err, model.ErrIncomplete) || errors.Is(err, model.ErrRepeatLimit) {
				t.Fatalf("error = %v, want ErrIncomplete alone", err)
			}
		})
	}
}

// TestALineWithoutEndIsCutAtItsBound streams one line that never ends, in
// each framing of a stream: the client stops reading at model.MaxLineBytes,
// with an error that names the bound, long before --max-reply, and never
// holds more of it than that.
func TestALineWithoutEndIsCutAtItsBound(t *testing.T) {
	for _, tt := range []struct{ provider, media, start string }{
		{"ollama", "application/x-ndjson", `{"message":{"content":"`},
		{"openai", "text/event-stream", `data: {"choices":[{"index":0,"delta":{"content":"`},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.media)
				io.WriteString(w, tt.start)
				chunk := strings.Repeat("a", 32<<10)
				for r.Context().Err() == nil {
					if _, err := io.WriteString(w, chunk); err != nil {
						return
					}
				}
			}))
			defer srv.Close()
			base := srv.URL
			if tt.provider == "openai" {
				base += "/v1"
			}
			m, err := model.New(context.Background(), model.Config{Provider: tt.provider, BaseURL: base, Model: "m", MaxTokens: -1, MaxReplyBytes: 64 << 20})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
				llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			var me *model.Error
			if !errors.Is(err, model.ErrLineTooLong) || !errors.As(err, &me) || me.Temporary || time.Since(start) > 10*time.Second {
				t.Fatalf("error %v after %s: want ErrLineTooLong, not retried", err, time.Since(start))
			}
		})
	}
}
