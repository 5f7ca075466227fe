package agent

import (
	"github.com/react-agent/react-agent/agent/event"

	"github.com/react-agent/react-agent/agent/model"

	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools"
)

// twoSteps loads the script of a two-step run: the first reply goes on
// past its action, as models do, and the server's stop sequences must cut
// it.
func twoSteps(t *testing.T) []string {
	t.Helper()
	replies, err := modeltest.LoadReplies("../testdata/agent/server/two_steps.json")
	if err != nil {
		t.Fatal(err)
	}
	return replies
}

// stopsOf returns the stop sequences of a request field the server decoded.
func stopsOf(v any) []string {
	var out []string
	if list, ok := v.([]any); ok {
		for _, s := range list {
			out = append(out, s.(string))
		}
	}
	return out
}

func TestOllamaServer(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			// A model that takes more than the 8192 tokens asked: num_ctx is
			// never more than the model's own (its /api/show).
			srv := modeltest.NewOllama(twoSteps(t), modeltest.Model("qwen2.5:7b"), modeltest.ContextSize(32768))
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: "ollama", BaseURL: srv.URL, Temperature: 0.2})
			if err != nil {
				t.Fatal(err)
			}
			var opts []Option
			var streamed strings.Builder
			if streaming {
				opts = append(opts, WithStreaming(func(c string) { streamed.WriteString(c) }))
			}
			res, err := New(m, registry(t), opts...).Run(context.Background(), "What is 17 + 25?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "17 + 25 = 42" || res.Steps[0].Observation != "42" {
				t.Errorf("answer %q, first observation %q", res.Answer, res.Steps[0].Observation)
			}
			if res.Usage.PromptTokens != 200 || res.Usage.CompletionTokens != 40 {
				t.Errorf("usage %+v", res.Usage)
			}
			if res.Model != "qwen2.5:7b" {
				t.Errorf("the model the server served is %q, want qwen2.5:7b, as it says", res.Model)
			}
			opts0 := srv.Request(0)["options"].(map[string]any)
			if opts0["num_ctx"] != 8192.0 || opts0["temperature"] != 0.2 || len(stopsOf(opts0["stop"])) != 4 {
				t.Errorf("the request options are %v; want num_ctx 8192, temperature 0.2 and the stop sequences", opts0)
			}
			if streaming && !strings.Contains(streamed.String(), "Action Input") {
				t.Errorf("streamed %q", streamed.String())
			}
		})
	}
}

func TestOpenAIServer(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			srv := modeltest.NewOpenAI(twoSteps(t), modeltest.Model("local-model"), modeltest.APIKey("sk-test"))
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test", Model: "local-model"})
			if err != nil {
				t.Fatal(err)
			}
			var opts []Option
			if streaming {
				opts = append(opts, WithStreaming(func(string) {}))
			}
			res, err := New(m, registry(t), opts...).Run(context.Background(), "What is 17 + 25?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "17 + 25 = 42" || res.Steps[0].Observation != "42" || res.Usage.TotalTokens != 240 {
				t.Errorf("answer %q, first observation %q, usage %+v", res.Answer, res.Steps[0].Observation, res.Usage)
			}
			if got := stopsOf(srv.Request(0)["stop"]); len(got) != 4 {
				t.Errorf("stop = %q", got)
			}
		})
	}
}

func TestServerFailures(t *testing.T) {
	tests := []struct {
		name      string
		provider  string
		opts      []modeltest.Option
		cfg       model.Config
		wantCalls int
		wantErr   string
	}{
		{name: "ollama: a 503 is retried", provider: "ollama",
			opts:      []modeltest.Option{modeltest.Model("qwen2.5:7b"), modeltest.Fail(1, 503), modeltest.Fail(2, 503)},
			wantCalls: 3},
		{name: "ollama: an unknown model says to pull it", provider: "ollama",
			opts: []modeltest.Option{modeltest.Model("qwen2.5:7b")}, cfg: model.Config{Model: "nope:1b"},
			wantCalls: 1, wantErr: "run `ollama pull nope:1b`"},
		{name: "openai: a 503 is retried", provider: "openai",
			opts: []modeltest.Option{modeltest.Model("m"), modeltest.APIKey("sk-test"), modeltest.Fail(1, 503)},
			cfg:  model.Config{Model: "m", APIKey: "sk-test"}, wantCalls: 2},
		{name: "openai: an unknown model is not retried", provider: "openai",
			opts: []modeltest.Option{modeltest.Model("m"), modeltest.APIKey("sk-test")}, cfg: model.Config{Model: "gpt-x", APIKey: "sk-test"},
			wantCalls: 1, wantErr: "has no model \"gpt-x\""},
		{name: "openai: a bad key says which variable to set", provider: "openai",
			opts: []modeltest.Option{modeltest.Model("m"), modeltest.APIKey("sk-test")}, cfg: model.Config{Model: "m", APIKey: "wrong"},
			wantCalls: 1, wantErr: "OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := []string{final("ok")}
			var srv *modeltest.Server
			if tt.provider == "ollama" {
				srv = modeltest.NewOllama(replies, tt.opts...)
			} else {
				srv = modeltest.NewOpenAI(replies, tt.opts...)
			}
			defer srv.Close()
			cfg := tt.cfg
			cfg.Provider, cfg.BaseURL = tt.provider, srv.URL
			m, err := model.New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(m, registry(t), fastRetries()).Run(context.Background(), "q")
			if got := srv.Calls(); got != tt.wantCalls {
				t.Errorf("the server got %d calls, want %d", got, tt.wantCalls)
			}
			if tt.wantErr == "" {
				if err != nil || res.Answer != "ok" {
					t.Fatalf("got %v, %q", err, res.Answer)
				}
				return
			}
			var me *model.Error
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &me) {
				t.Fatalf("error = %v, want a *model.Error mentioning %q", err, tt.wantErr)
			}
		})
	}
}

// TestUnreachableServer calls servers that are not running on this
// machine: the connection is refused at once, and the run fails at once,
// with the advice and without retries or their warnings, since waiting
// does not start a server.
func TestUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.Listener.Addr().String()
	srv.Close()
	_, port, _ := strings.Cut(addr, ":")
	tests := []struct {
		provider, url, advice string
	}{
		{"ollama", "http://" + addr, "ollama serve"},
		{"ollama", "http://localhost:" + port, "ollama serve"},
		{"openai", "http://" + addr, "check that it is running"},
		{"openai", "http://localhost:" + port + "/v1", "check that it is running"},
	}
	for _, tt := range tests {
		t.Run(tt.provider+" at "+tt.url, func(t *testing.T) {
			m, err := model.New(context.Background(), model.Config{Provider: tt.provider, BaseURL: tt.url})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			_, err = New(m, registry(t), WithRetries(3, 50*time.Millisecond, time.Second), WithEvents(func(e event.Event) {
				if e.Kind == event.Warning {
					warnings = append(warnings, e.Text)
				}
			})).Run(context.Background(), "q")
			if err == nil || !strings.Contains(err.Error(), tt.advice) || len(warnings) != 0 {
				t.Fatalf("error = %v after warnings %q; want one saying %q, at once", err, warnings, tt.advice)
			}
		})
	}
}

func TestHangingServer(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			var srv *modeltest.Server
			if provider == "ollama" {
				srv = modeltest.NewOllama(nil, modeltest.Hang())
			} else {
				srv = modeltest.NewOpenAI(nil, modeltest.Hang())
			}
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: srv.URL, Model: "m", APIKey: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := New(m, registry(t), fastRetries(), WithTimeout(100*time.Millisecond),
				WithGracePeriod(100*time.Millisecond)).Run(context.Background(), "q")
			if err == nil || res.StopReason != event.StopTimeout {
				t.Fatalf("got %v, %s; want a timeout", err, res.StopReason)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the run took %s", d)
			}
		})
	}
}

// TestSilentServerIsTriedAgainOnce calls servers that take the request
// and then send nothing, before their headers or after them: past the
// idle time the call fails and is tried once more, not three times, so
// that the run fails after two idle times, not four.
func TestSilentServerIsTriedAgainOnce(t *testing.T) {
	const idle = 200 * time.Millisecond
	for _, provider := range []string{"ollama", "openai"} {
		for name, opt := range map[string]modeltest.Option{"no headers": modeltest.Hang(),
			"headers, then nothing": modeltest.Misbehave(modeltest.HangAfterHeaders)} {
			t.Run(provider+", "+name, func(t *testing.T) {
				start := modeltest.NewOllama
				if provider == "openai" {
					start = modeltest.NewOpenAI
				}
				srv := start(nil, opt)
				defer srv.Close()
				m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: srv.URL, Model: "m", APIKey: "k", IdleTimeout: idle})
				if err != nil {
					t.Fatal(err)
				}
				var warnings int
				began := time.Now()
				_, err = New(m, registry(t), fastRetries(), WithEvents(func(e event.Event) {
					if e.Kind == event.Retry && e.RetryReason == model.RetryIdle {
						warnings++
					}
				})).Run(context.Background(), "q")
				took := time.Since(began)
				if !errors.Is(err, model.ErrIdle) {
					t.Fatalf("error = %v, want one that is model.ErrIdle", err)
				}
				if srv.Calls() != 2 || warnings != 1 {
					t.Errorf("the server got %d calls and the run gave %d warnings, want 2 calls and 1 warning", srv.Calls(), warnings)
				}
				t.Logf("failed after %s", took)
			})
		}
	}
}

// TestAModelOllamaStoppedForRepeatingItselfIsTriedAgainOnce runs a model
// that Ollama stops for writing one token more than 30 times in a row:
// the call is tried once more (a model sampled at a higher temperature
// may write something else), not three times, and the run ends with the
// error that says so, on either protocol.
func TestAModelOllamaStoppedForRepeatingItselfIsTriedAgainOnce(t *testing.T) {
	for _, protocol := range []Protocol{ProtocolText, ProtocolNative} {
		t.Run(string(protocol), func(t *testing.T) {
			srv := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Misbehave(modeltest.RepeatLimit))
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{BaseURL: srv.URL, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			var warnings int
			res, err := New(m, registry(t), fastRetries(), WithProtocol(protocol), WithEvents(func(e event.Event) {
				if e.Kind == event.Retry && e.RetryReason == model.RetryIncomplete {
					warnings++
				}
			})).Run(context.Background(), "q")
			if !errors.Is(err, model.ErrStreamCut) || res.Answer != "" {
				t.Fatalf("error = %v, answer %q; want model.ErrStreamCut and no answer", err, res.Answer)
			}
			if srv.Calls() != 2 || warnings != 1 {
				t.Errorf("the server got %d calls and the run gave %d warnings, want 2 calls and 1 warning", srv.Calls(), warnings)
			}
		})
	}
}

// The script the command-line tests serve must lead the real agent, with
// the real calculator, to the right answer on either protocol, run after
// run on one server.
func TestCalculatorScript(t *testing.T) {
	replies, err := modeltest.LoadReplies("../testdata/agent/server/calculator.json")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			var srv *modeltest.Server
			if provider == "ollama" {
				srv = modeltest.NewOllama(replies, modeltest.Repeat())
			} else {
				srv = modeltest.NewOpenAI(replies, modeltest.Repeat())
			}
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: srv.URL, APIKey: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			for run := 1; run <= 2; run++ {
				res, err := New(m, reg).Run(context.Background(), "What is 17 * 23 + 4?")
				if err != nil {
					t.Fatal(err)
				}
				if res.Answer != "17 * 23 + 4 = 395" || res.Steps[0].Observation != "395" {
					t.Errorf("run %d: answer %q, first observation %q", run, res.Answer, res.Steps[0].Observation)
				}
			}
			if got := srv.Calls(); got != 4 {
				t.Errorf("the server got %d calls, want 4", got)
			}
		})
	}
}

// TestRateLimitsAreWaitedOut answers the first call with a 429 that asks,
// with Retry-After, for a second's wait: the retry comes after it.
func TestRateLimitsAreWaitedOut(t *testing.T) {
	replies, err := modeltest.LoadReplies("../testdata/agent/server/two_steps.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			var srv *modeltest.Server
			if provider == "ollama" {
				srv = modeltest.NewOllama(replies[1:], modeltest.Fail(1, 429), modeltest.RetryAfter(1))
			} else {
				srv = modeltest.NewOpenAI(replies[1:], modeltest.Fail(1, 429), modeltest.RetryAfter(1))
			}
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: srv.URL, Model: "m", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			start := time.Now()
			res, err := New(m, registry(t), fastRetries(), WithEvents(func(e event.Event) {
				if e.Kind == event.Retry && e.RetryReason == model.RetryRateLimited && e.Wait == time.Second {
					warnings = append(warnings, e.Text)
				}
			})).Run(context.Background(), "q")
			if err != nil || res.Answer != "17 + 25 = 42" {
				t.Fatalf("got %v, %+v", err, res)
			}
			if took := time.Since(start); took < time.Second {
				t.Errorf("the retry came after %s, before the second the server asked for", took)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "retrying in 1s") {
				t.Errorf("warnings = %q", warnings)
			}
		})
	}
}

// TestServersThatRefuseAParameter talks to servers that refuse stop
// sequences or the temperature with a 400, as reasoning models do: the
// call is made again without it, once, with one warning, and the calls
// after leave it out.
func TestServersThatRefuseAParameter(t *testing.T) {
	replies, err := modeltest.LoadReplies("../testdata/agent/server/two_steps.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, provider := range []string{"ollama", "openai"} {
		for _, param := range []string{"stop", "temperature"} {
			t.Run(provider+" refusing "+param, func(t *testing.T) {
				var srv *modeltest.Server
				if provider == "ollama" {
					srv = modeltest.NewOllama(replies, modeltest.Reject(param))
				} else {
					srv = modeltest.NewOpenAI(replies, modeltest.Reject(param))
				}
				defer srv.Close()
				m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: srv.URL, Model: "m", APIKey: "k", Temperature: 0.2})
				if err != nil {
					t.Fatal(err)
				}
				var warnings []string
				res, err := New(m, registry(t, addTool()), fastRetries(), WithEvents(func(e event.Event) {
					if e.Kind == event.Warning {
						warnings = append(warnings, e.Text)
					}
				})).Run(context.Background(), "What is 17 + 25?")
				if err != nil || res.Answer != "17 + 25 = 42" {
					t.Fatalf("got %v, %+v", err, res)
				}
				if len(warnings) != 1 || !strings.Contains(warnings[0], fmt.Sprintf("refused the parameter %q", param)) {
					t.Errorf("warnings = %q", warnings)
				}
				if n := srv.Calls(); n != 3 {
					t.Errorf("%d calls, want 3: the refused one, its retry, the next step", n)
				}
			})
		}
	}
}
