package agent

import (
	"github.com/react-agent/react-agent/agent/model"

	"context"
	"strings"
	"testing"
)

func TestChatResumeSendsTheEarlierTurns(t *testing.T) {
	m := scripted(final("About 2.1 million"))
	c := NewChat(New(m, registry(t)), 2)
	earlier := []Turn{{"first", "one"}, {"What is the capital of France?", "Paris"}, {"Is it big?", "Yes"}}
	c.Resume(earlier)
	earlier[2].Answer = "changed by the caller"
	if _, err := c.Ask(context.Background(), "And its population?"); err != nil {
		t.Fatal(err)
	}
	msgs := m.calls[0]
	if len(msgs) != 6 {
		t.Fatalf("the question was sent with %d messages, want system and the two last turns before it", len(msgs))
	}
	if q, a := model.MessageText(msgs[1]), model.MessageText(msgs[2]); !strings.Contains(q, "capital of France") || a != "Final Answer: Paris" {
		t.Errorf("first remembered turn = %q, %q", q, a)
	}
	if a := model.MessageText(msgs[4]); a != "Final Answer: Yes" {
		t.Errorf("second remembered turn's answer = %q; Resume must copy the turns", a)
	}
	if h := c.History(); len(h) != 2 || h[1].Answer != "About 2.1 million" {
		t.Errorf("history %+v", h)
	}
}
