package logs

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/parser"
)

// Session records the runs of one command in the log, one after another,
// in one conversation: a new one, or one the log holds already (see
// [Session.Continue]). [Session.Begin] starts a run, [Session.Event]
// records the events the agent reports meanwhile, and [Session.End] ends
// it.
//
// The run never waits on the log: Begin, Event and End queue what they
// record, and one goroutine writes it in order. When another process
// holds the log's write lock, the writes wait for it, however long, and
// go on when it frees, so that the run's record is whole; only
// [Session.Close] waits for them, a bounded time (see [WithCloseWait]).
// What is queued is bounded too, by [MaxQueued] bytes: past it, events
// are dropped, and Close says how many.
//
// A write that fails does not stop the run: its error is kept, and
// [Session.Close] returns it. A nil *Session records nothing, so that a
// run without the log needs no other path. A Session is safe for
// concurrent use.
type Session struct {
	store *Store
	w     *writer

	mu    sync.Mutex
	id    string
	meta  Run // provider, model, server and protocol of each run
	cur   *pending
	last  Run // the latest run of the continued conversation
	turns []Turn
}

// OpenSession opens the log at path (see [Open]) and starts a session in
// a new conversation. [Session.Close] closes the log.
func OpenSession(ctx context.Context, path string, opts ...Option) (*Session, error) {
	store, err := Open(ctx, path, opts...)
	if err != nil {
		return nil, err
	}
	return &Session{store: store, id: NewID(), w: newWriter(store)}, nil
}

// Continue makes the session go on with a conversation of the log: the
// one whose ID is id or starts with it, or, when id is empty, that of the
// latest run. Its questions and answers are then [Session.Turns], and its
// latest run is [Session.Continued]. It returns an error wrapping
// [ErrNotFound] when there is no such conversation, and the session stays
// in a new one.
func (s *Session) Continue(ctx context.Context, id string) error {
	var err error
	if id == "" {
		id, err = s.store.Latest(ctx)
	} else {
		id, err = s.store.Resolve(ctx, id)
	}
	if err != nil {
		return err
	}
	runs, err := s.store.runs(ctx, id)
	if err != nil {
		return err
	}
	turns, err := s.store.Turns(ctx, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id, s.last, s.turns = id, runs[len(runs)-1], turns
	return nil
}

// Continued returns the latest run of the conversation the session
// continues, without its events, and false when the session started a new
// conversation. Its Provider, Model and BaseURL are what the conversation
// was having; the log keeps no API key.
func (s *Session) Continued() (Run, bool) {
	if s == nil {
		return Run{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.last.ID != 0
}

// SameServer reports whether baseURL is the server URL of the continued
// conversation with the secrets the log leaves out (a password, a key in
// its query): the URL to go on with, since the log's copy lacks them.
func (s *Session) SameServer(baseURL string) bool {
	if s == nil {
		return false
	}
	last, _ := s.Continued()
	return baseURL != "" && s.store.redactURL(baseURL) == last.BaseURL
}

// Turns returns the questions of the continued conversation that have an
// answer, with their answers, oldest first: what it remembers.
func (s *Session) Turns() []Turn {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns
}

// ID returns the ID of the session's conversation; empty for a nil
// Session.
func (s *Session) ID() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Use sets the provider (and whether it was found), model, server URL,
// protocol, prompt, its language and the tools chosen, written with each
// run from now on; the other fields of meta are ignored.
func (s *Session) Use(meta Run) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meta = Run{Provider: meta.Provider, ProviderFound: meta.ProviderFound, Model: meta.Model, BaseURL: meta.BaseURL, Protocol: meta.Protocol,
		Prompt: meta.Prompt, PromptFile: meta.PromptFile, Lang: meta.Lang, Tools: slices.Clone(meta.Tools)}
}

// Begin starts a run that asks question, with context attached (empty
// when there is none). A run begun before and not ended stays
// unfinished.
func (s *Session) Begin(ctx context.Context, question, context string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.meta
	r.Conversation, r.Question, r.Context, r.Started = s.id, question, context, time.Now()
	s.cur = &pending{}
	s.w.push(op{run: s.cur, start: &r})
}

// Event records an event the agent reported at the end of the current
// run; without one it does nothing. Model events are left out: their
// messages are the question and the events again.
func (s *Session) Event(e event.Event) {
	if s == nil || e.Kind == event.Model {
		return
	}
	logged := Event{Kind: string(e.Kind), Iteration: e.Iteration, Text: e.Text, Reasoning: e.Reasoning,
		Tool: e.Tool, Args: e.Args, Failed: e.Failed, Forced: e.Forced, StopReason: string(e.StopReason),
		Duration: e.Duration, Elapsed: e.Elapsed}
	var pe *parser.Error
	if e.Kind == event.ParseError && errors.As(e.Err, &pe) && pe.Err != nil {
		logged.Problem = pe.Err.Error()
	}
	if e.Kind == event.Retry {
		logged.Args = map[string]any{attemptKey: e.Attempt, waitKey: e.Wait.Milliseconds(), reasonKey: string(e.RetryReason)}
	}
	s.Add(logged)
}

// The keys of a retry event's attempt, wait and reason in its args.
const (
	attemptKey = "attempt"
	waitKey    = "wait_ms"
	reasonKey  = "reason"
)

// agentEvent returns e as the agent reported it, with the fields the log
// keeps, for the trace to show.
func (e Event) agentEvent() event.Event {
	ae := event.Event{Kind: event.Kind(e.Kind), Iteration: e.Iteration, Text: e.Text, Reasoning: e.Reasoning,
		Tool: e.Tool, Args: e.Args, Failed: e.Failed, Forced: e.Forced, StopReason: event.StopReason(e.StopReason),
		Duration: e.Duration, Elapsed: e.Elapsed}
	if e.Problem != "" {
		// As the parser gave it: the trace shows people the problem.
		ae.Err = &parser.Error{Err: errors.New(e.Problem), Message: e.Text}
	}
	if e.Kind == string(event.Retry) {
		attempt, _ := e.Args[attemptKey].(float64)
		wait, _ := e.Args[waitKey].(float64)
		reason, _ := e.Args[reasonKey].(string)
		ae.Args, ae.Attempt, ae.Wait, ae.RetryReason = nil, int(attempt), time.Duration(wait)*time.Millisecond, event.RetryReason(reason)
	}
	return ae
}

// Add records e at the end of the current run; without one it does
// nothing.
func (s *Session) Add(e Event) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		s.w.push(op{run: s.cur, event: &e})
	}
}

// End records how the current run ended; without one it does nothing.
func (s *Session) End(ctx context.Context, o Outcome) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		if o.Finished.IsZero() {
			o.Finished = time.Now()
		}
		s.w.push(op{run: s.cur, outcome: &o})
		s.cur = nil
	}
}

// Flush waits until what the session recorded is written, or ctx ends,
// and returns ctx's error in that case.
func (s *Session) Flush(ctx context.Context) error {
	if s == nil {
		return nil
	}
	return s.w.flush(ctx)
}

// Restart makes the runs that follow a new conversation, as when a chat
// forgets what was said.
func (s *Session) Restart() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id, s.last, s.turns = NewID(), Run{}, nil
}

// Close writes what is left to write, waiting for a lock another process
// holds at most the time [WithCloseWait] sets, closes the log, and
// returns the errors of the writes that failed, joined, with what was not
// written; or nil.
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	errs := s.w.close(s.store.closeWait)
	if !s.w.stuck() {
		errs = append(errs, s.store.Close())
	}
	return errors.Join(errs...)
}
