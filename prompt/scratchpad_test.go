package prompt

import (
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

func TestScratchpad(t *testing.T) {
	s := English().Begin("  What is 17 * 23 + 4?\n")
	s.AddStep(parser.Step{Kind: parser.KindAction, Thought: "I should compute it.", Action: "calculator",
		Args: map[string]any{"expression": "17 * 23 + 4"}}, "395\n")
	s.AddReply("  I think it is 395  ", "Invalid format: write an Action or a Final Answer.")
	s.AddFinalRequest()
	want := "Question: What is 17 * 23 + 4?\n\n" +
		"Thought: I should compute it.\nAction: calculator\nAction Input: {\"expression\":\"17 * 23 + 4\"}\nObservation: 395\n\n" +
		"I think it is 395\nObservation: Invalid format: write an Action or a Final Answer.\n\n" +
		english.finalPrompt
	if got := s.String(); got != want {
		t.Errorf("scratchpad:\n%s\nwant:\n%s", got, want)
	}
	if s.Len() != len(want) {
		t.Errorf("Len = %d, want %d", s.Len(), len(want))
	}
}

// TestScratchpadIsAppendOnly checks the property that servers' prefix caches
// rely on: the prompt of step N+1 starts with the exact bytes of the prompt
// of step N, whatever the steps hold.
func TestScratchpadIsAppendOnly(t *testing.T) {
	for _, tmpl := range []*Template{English(), Chinese()} {
		t.Run(tmpl.Name(), func(t *testing.T) {
			s := tmpl.Begin("问题 and question")
			prev := s.String()
			steps := []func(){
				func() {
					s.AddStep(parser.Step{Kind: parser.KindAction, Action: "search", Args: map[string]any{"query": "x"}}, "")
				},
				func() { s.AddReply("garbage <think>x</think>", "bad format") },
				func() {
					s.AddStep(parser.Step{Kind: parser.KindAction, Thought: "t", Action: "calculator",
						Args: map[string]any{"expression": "1+1", "n": 2.5}}, strings.Repeat("observation ", 1000))
				},
				func() { s.AddFinalRequest() },
			}
			for i, step := range steps {
				step()
				got := s.String()
				if !strings.HasPrefix(got, prev) || len(got) <= len(prev) {
					t.Fatalf("step %d: the prompt does not extend the previous one", i+1)
				}
				prev = got
			}
		})
	}
}
