package agent

import (
	"github.com/react-agent/react-agent/agent/model"

	"context"
	"errors"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

func TestCompleteAction(t *testing.T) {
	act := "Thought: t\nAction: add\nAction Input: {}"
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"a complete action and a made-up observation", act + "\nObservation: 3", len(act) + 1},
		{"markdown and full-width colons", act + "\n**Observation**： 3", len(act) + 1},
		{"no action yet", "Thought: the Observation: is later", -1},
		{"an observation inside reasoning", "<think>" + act + "\nObservation: 3", -1},
		{"an observation after closed reasoning", "<think>Observation: x</think>" + act + "\nObservation: 3", len("<think>Observation: x</think>") + len(act) + 1},
		{"a final answer", "Final Answer: Observation: none", -1},
		{"an inline call and a numbered observation", "Action 1: add[1, 2]\nObservation 1: 3", len("Action 1: add[1, 2]\n")},
		{"a JSON-protocol action", `{"action": "add", "action_input": {}}` + "\nObservation: 3", len(`{"action": "add", "action_input": {}}`) + 1},
		{"a final answer then an observation", "Final Answer: 3\nObservation: 3", -1},
		{"a new thought after the action", act + "\nThought: and more", len(act) + 1},
		{"another action after the action", "Action: add[1, 2]\nAction: add[3, 4]", len("Action: add[1, 2]\n")},
		{"an action whose input may go on", act, -1},
	}
	p := parser.New(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := completeAction(p, tt.in); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestStreamCutter(t *testing.T) {
	var passed string
	c := newStreamCutter(parser.New(nil), func(s string) { passed += s })
	text := "Thought: t\nAction: add\nAction Input: {}\nObserv"
	var err error
	for _, ch := range model.Chunks(text + "ation: 3\nThought: more") {
		if err = c.write(context.Background(), []byte(ch)); err != nil {
			break
		}
	}
	if !errors.Is(err, errStreamCut) {
		t.Fatalf("the cutter did not stop the stream: %v", err)
	}
	if got, want := c.text(), "Thought: t\nAction: add\nAction Input: {}\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if want := "Thought: t\nAction: add\nAction Input: {}"; passed != want {
		t.Errorf("passed on %q, want %q: the reply up to the cut, less the line break before it", passed, want)
	}
}
