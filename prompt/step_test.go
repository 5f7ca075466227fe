package prompt

import (
	"testing"

	"github.com/react-agent/react-agent/parser"
)

func TestCanonical(t *testing.T) {
	add := parser.Step{Kind: parser.KindAction, Thought: "I will add.", Action: "add", Args: map[string]any{"a": 1.0, "b": 2.0}}
	final := parser.Step{Kind: parser.KindFinal, Thought: "done", FinalAnswer: "3"}
	tests := []struct {
		name  string
		reply string
		step  parser.Step
		want  bool
	}{
		{"a step as FormatStep writes it", FormatStep(add), add, true},
		{"a final answer as FormatStep writes it", FormatStep(final), final, true},
		{"the JSON spaced and ordered otherwise", "Thought: I will add.\nAction: add\nAction Input: {\"b\":2, \"a\": 1}", add, true},
		{"no thought", "Action: add\nAction Input: {\"a\": 1, \"b\": 2}", add, true},
		{"reasoning before the step", "<think>hm</think>\n" + FormatStep(add), add, true},
		{"a thought of two lines", "Thought: I\nwill add.\nAction: add\nAction Input: {\"a\": 1, \"b\": 2}", add, false},
		{"labels in markdown", "**Action:** add\n**Action Input:** {\"a\": 1, \"b\": 2}", add, false},
		{"an input that is no object", "Action: add\nAction Input: 1, 2", add, false},
		{"a tool named otherwise", "Action: Add\nAction Input: {\"a\": 1, \"b\": 2}", add, false},
		{"an empty answer", "Final Answer: ", final, false},
		{"an answer for an action", "Final Answer: 3", add, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Canonical(tt.reply, tt.step); got != tt.want {
				t.Errorf("Canonical(%q) = %v, want %v", tt.reply, got, tt.want)
			}
		})
	}
}

// TestTheStopSequencesStartObservations checks that each stop sequence
// starts a line the parser reads as an observation the model made up:
// the reply a server stops there is the one the parser would have cut.
func TestTheStopSequencesStartObservations(t *testing.T) {
	for _, stop := range StopSequences() {
		reply := "Action: add[1, 2]" + stop + ": 3"
		if got := parser.ObservationAt(reply); got != len("Action: add[1, 2]")+1 {
			t.Errorf("%q: the parser reads an observation at %d, want %d", reply, got, len("Action: add[1, 2]")+1)
		}
	}
}
