package agent

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestTracePrinter(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"a thought with its reasoning and time", Event{Kind: EventThought, Iteration: 1, Text: "add them", Reasoning: "hmm", Duration: 1200 * time.Millisecond},
			"[1] thinking:\n    hmm\n[1] Thought: add them (1.2s)\n"},
		{"an action", Event{Kind: EventAction, Iteration: 1, Tool: "add", Args: map[string]any{"a": 1}},
			"[1] Action: add {\"a\":1}\n"},
		{"a failed observation", Event{Kind: EventObservation, Iteration: 2, Text: "Error: x\nmore", Failed: true},
			"[2] Observation (error): Error: x\n    more\n"},
		{"a forced answer", Event{Kind: EventFinal, Iteration: 3, Text: "42", Forced: true, StopReason: StopMaxIterations},
			"[3] Final Answer: 42 [forced: max_iterations]\n"},
		{"a warning", Event{Kind: EventWarning, Iteration: 1, Text: "retrying"}, "[1] warning: retrying\n"},
		{"a long observation is shortened", Event{Kind: EventObservation, Iteration: 1, Text: strings.Repeat("x", 900)},
			"[1] Observation: " + strings.Repeat("x", 800) + " … (100 more bytes)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			NewTracePrinter(&b)(tt.e)
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}
