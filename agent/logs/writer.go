package logs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/react-agent/react-agent/tools/bounded"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// MaxQueued bounds, in bytes of text, what a [Session] holds in memory
// waiting to be written, when another process keeps the log locked: past
// it, events are dropped (a run's start and end are always kept), and
// [Session.Close] says how many. A run rarely records more than a few
// megabytes.
const MaxQueued = 64 << 20

// DefaultCloseWait is how long [Session.Close] waits for the writes still
// queued, when another process keeps the log locked, unless
// [WithCloseWait] says otherwise.
const DefaultCloseWait = 10 * time.Second

// WithCloseWait sets how long [Session.Close] waits for the writes still
// queued before it gives up on them and says what was not written
// (default [DefaultCloseWait]). It waits that long only when another
// process keeps the log locked.
func WithCloseWait(d time.Duration) Option {
	return func(s *Store) { s.closeWait = d }
}

// pending is a run of a Session as its writer knows it.
type pending struct {
	rec *Recorder // nil until its start is written, or when that failed
}

// op is one write a Session queued: a run's start, one of its events or
// its end.
type op struct {
	run     *pending
	start   *Run
	event   *Event
	outcome *Outcome
}

// size is about how many bytes op holds.
func (o op) size() int {
	switch {
	case o.start != nil:
		return 256 + len(o.start.Question) + len(o.start.Context)
	case o.event != nil:
		return 128 + len(o.event.Text) + len(o.event.Reasoning) + len(o.event.Tool) + sizeOf(o.event.Args)
	case o.outcome != nil:
		return 128 + len(o.outcome.Answer) + len(o.outcome.Error)
	}
	return 0
}

// sizeOf is about how many bytes a value as JSON decodes it holds.
func sizeOf(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case map[string]any:
		n := 0
		for k, x := range v {
			n += 16 + len(k) + sizeOf(x)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += 8 + sizeOf(x)
		}
		return n
	}
	return 16
}

// writer writes what a Session queues, in order, in a goroutine of its
// own, so that the run never waits on the log. A write that finds the log
// locked by another process is made again until it goes through, or until
// close gives up on it.
type writer struct {
	store  *Store
	limit  int             // MaxQueued
	ctx    context.Context // cancelled when close gives up
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine ends
	wake   chan struct{}

	mu       sync.Mutex
	queue    []op
	queued   int  // bytes in queue
	writing  bool // an op taken from queue is being written
	closed   bool
	progress chan struct{} // closed, and replaced, after each write
	errs     []error
	failures int    // errors beyond those in errs
	dropped  int    // events dropped past MaxQueued
	lost     [3]int // starts, events and ends not written when close gave up
}

func newWriter(store *Store) *writer {
	ctx, cancel := context.WithCancel(context.Background())
	w := &writer{store: store, limit: MaxQueued, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		wake: make(chan struct{}, 1), progress: make(chan struct{})}
	go w.run()
	return w
}

// push queues o, or drops it when it is an event past MaxQueued.
func (w *writer) push(o op) {
	w.mu.Lock()
	n := o.size()
	switch {
	case w.closed:
		w.mu.Unlock()
		return
	case o.event != nil && w.queued+n > w.limit:
		w.dropped++
		w.mu.Unlock()
		return
	}
	w.queue = append(w.queue, o)
	w.queued += n
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run writes what is queued until the writer is closed and the queue is
// empty.
func (w *writer) run() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closed {
			w.mu.Unlock()
			<-w.wake
			w.mu.Lock()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		o := w.queue[0]
		w.queue[0] = op{}
		w.queue = w.queue[1:]
		w.writing = true
		w.mu.Unlock()

		err := w.write(o)

		w.mu.Lock()
		w.queued -= o.size()
		w.writing = false
		switch {
		case err != nil && w.ctx.Err() != nil:
			w.lose(o)
		case err != nil && len(w.errs) < 3:
			w.errs = append(w.errs, err)
		case err != nil:
			w.failures++
		}
		close(w.progress)
		w.progress = make(chan struct{})
		w.mu.Unlock()
	}
}

// lose counts o as not written. The caller holds w.mu.
func (w *writer) lose(o op) {
	switch {
	case o.start != nil:
		w.lost[0]++
	case o.event != nil:
		w.lost[1]++
	case o.outcome != nil:
		w.lost[2]++
	}
}

// write writes o, again and again while another process holds the log's
// lock (each attempt waits for it up to BusyTimeout), until it goes
// through, fails otherwise, or close gives up.
func (w *writer) write(o op) error {
	pause := 10 * time.Millisecond
	for {
		err := w.writeOnce(o)
		if err == nil || !locked(err) || w.ctx.Err() != nil {
			return err
		}
		// A lock SQLite does not wait for (one taken to recover the
		// log's index, say) fails at once: wait a little, more each time.
		select {
		case <-w.ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
	}
}

func (w *writer) writeOnce(o op) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	switch {
	case o.start != nil:
		rec, err := w.store.Start(w.ctx, *o.start)
		o.run.rec = rec
		return err
	case o.run.rec == nil:
		return nil // its start failed, and said so
	case o.event != nil:
		return o.run.rec.Add(w.ctx, *o.event)
	case o.outcome != nil:
		return o.run.rec.Finish(w.ctx, *o.outcome)
	}
	return nil
}

// locked reports whether err says another connection holds the lock the
// write needed.
func locked(err error) bool {
	var e *sqlite.Error
	if errors.As(err, &e) {
		code := e.Code() & 0xff
		return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
	}
	return strings.Contains(err.Error(), "SQLITE_BUSY")
}

// flush waits until the queue is written, or ctx ends.
func (w *writer) flush(ctx context.Context) error {
	for {
		w.mu.Lock()
		if len(w.queue) == 0 && !w.writing {
			w.mu.Unlock()
			return nil
		}
		progress := w.progress
		w.mu.Unlock()
		select {
		case <-progress:
		case <-w.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close writes what is queued, waiting at most wait, then gives up on
// what is left, and returns the errors of the writes, with what was not
// written.
func (w *writer) close(wait time.Duration) []error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-w.done:
	case <-timer.C:
		w.cancel()
		// A write waiting on the lock stops within BusyTimeout.
		select {
		case <-w.done:
		case <-time.After(BusyTimeout + time.Second):
		}
	}
	w.cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	errs := w.errs
	if w.failures > 0 {
		errs = append(errs, fmt.Errorf("and %d more writes failed", w.failures))
	}
	if lost := w.lost[0] + w.lost[1] + w.lost[2] + len(w.queue); lost > 0 {
		for _, o := range w.queue {
			w.lose(o)
		}
		errs = append(errs, fmt.Errorf("another process kept the log locked for more than %s: %s not written", wait, lostText(w.lost)))
	}
	if w.dropped > 0 {
		errs = append(errs, fmt.Errorf("another process kept the log locked while more than %s waited to be written: %s dropped", bounded.Size(int64(w.limit)), count(w.dropped, "event", "events")))
	}
	return errs
}

// stuck reports whether the goroutine is still writing after close.
func (w *writer) stuck() bool {
	select {
	case <-w.done:
		return false
	default:
		return true
	}
}

// lostText says what was not written: "1 run's start, 7 events and 1
// run's end".
func lostText(lost [3]int) string {
	var parts []string
	if lost[0] > 0 {
		parts = append(parts, count(lost[0], "run's start", "runs' starts"))
	}
	if lost[1] > 0 {
		parts = append(parts, count(lost[1], "event", "events"))
	}
	if lost[2] > 0 {
		parts = append(parts, count(lost[2], "run's end", "runs' ends"))
	}
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// count is n with the word for one or for several.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
