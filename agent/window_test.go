package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// promptBytes is the text of one request.
func promptBytes(msgs []llms.MessageContent) int {
	n := 0
	for _, m := range msgs {
		n += len(model.MessageText(m))
	}
	return n
}

// TestChatFitsTheContextWindow asks ten questions with long answers in a
// chat with a small window: every request stays inside the window (at
// the agent's estimate of three bytes a token), the oldest turns go
// first, the system prompt and the question always stay, and each run
// says once what it left out.
func TestChatFitsTheContextWindow(t *testing.T) {
	const window = 1200
	long := strings.Repeat("a long answer that takes room. ", 30) // ~900 bytes
	var replies []string
	for i := range 10 {
		replies = append(replies, final(fmt.Sprintf("answer %d: %s", i+1, long)))
	}
	m := scripted(replies...)
	var warnings []string
	a := New(m, registry(t), WithContextWindow(window), WithEvents(func(e event.Event) {
		if e.Kind == event.Warning {
			warnings = append(warnings, fmt.Sprintf("turn %d: %s", e.Turn, e.Text))
		}
	}))
	c := NewChat(a, 20)
	var sizes []int
	for i := range 10 {
		if _, err := c.Ask(context.Background(), fmt.Sprintf("question %d?", i+1)); err != nil {
			t.Fatal(err)
		}
		msgs := m.calls[i]
		sizes = append(sizes, promptBytes(msgs))
		if got := promptBytes(msgs) / 3; got > window-replyReserve(window) {
			t.Errorf("question %d: the prompt is about %d tokens, over the window of %d", i+1, got, window)
		}
		if !strings.Contains(model.MessageText(msgs[len(msgs)-1]), fmt.Sprintf("question %d?", i+1)) {
			t.Errorf("question %d: the last message lost the question", i+1)
		}
		if !strings.Contains(model.MessageText(msgs[0]), "Action Input") {
			t.Errorf("question %d: the system prompt is gone", i+1)
		}
		if i > 0 && len(msgs) > 2 && !strings.Contains(model.MessageText(msgs[len(msgs)-3]), fmt.Sprintf("question %d?", i)) {
			t.Errorf("question %d: the turn kept is not the latest one", i+1)
		}
	}
	t.Logf("prompt bytes of the ten questions: %v", sizes)
	if len(warnings) == 0 || len(warnings) > 9 {
		t.Errorf("warnings %q: want at most one a question, once turns are left out", warnings)
	}
	for _, w := range warnings {
		if !strings.Contains(w, "leaves out") {
			t.Errorf("warning %q does not say what was left out", w)
		}
	}
}

// TestOldObservationsAreShortened runs steps with large observations in a
// small window: the oldest are shortened first, the last is kept whole.
func TestOldObservationsAreShortened(t *testing.T) {
	big := func(c string) string { return strings.Repeat(c, 2000) }
	fetch := funcTool{name: "fetch", schema: oneString("page"), fn: func(_ context.Context, args map[string]any) (string, error) {
		return big(fmt.Sprint(args["page"])), nil
	}}
	m := scripted(action("fetch", "a"), action("fetch", "b"), action("fetch", "c"), final("done"))
	var warned []string
	res, err := New(m, registry(t, fetch), WithContextWindow(1600), WithEvents(func(e event.Event) {
		if e.Kind == event.Warning {
			warned = append(warned, e.Text)
		}
	})).Run(context.Background(), "q")
	if err != nil || res.Answer != "done" {
		t.Fatalf("answer %q, %v", res.Answer, err)
	}
	last := model.MessageText(m.calls[3][len(m.calls[3])-1])
	if !strings.Contains(last, big("c")) {
		t.Error("the last observation was shortened")
	}
	if strings.Contains(last, big("a")) || strings.Contains(last, big("b")) || !strings.Contains(last, "left out to fit the context window") {
		t.Errorf("the oldest observation was not shortened:\n%.300s", last)
	}
	if !strings.HasPrefix(last, "Question: q") {
		t.Errorf("the question is gone: %.80q", last)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "old observation") {
		t.Errorf("warnings %q, want one that says observations were shortened", warned)
	}
}

// TestShortenCountsThroughAnEarlierCut shortens observations that were
// cut already, to the cap of the observations (tools.Truncate): the
// marker counts every byte of the tool's output left out.
func TestShortenCountsThroughAnEarlierCut(t *testing.T) {
	tests := []struct {
		name, obs, want string
	}{
		{"an observation cut to its cap", strings.Repeat("x", 2000) + "\n[truncated: 50000 bytes omitted]",
			"\n[51700 more bytes left out to fit the context window]"},
		{"an observation whose tool did not read it all", strings.Repeat("x", 2000) + "\n[truncated: more than 50000 bytes omitted]",
			"\n[more than 51700 bytes left out to fit the context window]"},
		{"a whole observation", strings.Repeat("x", 2000), "\n[1700 more bytes left out to fit the context window]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shortenTo(tt.obs, shortObservation); got != strings.Repeat("x", shortObservation)+tt.want {
				t.Errorf("shortenTo = %q, want the start and %q", got[shortObservation-10:], tt.want)
			}
		})
	}
}

// TestEveryStepIsFitted is the reproduction, on a real client and
// server: four observations of 1,200 bytes in a window of 1,166 tokens.
// Every request is fitted, not only those before the first warning; when
// the old observations are short already, the newest is shortened too.
func TestEveryStepIsFitted(t *testing.T) {
	const window = 1166
	page := funcTool{name: "page", schema: oneString("n"), fn: func(_ context.Context, args map[string]any) (string, error) {
		return strings.Repeat(fmt.Sprint(args["n"]), 1200), nil
	}}
	replies := []string{action("page", "1"), action("page", "2"), action("page", "3"), action("page", "4"), final("done")}
	srv := modeltest.NewOllama(replies)
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{BaseURL: srv.URL, NumCtx: window})
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	res, err := New(m, registry(t, page), WithEvents(func(e event.Event) {
		if e.Kind == event.Warning {
			warnings = append(warnings, e.Text)
		}
	})).Run(context.Background(), "What do the pages say?")
	if err != nil || res.Answer != "done" {
		t.Fatalf("answer %q, %v", res.Answer, err)
	}
	budget := (window - replyReserve(window)) * 3 // bytes, at the agent's three bytes a token
	for i := range srv.Calls() {
		var n int
		for _, msg := range srv.Request(i)["messages"].([]any) {
			n += len(msg.(map[string]any)["content"].(string))
		}
		if n > budget {
			t.Errorf("request %d holds %d bytes (about %d tokens), more than the %d that fit", i+1, n, n/3, budget)
		}
	}
	last := fmt.Sprint(srv.Request(srv.Calls() - 1)["messages"])
	if !strings.Contains(last, "What do the pages say?") || !strings.Contains(last, "Action Input") {
		t.Errorf("the last request lost the question or the system prompt")
	}
	t.Logf("warnings: %q", warnings)
}

// TestTheWindowWarningSaysWhatTheServerDoes checks the warning that a
// prompt nears the context window against each kind of server: it says
// that the server may drop the prompt's beginning only of one that may
// (an OpenAI-compatible server of unknown kind), and carries what makes
// the window larger as the model knows it: the setting asked of Ollama
// for a window asked for, llama-server's -c, or that Ollama grows it.
func TestTheWindowWarningSaysWhatTheServerDoes(t *testing.T) {
	question := "What is 17 + 25? " + strings.Repeat("Say it plainly. ", 400)
	tests := []struct {
		name  string
		start func() *modeltest.Server
		cfg   model.Config
		opts  []Option
		cuts  bool
		fix   model.Setting
		hint  string
	}{
		{"llama-server", func() *modeltest.Server { return modeltest.NewLlamaCpp(twoSteps(t), modeltest.ContextSize(2048)) },
			model.Config{Provider: "llamacpp"}, nil, false, model.NoSetting, "its -c"},
		{"Ollama, whose window grows", func() *modeltest.Server { return modeltest.NewOllama(twoSteps(t), modeltest.ContextSize(32768)) },
			model.Config{Provider: "ollama"}, []Option{WithContextWindow(2048)}, false, model.NoSetting, "grows when a prompt needs more"},
		{"Ollama, with the window asked for", func() *modeltest.Server { return modeltest.NewOllama(twoSteps(t), modeltest.ContextSize(32768)) },
			model.Config{Provider: "ollama", NumCtx: 2048}, nil, false, model.SettingNumCtx, ""},
		{"a server of unknown kind", func() *modeltest.Server { return modeltest.NewOpenAI(twoSteps(t)) },
			model.Config{Provider: "openai"}, []Option{WithContextWindow(2048)}, true, model.NoSetting, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.start()
			defer srv.Close()
			tt.cfg.BaseURL = srv.URL
			if tt.cfg.Provider == "openai" {
				tt.cfg.BaseURL += "/v1"
			}
			m, err := model.New(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var warned []event.Event
			New(m, registry(t), append(tt.opts, WithMaxIterations(1), WithEvents(func(e event.Event) {
				if e.Kind == event.Warning && errors.Is(e.Err, model.ErrContextOverflow) {
					warned = append(warned, e)
				}
			}))...).Run(context.Background(), question)
			var me *model.Error
			if len(warned) == 0 || !errors.As(warned[0].Err, &me) {
				t.Fatalf("warnings %+v", warned)
			}
			if cuts := strings.Contains(warned[0].Text, "may drop its beginning"); cuts != tt.cuts || me.Fix != tt.fix || !strings.Contains(me.Detail+me.Hint, tt.hint) {
				t.Errorf("warning %q, fix %v, %q: %q; want the server said to cut %v, fix %v and %q", warned[0].Text, me.Fix, me.Detail, me.Hint, tt.cuts, tt.fix, tt.hint)
			}
		})
	}
}
