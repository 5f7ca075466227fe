package model

import (
	"context"
	"net/http/httptrace"
	"sync/atomic"
)

// RetryReason says why a model call that failed may be made again. A
// model makes one attempt a call; its caller's policy decides whether to
// make another, and when: at once for the reasons whose AtOnce is true,
// where the model changed what it sends (or the connection it sends it
// on), after a wait for the others, where the server may yet recover.
type RetryReason string

// The reasons an *Error gives in its Retry field.
const (
	// RetryNone means the call is not worth making again as it is.
	RetryNone RetryReason = ""
	// RetryParameterDropped means the server refused a parameter the
	// call can do without (stop sequences, the temperature), which the
	// model now leaves out of its calls.
	RetryParameterDropped RetryReason = "parameter_dropped"
	// RetryConstraintDropped means the server refused the constraint
	// that binds the reply (see Request.Constraint), which the model now
	// leaves out.
	RetryConstraintDropped RetryReason = "constraint_dropped"
	// RetryWindowGrown means the prompt, or the prompt and its reply, did
	// not fit the context window asked of the server, which the model
	// has now asked to be larger.
	RetryWindowGrown RetryReason = "window_grown"
	// RetryStaleConnection means the server closed a kept-alive
	// connection just as the call was sent on it, before any reply: the
	// next call goes on a new one.
	RetryStaleConnection RetryReason = "stale_connection"
	// RetryUnreachable means the server could not be reached.
	RetryUnreachable RetryReason = "unreachable"
	// RetryTimeout means the call took longer than its time limit
	// (ErrTimeout), or the server said it timed out (408).
	RetryTimeout RetryReason = "timeout"
	// RetryIdle means the server sent nothing for the idle time (ErrIdle).
	RetryIdle RetryReason = "idle"
	// RetryIncomplete means the reply ended before the server finished it
	// (ErrIncomplete, ErrStreamCut).
	RetryIncomplete RetryReason = "incomplete"
	// RetryRateLimited means the server limits the rate of calls (429).
	RetryRateLimited RetryReason = "rate_limited"
	// RetryServerError means the server failed (5xx).
	RetryServerError RetryReason = "server_error"
	// RetryNoReply means the model's response held no reply.
	RetryNoReply RetryReason = "no_reply"

	// The reasons of a caller that makes a call again with a request of
	// its own: the agent's.

	// RetryPromptFitted means the server found the prompt too long for
	// its context window, and the caller sends it again fitted to it.
	RetryPromptFitted RetryReason = "prompt_fitted"
	// RetryStopsInReasoning means the stop sequences cut the reply inside
	// its reasoning, where they do not apply, and the caller makes the
	// call again without them.
	RetryStopsInReasoning RetryReason = "stops_in_reasoning"
)

// AtOnce reports whether a call that failed for r is worth making again
// without a wait: the model changed what it sends, or where.
func (r RetryReason) AtOnce() bool {
	switch r {
	case RetryParameterDropped, RetryConstraintDropped, RetryWindowGrown, RetryStaleConnection:
		return true
	}
	return false
}

// Words says what r means in a few words, for a trace: "a parameter is
// left out after the server refused it".
func (r RetryReason) Words() string {
	switch r {
	case RetryParameterDropped:
		return "a parameter is left out after the server refused it"
	case RetryConstraintDropped:
		return "the constraint is left out after the server refused it"
	case RetryWindowGrown:
		return "the context window was too small, and is now larger"
	case RetryStaleConnection:
		return "the server closed the kept-alive connection before the reply"
	case RetryUnreachable:
		return "the server could not be reached"
	case RetryTimeout:
		return "the call timed out"
	case RetryIdle:
		return "the server sent nothing for too long"
	case RetryIncomplete:
		return "the reply was cut before the server finished it"
	case RetryRateLimited:
		return "the server limits the rate of calls"
	case RetryServerError:
		return "the server failed"
	case RetryNoReply:
		return "the response held no reply"
	case RetryPromptFitted:
		return "the prompt did not fit the context window, and was fitted to it"
	case RetryStopsInReasoning:
		return "the stop sequences cut the reply inside its reasoning, and are left out"
	}
	return "the call failed"
}

// staleError is a call sent on a kept-alive connection that the server
// closed before it answered: nothing of a reply came, and the server may
// never have read the call.
type staleError struct{ err error }

func (e *staleError) Error() string {
	return "the server closed the kept-alive connection before it answered (" + e.err.Error() + ")"
}

func (e *staleError) Unwrap() error { return e.err }

// reuse notes, in the context of a request, whether the request went out
// on a kept-alive connection.
func reuse(ctx context.Context) (context.Context, *atomic.Bool) {
	reused := &atomic.Bool{}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { reused.Store(info.Reused) },
	}), reused
}
