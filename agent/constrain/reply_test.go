package constrain

import (
	"strings"
	"testing"

	"github.com/react-agent/react-agent/tools"
)

// TestLlamaBindsALineThatStartsWithTheActionLabelAndNothingElse has
// llama.cpp's grammar read whole replies byte by byte: everything is free
// but a line that starts with "Action:" outside a reasoning block at the
// start, which must go on as a registered tool's call and end the reply.
func TestLlamaBindsALineThatStartsWithTheActionLabelAndNothingElse(t *testing.T) {
	requireLlama(t)
	reg, err := tools.NewRegistry(schemaTool{"add", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`})
	if err != nil {
		t.Fatal(err)
	}
	step := For(reg).Step()
	const call = "Action: add\nAction Input: {\"a\": 1, \"b\": 2}"
	long := strings.Repeat("Thought: the sky is blue, and no line here starts with the label; Action: is mid-line.\n", 1200)
	tests := []struct {
		name     string
		thinking bool // the prompt opened the reasoning block
		text     string
		fit      bool
	}{
		{"a call after a thought", false, "Thought: I add.\n" + call, true},
		{"a call first", false, call, true},
		{"a call after blank lines", false, "\n\n" + call, true},
		{"a final answer", false, "Thought: I know it.\nFinal Answer: 3, and Action: nothing here", true},
		{"a reply the model ended early", false, "Thought: I will\nActio", true},
		{"an unknown tool on a line of its own", false, "Thought: I add.\nAction: sum\nAction Input: {}", false},
		{"arguments that do not fit", false, "Thought: I add.\nAction: add\nAction Input: {\"a\": \"one\"}", false},
		{"text after the call", false, "Thought: I add.\n" + call + "\nObservation: 3", false},
		{"a label inside the reasoning block at the start", false, "<think>\nAction: sum\nmaybe not\n</think>\nThought: I add.\n" + call, true},
		{"a reasoning block after blank lines", false, " \n<think>Action: sum</think>\n" + call, true},
		{"a reply that ends inside the reasoning block", false, "<think>\nAction: sum\nAction Input: {", true},
		{"an unknown tool right after the reasoning block", false, "<think>hm</think>Action: sum", false},
		{"a call right after the reasoning block", false, "<think>hm</think>" + call, true},
		{"a reasoning block that is not at the start", false, "Thought: x\n<think>\nAction: sum", false},
		{"a tag that only looks like one", false, "<thinking>\nAction: sum", false},
		{"a long reply that never calls", false, long, true},
		{"the rest of an opened reasoning block", true, "I could call\nAction: sum\n</think>\nThought: I add.\n" + call, true},
		{"an opened reasoning block, not closed", true, "Action: sum and on and on", true},
		{"an unknown tool after an opened reasoning block", true, "hm</think>\nAction: sum", false},
		{"a closing tag that only looks like one", true, "hm</thinker>\nAction: sum", true},
		// Other spellings of the label, which the parser reads as calls,
		// may not start a line: a call is the bound one or none.
		{"a bold label", false, "Thought: I add.\n**Action:** sum\nAction Input: {}", false},
		{"a bold label, its colon after", false, "Thought: I add.\n**Action**: sum", false},
		{"a label after spaces", false, "Thought: I add.\n  Action: sum\nAction Input: {}", false},
		{"a label after a tab", false, "Thought: I add.\n\tAction: sum", false},
		{"a label with a fullwidth colon", false, "Thought: I add.\nAction：sum", false},
		{"a label in lower case", false, "Thought: I add.\naction: sum", false},
		{"a label in capitals", false, "Thought: I add.\nACTION: sum", false},
		{"a Chinese label", false, "Thought: 加\n行动：sum", false},
		{"a Chinese label with a colon", false, "Thought: 加\n行动: sum", false},
		{"the other Chinese label", false, "Thought: 加\n动作：sum", false},
		{"lines that only start alike", false, "Thought: x\nActionable: yes\n  indented text\n**Actually** no\n行动计划\nFinal Answer: 3", true},
	}
	var texts []grammarText
	for _, tt := range tests {
		g := step.Grammar
		if tt.thinking {
			g = step.ThinkingGrammar
		}
		texts = append(texts, grammarText{tt.name, g, tt.text})
	}
	res := runSamples(t, sampleRequest{Model: tinyModel(t), Texts: texts})
	if len(res) != len(texts) {
		t.Fatalf("llama.cpp checked %d texts of %d", len(res), len(texts))
	}
	for i, r := range res {
		if took := r.Accepted && r.Complete; took != tests[i].fit {
			t.Errorf("%s: llama.cpp's grammar took %.80q: %v (every byte %v, then the end %v), want %v",
				tests[i].name, r.Text, took, r.Accepted, r.Complete, tests[i].fit)
		}
	}
}
