package parser_test

import (
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

func TestSplitReasoning(t *testing.T) {
	tests := []struct {
		name, in, reasoning, rest string
	}{
		{"no reasoning", "Thought: a\nFinal Answer: b", "", "Thought: a\nFinal Answer: b"},
		{"a think block", "<think>\nhmm\n</think>\nFinal Answer: b", "hmm", "\nFinal Answer: b"},
		{"any case and other tags", "<Thinking>x</Thinking>A<reasoning>y</reasoning>B", "x\ny", "AB"},
		{"an unclosed block runs to the end", "Thought: a\n<think>still going", "still going", "Thought: a\n"},
		{"a closing tag alone ends reasoning begun in the prompt", "pondering\n</think>\nFinal Answer: b", "pondering", "\nFinal Answer: b"},
		{"a stray closing tag after a block is dropped", "<think>a</think>b</think>c", "a", "bc"},
		{"other tags stay", "<b>bold</b> and <thinker>", "", "<b>bold</b> and <thinker>"},
		{"a block inside a block of another tag", "<think>a<reasoning>b</think>c", "a<reasoning>b", "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, rest := parser.SplitReasoning(tt.in)
			if r != tt.reasoning || rest != tt.rest {
				t.Errorf("got %q, %q; want %q, %q", r, rest, tt.reasoning, tt.rest)
			}
		})
	}
}

func TestReasoningIsNeverProtocol(t *testing.T) {
	p := parser.New(builtins)
	cases := []struct{ name, text string }{
		{"unclosed block with no step inside", "<think>\nI could run shell with rm -rf /, or {\"action\": \"shell\"}"},
		{"unclosed block with only a thought inside", "<think>\nThought: I could run the shell."},
		{"only reasoning", "<think>Final Answer: 4</think>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := p.Parse(c.text)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error: reasoning is not protocol", c.text, st)
			}
			if !strings.Contains(err.Error(), "</think>") && !strings.Contains(err.Error(), "reasoning") {
				t.Errorf("the message %q should say the reply held only reasoning", err)
			}
		})
	}
}

func TestReasoningEnd(t *testing.T) {
	tests := []struct {
		in   string
		end  int
		open bool
	}{
		{"plain", 0, false},
		{"<think>abc", 0, true},
		{"<think>abc</think>done", len("<think>abc</think>"), false},
		{"<think>a</think><THINK>b", len("<think>a</think>"), true},
		{"pondering</think>rest", len("pondering</think>"), false},
		{"<thinking>a</think>b", 0, true},
	}
	for _, tt := range tests {
		end, open := parser.ReasoningEnd(tt.in)
		if end != tt.end || open != tt.open {
			t.Errorf("ReasoningEnd(%q) = %d, %v; want %d, %v", tt.in, end, open, tt.end, tt.open)
		}
	}
}
