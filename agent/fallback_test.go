package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
)

// windowBetween returns a context window, in the fake server's tokens (4
// bytes each), that the system prompt of small fits with room to spare
// and that of large does not, for the tools of reg.
func windowBetween(t *testing.T, reg *tools.Registry, large, small *prompt.Template) int {
	t.Helper()
	a := New(nil, reg)
	big, err := large.System(a.promptData("What is 2+2?"))
	if err != nil {
		t.Fatal(err)
	}
	little, err := small.System(a.promptData("What is 2+2?"))
	if err != nil {
		t.Fatal(err)
	}
	if len(little)*3 > len(big)*2 {
		t.Fatalf("the small prompt is %d bytes, the large %d: too close to tell apart", len(little), len(big))
	}
	return (len(big) + len(little)) / 2 / 4
}

// TestARunGoesOnWithTheFallbackTemplateWhenTheFirstIsTooLong runs against
// a llama-server whose window the full prompt does not fit and the compact
// one does: the server refuses the first prompt, the run goes on with the
// compact template and answers, and a notice says so; the next run of the
// agent starts with the compact template.
func TestARunGoesOnWithTheFallbackTemplateWhenTheFirstIsTooLong(t *testing.T) {
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	window := windowBetween(t, reg, prompt.English(), prompt.Compact())
	srv := modeltest.NewLlamaCpp([]string{"Thought: I know it.\nFinal Answer: 4", "Thought: I know it.\nFinal Answer: 5"}, modeltest.ContextSize(window))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var notices []event.Event
	a := New(m, reg, WithFallbackTemplate(prompt.Compact()), WithEvents(func(e event.Event) {
		if e.Kind == event.Notice {
			notices = append(notices, e)
		}
	}))
	res, err := a.Run(context.Background(), "What is 2+2?")
	if err != nil || res.Answer != "4" || !res.FellBack {
		t.Fatalf("answer %q, fell back %v, error %v", res.Answer, res.FellBack, err)
	}
	if len(notices) != 1 || !errors.Is(notices[0].Err, ErrFallbackTemplate) || !errors.Is(notices[0].Err, model.ErrContextOverflow) ||
		!strings.Contains(notices[0].Text, "the run goes on with the smaller template, compact") {
		t.Errorf("notices %+v", notices)
	}
	prompts := srv.Calls()
	if prompts != 2 {
		t.Fatalf("%d calls, want the refused one and the one sent again", prompts)
	}
	first, _ := srv.Request(0)["prompt"].(string)
	second, _ := srv.Request(1)["prompt"].(string)
	if len(second) >= len(first) || !strings.Contains(second, "Reply with") {
		t.Errorf("the prompt sent again is not the compact one:\n%s", second)
	}

	res, err = a.Run(context.Background(), "What is 2+3?")
	if err != nil || res.Answer != "5" || !res.FellBack || srv.Calls() != 3 || len(notices) != 1 {
		t.Errorf("the next run: answer %q, fell back %v, %d calls, %d notices, error %v", res.Answer, res.FellBack, srv.Calls(), len(notices), err)
	}
}

// TestWithoutAFallbackTheOverflowEndsTheRun: with no fallback template,
// the server's refusal ends the run as before.
func TestWithoutAFallbackTheOverflowEndsTheRun(t *testing.T) {
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	window := windowBetween(t, reg, prompt.English(), prompt.Compact())
	srv := modeltest.NewLlamaCpp([]string{"Thought: I know it.\nFinal Answer: 4"}, modeltest.ContextSize(window))
	defer srv.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(m, reg, fastRetries()).Run(context.Background(), "What is 2+2?")
	if !errors.Is(err, model.ErrContextOverflow) || res.FellBack || srv.Calls() != 1 {
		t.Errorf("fell back %v, %d calls, error %v", res.FellBack, srv.Calls(), err)
	}
}
