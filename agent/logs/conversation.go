package logs

import (
	"context"
	"errors"
	"sync"
)

// Conversation records the runs of one conversation one after another,
// as a chat asks its questions: [Conversation.Begin] starts a run,
// [Conversation.Add] writes the events the agent reports meanwhile, and
// [Conversation.End] ends it. A failed write does not stop the run; the
// errors are kept for [Conversation.Err]. A Conversation is safe for
// concurrent use.
type Conversation struct {
	s    *Store
	meta Run

	mu   sync.Mutex
	id   string
	cur  *Recorder
	errs []error
}

// Conversation returns a recorder for the conversation id, or for a new
// conversation when id is empty. The provider, model and protocol of meta
// are written with each run.
func (s *Store) Conversation(id string, meta Run) *Conversation {
	if id == "" {
		id = NewID()
	}
	return &Conversation{s: s, meta: meta, id: id}
}

// ID returns the conversation's ID.
func (c *Conversation) ID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

// Begin starts a run that asks question, with context attached (empty
// when there is none). A run begun before and not ended stays
// unfinished.
func (c *Conversation) Begin(ctx context.Context, question, context string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.meta
	r.Conversation, r.Question, r.Context = c.id, question, context
	rec, err := c.s.Start(ctx, r)
	c.cur = rec
	c.keep(err)
}

// Add writes e at the end of the current run; without one it does
// nothing. It writes with a context of its own, so that the last events
// of a cancelled run are kept.
func (c *Conversation) Add(e Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil {
		c.keep(c.cur.Add(context.Background(), e))
	}
}

// End writes how the current run ended; without one it does nothing.
func (c *Conversation) End(ctx context.Context, o Outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil {
		c.keep(c.cur.Finish(ctx, o))
		c.cur = nil
	}
}

// Restart makes the runs that follow a new conversation, as when a chat
// forgets what was said.
func (c *Conversation) Restart() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.id = NewID()
}

// Err returns the errors of the writes that failed, joined, or nil.
func (c *Conversation) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.errs...)
}

// keep remembers err, if any, up to a few. The caller holds c.mu.
func (c *Conversation) keep(err error) {
	if err != nil && len(c.errs) < 3 {
		c.errs = append(c.errs, err)
	}
}
