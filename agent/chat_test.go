package agent

import (
	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"

	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

func TestChatRemembers(t *testing.T) {
	m := scripted(final("Paris"), final("About 2.1 million"), final("x"))
	c := NewChat(New(m, registry(t)), 1)
	ctx := context.Background()
	if _, err := c.Ask(ctx, "What is the capital of France?"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ask(ctx, "And its population?"); err != nil {
		t.Fatal(err)
	}
	second := m.calls[1]
	if len(second) != 4 {
		t.Fatalf("the second question was sent with %d messages, want system, question, answer, question", len(second))
	}
	if q, a := model.MessageText(second[1]), model.MessageText(second[2]); !strings.Contains(q, "capital of France") || a != "Final Answer: Paris" {
		t.Errorf("history = %q, %q", q, a)
	}
	// The first question's prompt is a prefix of the conversation, for the cache.
	if !strings.HasPrefix(model.MessageText(second[0])+model.MessageText(second[1]), model.MessageText(m.calls[0][0])+strings.TrimSpace(m.last(0))) {
		t.Error("the conversation does not extend the first prompt")
	}
	if _, err := c.Ask(ctx, "third"); err != nil {
		t.Fatal(err)
	}
	if h := c.History(); len(h) != 1 || h[0].Answer != "x" {
		t.Errorf("history kept %+v, want the last turn only", h)
	}
	c.Reset()
	if len(c.History()) != 0 {
		t.Error("Reset kept the history")
	}
}

func TestChatEventsCarryTheTurn(t *testing.T) {
	m := scripted(final("Paris"), final("Berlin"))
	var turns []int
	a := New(m, registry(t), WithEvents(func(e event.Event) {
		if e.Kind == event.Final {
			turns = append(turns, e.Turn)
		}
	}))
	c := NewChat(a, 0)
	for _, q := range []string{"France?", "Germany?"} {
		if _, err := c.Ask(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(turns) != "[1 2]" {
		t.Errorf("the final events carry turns %v, want [1 2]", turns)
	}
	if res, _ := New(scripted(final("x")), registry(t), WithEvents(func(e event.Event) {
		if e.Turn != 0 {
			t.Errorf("a single question's %s event carries turn %d", e.Kind, e.Turn)
		}
	})).Run(context.Background(), "q"); res.Answer != "x" {
		t.Errorf("answer %q", res.Answer)
	}
}

// TestAQuestionThatGotNoAnswerStaysInTheConversation: a first question
// whose run ends without an answer (the model kept writing what the
// parser cannot read) is still part of the second question's prompt, in
// both protocols, with the model's word that it could not answer it.
func TestAQuestionThatGotNoAnswerStaysInTheConversation(t *testing.T) {
	for _, protocol := range []Protocol{ProtocolText, ProtocolNative} {
		t.Run(string(protocol), func(t *testing.T) {
			m := newCapture(modelFunc(func(_ context.Context, msgs []llms.MessageContent, o llms.CallOptions) (string, error) {
				if len(msgs) < 3 {
					return "", errors.New("the server is down")
				}
				return final("It was about France."), nil
			}))
			c := NewChat(New(m, registry(t), WithProtocol(protocol), WithRetries(0, 0, 0)), 0)
			if res, err := c.Ask(context.Background(), "What is the capital of France?"); err == nil || res.Answer != "" {
				t.Fatalf("the first question was answered %q (%v)", res.Answer, err)
			}
			if _, err := c.Ask(context.Background(), "What did I ask you before?"); err != nil {
				t.Fatal(err)
			}
			var prompt strings.Builder
			for _, msg := range m.calls[len(m.calls)-1] {
				prompt.WriteString(model.MessageText(msg) + "\n")
			}
			if !strings.Contains(prompt.String(), "capital of France") || !strings.Contains(prompt.String(), "I could not answer this question.") {
				t.Errorf("the second prompt leaves out the first question:\n%s", prompt.String())
			}
		})
	}
}
