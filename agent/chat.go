package agent

import (
	"context"
	"sync"
)

// Turn is one question of a conversation and its answer, which is empty
// when the question got none (the run failed, or was cancelled).
type Turn struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// noAnswer is what the model is shown as its answer to an earlier
// question that got none, in either protocol: the question stays part of
// the conversation, which a later one may refer to.
const noAnswer = "I could not answer this question."

// answerShown returns the answer of a turn as the model is shown it.
func (t Turn) answerShown() string {
	if t.Answer == "" {
		return noAnswer
	}
	return t.Answer
}

// Chat is a conversation with an agent: each question is asked with the
// earlier questions and answers before it, so that it can refer to them
// ("and divided by 3?"). A Chat is safe for concurrent use; questions are
// answered one at a time.
type Chat struct {
	a        *Agent
	maxTurns int
	mu       sync.Mutex
	turns    []Turn
	asked    int // the questions asked, for the events' turn numbers
}

// NewChat starts a conversation with a that remembers up to maxTurns
// earlier turns (all of them when maxTurns <= 0).
func NewChat(a *Agent, maxTurns int) *Chat {
	return &Chat{a: a, maxTurns: maxTurns}
}

// Ask answers question in the light of the conversation so far, and
// remembers the question with its answer, or with none when the run gave
// none: the model is shown, in either protocol, that it could not answer
// it, and a later question may still refer to it.
func (c *Chat) Ask(ctx context.Context, question string) (*Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	res, err := c.a.answer(ctx, c.turns, question, c.asked)
	c.turns = append(c.turns, Turn{Question: question, Answer: res.Answer})
	if c.maxTurns > 0 && len(c.turns) > c.maxTurns {
		c.turns = append(c.turns[:0:0], c.turns[len(c.turns)-c.maxTurns:]...)
	}
	return res, err
}

// History returns the remembered turns, oldest first.
func (c *Chat) History() []Turn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Turn(nil), c.turns...)
}

// Resume makes turns, oldest first, the conversation so far, in place of
// what the chat remembered: the way to go on with a conversation kept
// from an earlier session. It keeps the last maxTurns of them.
func (c *Chat) Resume(turns []Turn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.maxTurns > 0 && len(turns) > c.maxTurns {
		turns = turns[len(turns)-c.maxTurns:]
	}
	c.turns = append([]Turn(nil), turns...)
	c.asked = len(c.turns) // the next question's turn follows them
}

// Reset forgets the conversation.
func (c *Chat) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.turns = nil
}
