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
)

// TestAPromptTheServerRefusesAsTooLargeIsFittedAndSentAgain runs against
// llama-server replies: an action, whose observation is large; then
// exceed_context_size_error (8601 tokens of 4096), which says how many
// tokens the prompt is; then, to the prompt fitted to 4096 tokens and sent
// again, the answer.
func TestAPromptTheServerRefusesAsTooLargeIsFittedAndSentAgain(t *testing.T) {
	for _, c := range []Constrain{ConstrainOff, ConstrainAuto} {
		t.Run("constrain "+string(c), func(t *testing.T) {
			srv, calls := recordedLlamaCpp(t, "completion-stream-action", "completion-overflow-4096", "completion-stream-final")
			m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			echo := funcTool{name: "echo", schema: oneString("text"), fn: func(context.Context, map[string]any) (string, error) {
				return strings.Repeat("a long page of text ", 1500), nil
			}}
			var said warnings
			res, err := New(m, registry(t, echo), WithConstrain(c), WithEvents(said.event)).Run(context.Background(), "Say hello.")
			if err != nil || res.Answer != "hello" {
				t.Fatalf("answer %q, error %v", res.Answer, err)
			}
			if calls["POST /completion"] != 3 || said.count("the server refused a prompt of 8601 tokens, more than its context window of 4096 tokens; "+
				"the prompt was fitted to it: it leaves out part of the newest observation, and sent again") != 1 {
				t.Errorf("%d calls, warnings %q", calls["POST /completion"], said)
			}
		})
	}
}

// TestAPromptThatCannotFitEndsTheRunAsAnOverflow runs against llama-server
// -c 256, whose exceed_context_size_error no prompt of the agent can fit:
// the run ends at once, with an error that says so and names the server's
// context size, and the request was neither tried again nor sent without
// its grammar.
func TestAPromptThatCannotFitEndsTheRunAsAnOverflow(t *testing.T) {
	for _, c := range []Constrain{ConstrainOff, ConstrainAuto} {
		t.Run("constrain "+string(c), func(t *testing.T) {
			srv, calls := recordedLlamaCpp(t, "completion-overflow")
			m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			var said warnings
			_, err = New(m, registry(t), WithConstrain(c), WithEvents(said.event), fastRetries()).Run(context.Background(), "Say hello.")
			var me *model.Error
			if !errors.Is(err, model.ErrContextOverflow) || !errors.As(err, &me) || me.ContextTokens != 256 ||
				!strings.Contains(err.Error(), "start llama-server with a larger context (its -c)") {
				t.Fatalf("error %v", err)
			}
			if calls["POST /completion"] != 1 || said.count("refused the constraint") != 0 || said.count("retrying") != 0 {
				t.Errorf("%d calls, warnings %q", calls["POST /completion"], said)
			}
		})
	}
}

// TestAnErrorInTheStreamIsNotTriedAgain runs against llama-server's reply
// that starts, then carries its error (500, "Failed to parse input at pos
// 0", for bytes that are no UTF-8): the run ends with the server's error,
// without trying the same again.
func TestAnErrorInTheStreamIsNotTriedAgain(t *testing.T) {
	srv, calls := recordedLlamaCpp(t, "completion-stream-badutf8")
	m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var said warnings
	_, err = New(m, registry(t), WithEvents(said.event), fastRetries()).Run(context.Background(), "Say hello.")
	if !errors.Is(err, model.ErrNotUTF8) || errors.Is(err, model.ErrIncomplete) || !strings.Contains(err.Error(), "Failed to parse input at pos 0") {
		t.Fatalf("error %v", err)
	}
	if calls["POST /completion"] != 1 {
		t.Errorf("%d calls, warnings %q", calls["POST /completion"], said)
	}
}

// TestAPromptOllamaCutEndsTheRun runs against Ollama's reply to a prompt
// it cut to its window of 1024 tokens (prompt_eval_count 1024, and not a
// word more), with a model that takes no larger one: the reply is not
// taken, and the run ends with an error that says the prompt was cut.
func TestAPromptOllamaCutEndsTheRun(t *testing.T) {
	srv, calls := serveRecorded(t, map[string]string{"POST /api/chat": "ollama-v0.24.0/chat-cut"})
	m, err := model.New(context.Background(), model.Config{Provider: "ollama", BaseURL: srv.URL, NumCtx: 1024})
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(m, registry(t), fastRetries()).Run(context.Background(), "Say hello.")
	if !errors.Is(err, model.ErrContextOverflow) || res.Answer != "" || !strings.Contains(err.Error(), "cut the prompt to the 1024 tokens") {
		t.Fatalf("answer %q, error %v", res.Answer, err)
	}
	if calls["POST /api/chat"] != 1 {
		t.Errorf("%d calls", calls["POST /api/chat"])
	}
}

// TestAFullWindowIsNotSentAgainAsItWas has the server say that the reply
// filled the window after a prompt that fitted it: with nothing to leave
// out, the prompt would fill it again, so it is not sent again, and no
// warning says the server refused it.
func TestAFullWindowIsNotSentAgainAsItWas(t *testing.T) {
	calls := 0
	m := modelFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (string, error) {
		calls++
		return "", &model.Error{PromptTokens: 900, ContextTokens: 1000, Err: fmt.Errorf("%w: 900 tokens of prompt and 100 of reply", model.ErrContextFull)}
	})
	var warned []string
	_, err := New(m, registry(t), WithEvents(func(e event.Event) {
		if e.Kind == event.Warning {
			warned = append(warned, e.Text)
		}
	})).Run(context.Background(), "q")
	if !errors.Is(err, model.ErrContextFull) || calls != 1 || len(warned) != 0 {
		t.Errorf("error %v after %d calls, warnings %q", err, calls, warned)
	}
}
