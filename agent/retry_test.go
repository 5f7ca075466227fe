package agent

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestEveryCallMadeAgainIsARetryEvent runs the agent against servers that
// make a call fail in each way the model room tells from the others, and
// counts the calls that reached the server: each one past the first of a
// step is a retry event of the agent, with its attempt, its wait and its
// reason, and no call is made again where the trace does not say so.
func TestEveryCallMadeAgainIsARetryEvent(t *testing.T) {
	tests := []struct {
		name   string
		start  func() *modeltest.Server
		cfg    model.Config
		opts   []Option
		reason model.RetryReason
		atOnce bool
	}{
		{"a parameter the server refuses is left out, at once",
			func() *modeltest.Server { return modeltest.NewOpenAI(twoSteps(t), modeltest.Reject("stop")) },
			model.Config{Provider: "openai"}, nil, model.RetryParameterDropped, true},
		{"a constraint the server refuses is left out, at once",
			func() *modeltest.Server { return modeltest.NewVLLM(twoSteps(t), modeltest.NoStructuralTags()) },
			model.Config{Provider: "openai", Model: "qwen"}, []Option{WithConstrain(ConstrainAuto)}, model.RetryConstraintDropped, true},
		{"a window too small for the prompt grows, at once",
			func() *modeltest.Server { return modeltest.NewOllama(twoSteps(t), modeltest.ContextSize(32768)) },
			model.Config{Provider: "ollama"}, nil, model.RetryWindowGrown, true},
		{"a server that failed is waited for",
			func() *modeltest.Server { return modeltest.NewOllama(twoSteps(t), modeltest.Fail(1, 503)) },
			model.Config{Provider: "ollama"}, nil, model.RetryServerError, false},
		{"a rate limit is waited out",
			func() *modeltest.Server { return modeltest.NewOpenAI(twoSteps(t), modeltest.Fail(2, 429)) },
			model.Config{Provider: "openai"}, nil, model.RetryRateLimited, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.start()
			defer srv.Close()
			cfg := tt.cfg
			rec := &rawBodies{}
			cfg.BaseURL, cfg.APIKey, cfg.HTTPClient = srv.URL, "k", &http.Client{Transport: rec}
			if cfg.Provider == "openai" {
				cfg.BaseURL += "/v1"
			}
			if cfg.Model == "" {
				cfg.Model = "m"
			}
			m, err := model.New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			question := "What is 17 + 25?"
			if tt.reason == model.RetryWindowGrown {
				// 8,000 of the fake's tokens, more than the window of
				// 8192 holds with its reply, though its size alone does
				// not say so.
				question += strings.Repeat(" word", 6400)
			}
			var retries []event.Event
			opts := append([]Option{fastRetries(), WithEvents(func(e event.Event) {
				if e.Kind == event.Retry {
					retries = append(retries, e)
				}
			})}, tt.opts...)
			res, err := New(m, registry(t), opts...).Run(context.Background(), question)
			if err != nil || res.Answer != "17 + 25 = 42" {
				t.Fatalf("answer %q, error %v", res.Answer, err)
			}
			calls := 0
			for _, b := range rec.bodies {
				if strings.HasPrefix(b, "POST /api/chat\n") || strings.HasPrefix(b, "POST /v1/chat/completions\n") {
					calls++
				}
			}
			if steps := res.ModelCalls; calls != steps+len(retries) || len(retries) != 1 {
				var paths []string
				for _, b := range rec.bodies {
					paths = append(paths, b[:strings.IndexByte(b, '\n')])
				}
				t.Fatalf("the server got %d calls for %d steps (%q), and the run said %d of them were made again: %+v", calls, steps, paths, len(retries), retries)
			}
			e := retries[0]
			if e.RetryReason != tt.reason || e.Attempt != 2 || (e.Wait == 0) != tt.atOnce || e.Err == nil || e.Text == "" {
				t.Errorf("retry event: reason %q, attempt %d, wait %s, err %v, %q; want %q, attempt 2, at once %v",
					e.RetryReason, e.Attempt, e.Wait, e.Err, e.Text, tt.reason, tt.atOnce)
			}
		})
	}
}

// TestAWaitPastTheCapEndsTheRunWithWhatTheServerAsked answers with a 429
// whose Retry-After asks for longer than a run waits, up to more seconds
// than a time.Duration holds: the run ends at once, saying what the
// server asked, rather than waiting a minute, or a few milliseconds after
// the wait overflowed.
func TestAWaitPastTheCapEndsTheRunWithWhatTheServerAsked(t *testing.T) {
	for _, tt := range []struct{ header, said string }{
		{"3600", "in 1h0m0s"},
		{"9223372037", "a year or more"},  // the seconds of a Duration's most, and one more
		{"18446744074", "a year or more"}, // as many again: once taken as 290 ms
	} {
		t.Run(tt.header, func(t *testing.T) {
			srv := serveOnce(t, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: "+tt.header+"\r\nContent-Type: application/json\r\n"+
				"Content-Length: 27\r\n\r\n{\"error\":\"slow down there\"}")
			m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv + "/v1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			var retries int
			start := time.Now()
			_, err = New(m, registry(t), WithRetries(3, time.Millisecond, time.Millisecond), WithEvents(func(e event.Event) {
				if e.Kind == event.Retry {
					retries++
				}
			})).Run(context.Background(), "q")
			var long *WaitTooLongError
			if !errors.As(err, &long) || retries != 0 || time.Since(start) > 5*time.Second {
				t.Fatalf("error %v after %s and %d retries: want the run ended at once", err, time.Since(start), retries)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.said) || !strings.Contains(msg, "slow down there") {
				t.Errorf("error %q: want what the server asked (%s) and said", msg, tt.said)
			}
		})
	}
}

// serveOnce serves response, as it is, to every request on a loopback
// port, and returns the server's URL.
func serveOnce(t *testing.T, response string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf := make([]byte, 64<<10)
				conn.SetReadDeadline(time.Now().Add(time.Second))
				conn.Read(buf)
				conn.Write([]byte(response))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestAReplyReachesTheAgentTyped reads, in the agent's hook, what each
// client's server said of a reply: its usage, why it ended in its own
// word and typed, the model it served, and where the server listens.
func TestAReplyReachesTheAgentTyped(t *testing.T) {
	ollama := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Model("tiny:latest"))
	defer ollama.Close()
	llama := modeltest.NewLlamaCpp([]string{"Final Answer: 42"}, modeltest.Repeat())
	defer llama.Close()
	for _, tt := range []struct {
		name       string
		cfg        model.Config
		served     string
		finishWord string
	}{
		{"Ollama", model.Config{BaseURL: ollama.URL, Model: "tiny:latest"}, "tiny:latest", "stop"},
		{"llama-server", model.Config{Provider: "llamacpp", BaseURL: llama.URL}, "modeltest.gguf", "eos"},
		{"llama-server's OpenAI-compatible API", model.Config{Provider: "openai", BaseURL: llama.URL + "/v1", Model: "m"}, "modeltest.gguf", "stop"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := model.New(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			hook := &lastReply{}
			if _, err := New(m, registry(t), WithHooks(hook)).Run(context.Background(), "q"); err != nil {
				t.Fatal(err)
			}
			got := hook.reply
			u, _ := url.Parse(tt.cfg.BaseURL)
			host, port := u.Hostname(), u.Port()
			if got.Server.Host != host || strconv.Itoa(got.Server.Port) != port {
				t.Errorf("server %+v, want %s:%s", got.Server, host, port)
			}
			if got.Model != tt.served || got.Finish != model.FinishStop || got.FinishWord != tt.finishWord || got.Attempts != 1 {
				t.Errorf("served %q, finish %q (%q), %d attempts; want %q, stop (%q), 1", got.Model, got.Finish, got.FinishWord, got.Attempts, tt.served, tt.finishWord)
			}
			if got.Usage.PromptTokens <= 0 || got.Usage.CompletionTokens <= 0 {
				t.Errorf("usage %+v", got.Usage)
			}
		})
	}
}

// lastReply is a hook that keeps the last reply parsed.
type lastReply struct {
	NoHooks
	reply *Reply
}

func (h *lastReply) AfterParse(_ context.Context, r *Reply) error {
	h.reply = r
	return nil
}
