package model_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	. "github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// huge is a question of n bytes, a fake token every four.
func huge(n int) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, strings.Repeat("word ", n/5))}
}

// again makes the call req asks of m, and makes it again while its error
// says to make it again at once, as the agent's policy does, three times
// at most.
func again(m llms.Model, req Request) (*Reply, error) {
	for tries := 1; ; tries++ {
		r, err := m.(Generator).Generate(context.Background(), req)
		var me *Error
		if tries == 3 || !errors.As(err, &me) || !me.Retry.AtOnce() {
			return r, err
		}
	}
}

// askOllama asks the fake at srv, and returns the notices, the num_ctx of
// each call, and the error.
func askOllama(t *testing.T, srv *modeltest.Server, numCtx, size int) ([]string, []any, error) {
	t.Helper()
	m, err := New(context.Background(), Config{BaseURL: srv.URL, Model: "m", NumCtx: numCtx, IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	_, err = again(m, Request{Messages: huge(size), OnNotice: func(s string) { notices = append(notices, s) }})
	var asked []any
	for i := range srv.Calls() {
		opts, _ := srv.Request(i)["options"].(map[string]any)
		asked = append(asked, opts["num_ctx"])
	}
	return notices, asked, err
}

func TestTheWindowGrowsOnceToWhatThePromptNeeds(t *testing.T) {
	tests := []struct {
		name  string
		model int // the longest context the model takes
		size  int // the prompt's bytes
		asked []any
	}{
		// 10,000 fake tokens, about 13,000 by the client's estimate of 3
		// bytes a token: refused at 8192, then sent with 16384.
		{"refused, then sent with what the estimate needs", 131072, 40_000, []any{8192.0, 16384.0}},
		// Sure not to fit 8192 before any call: 53,000 tokens by the
		// estimate, sent once with 65536.
		{"grown before the call, when the prompt is sure not to fit", 131072, 160_000, []any{65536.0}},
		{"grown to what the model takes, when less than the estimate", 12000, 40_000, []any{8192.0, 12000.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.ContextSize(tt.model))
			defer srv.Close()
			notices, asked, err := askOllama(t, srv, 0, tt.size)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(asked) != fmt.Sprint(tt.asked) {
				t.Errorf("num_ctx %v, want %v", asked, tt.asked)
			}
			if len(notices) != 1 || !strings.Contains(notices[0], fmt.Sprintf("asking for %v", tt.asked[len(tt.asked)-1])) ||
				!strings.Contains(notices[0], "loads the model again") || !strings.Contains(notices[0], "keeps it loaded") {
				t.Errorf("notices %q", notices)
			}
		})
	}
}

func TestAPromptThatCannotFitIsRefusedAtOnceWithTheSizes(t *testing.T) {
	tests := []struct {
		name   string
		numCtx int
		size   int
		calls  int
		fix    Setting
	}{
		// The case: 1 MB, 334,111 tokens by the estimate, to a
		// model of 131,072: asked once, at 8192, not walked up to 128K.
		{"a megabyte", 0, 1_002_333, 1, NoSetting},
		// Sure not to fit even at 8 bytes a token: not sent at all.
		{"two megabytes", 0, 2_000_000, 0, NoSetting},
		{"past a window asked for", 4096, 40_000, 0, SettingNumCtx},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.ContextSize(131072))
			defer srv.Close()
			_, asked, err := askOllama(t, srv, tt.numCtx, tt.size)
			var me *Error
			if !errors.As(err, &me) || !errors.Is(err, ErrContextOverflow) || me.Temporary || me.Fix != tt.fix {
				t.Fatalf("error %v", err)
			}
			ceiling := 131072
			if tt.numCtx > 0 {
				ceiling = tt.numCtx
			}
			if me.PromptTokens < tt.size/4 || me.ContextTokens != ceiling || !strings.Contains(err.Error(), fmt.Sprint(me.PromptTokens)) {
				t.Errorf("the error says %d tokens of prompt, %d of window: %v", me.PromptTokens, me.ContextTokens, err)
			}
			if len(asked) != tt.calls {
				t.Errorf("calls with num_ctx %v, want %d", asked, tt.calls)
			}
			for _, n := range asked {
				if n != 8192.0 && n != float64(tt.numCtx) {
					t.Errorf("num_ctx %v asked", n)
				}
			}
		})
	}
}

func TestAReplyThatFillsTheWindowIsNoReplyCutAtItsBound(t *testing.T) {
	long := strings.Repeat("Thought: on and on. ", 100)
	t.Run("where the model takes more, the window grows", func(t *testing.T) {
		srv := modeltest.NewOllama([]string{long}, modeltest.Repeat(), modeltest.ContextSize(32768))
		defer srv.Close()
		_, asked, err := askOllama(t, srv, 0, 32_000) // 8000 fake tokens
		if err != nil || fmt.Sprint(asked) != "[8192 16384]" {
			t.Fatalf("error %v, num_ctx %v", err, asked)
		}
	})
	t.Run("where it cannot, an error that says so", func(t *testing.T) {
		srv := modeltest.NewOllama([]string{long}, modeltest.Repeat(), modeltest.ContextSize(8192))
		defer srv.Close()
		_, asked, err := askOllama(t, srv, 0, 32_000)
		var me *Error
		if !errors.As(err, &me) || !errors.Is(err, ErrContextFull) || me.Fix != NoSetting || me.PromptTokens != 8000 ||
			!strings.Contains(me.Error(), "8192 tokens is the longest") || len(asked) != 1 {
			t.Fatalf("error %v (%+v) after %d calls", err, me, len(asked))
		}
	})
}

// TestAWindowAskedForAsAnOptionIsTheWindowAskedFor gives num_ctx as a
// model option (-o num_ctx=…): it is the ceiling, as --num-ctx is, within
// the window's bounds, and never sent past them.
func TestAWindowAskedForAsAnOptionIsTheWindowAskedFor(t *testing.T) {
	for _, n := range []float64{4096, 1e12} {
		srv := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.ContextSize(1<<21))
		defer srv.Close()
		m, err := New(context.Background(), Config{BaseURL: srv.URL, Model: "m", Options: map[string]any{"num_ctx": n}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GenerateContent(context.Background(), huge(40_000))
		opts, _ := srv.Request(0)["options"].(map[string]any)
		switch {
		case n == 4096 && (!errors.Is(err, ErrContextOverflow) || srv.Calls() != 0):
			t.Errorf("num_ctx %v: error %v after %d calls; want it refused unsent", n, err, srv.Calls())
		case n > 4096 && (err != nil || opts["num_ctx"] != float64(1<<20)):
			t.Errorf("num_ctx %v: error %v, asked %v", n, err, opts["num_ctx"])
		}
	}
}
