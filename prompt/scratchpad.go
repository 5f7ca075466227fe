package prompt

import (
	"strings"

	"github.com/react-agent/react-agent/parser"
)

// Scratchpad is the user part of the prompt: the question, then every step
// of the run so far with its observation. It only ever grows, so each
// String starts with the bytes of every earlier String; it never copies
// what it has already written. The zero Scratchpad is not usable; start one
// with [Template.Begin].
//
// A run's scratchpad reads:
//
//	Question: What is 17 * 23 + 4?
//
//	Thought: I should compute it.
//	Action: calculator
//	Action Input: {"expression": "17 * 23 + 4"}
//	Observation: 395
//
// and the model continues with its next Thought.
type Scratchpad struct {
	b     strings.Builder
	words words
}

// Begin starts the scratchpad of a run that answers question.
func (t *Template) Begin(question string) *Scratchpad {
	s := &Scratchpad{words: t.words}
	s.b.Grow(len(question) + 4096)
	s.b.WriteString(t.words.question)
	s.b.WriteString(strings.TrimSpace(question))
	s.b.WriteString("\n\n")
	return s
}

// AddStep appends a parsed step, in the canonical form of [FormatStep] (of
// [FormatObject] for the [JSONObject] template), and the observation it
// produced.
func (s *Scratchpad) AddStep(step parser.Step, observation string) {
	if s.words.object {
		s.b.WriteString(FormatObject(step))
	} else {
		s.b.WriteString(FormatStep(step))
	}
	s.observe(observation)
}

// AddReply appends a reply that could not be parsed, as the model wrote it
// but trimmed, and the observation that tells the model what went wrong.
func (s *Scratchpad) AddReply(reply, observation string) {
	s.b.WriteString(strings.TrimSpace(reply))
	s.observe(observation)
}

// AddFinalRequest appends the request for a final answer that the agent
// makes when it reaches a limit.
func (s *Scratchpad) AddFinalRequest() {
	s.b.WriteString(s.words.finalPrompt)
}

func (s *Scratchpad) observe(observation string) {
	s.b.WriteString("\nObservation: ")
	s.b.WriteString(strings.TrimSpace(observation))
	s.b.WriteString("\n\n")
}

// String returns the scratchpad so far.
func (s *Scratchpad) String() string { return s.b.String() }

// Len returns the length of the scratchpad in bytes.
func (s *Scratchpad) Len() int { return s.b.Len() }
