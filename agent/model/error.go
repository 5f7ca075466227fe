package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sentinel causes of the errors of New and of model calls, for errors.Is.
var (
	// ErrUnknownProvider means Config.Provider names no provider.
	ErrUnknownProvider = errors.New("unknown provider")
	// ErrNoAPIKey means a hosted provider was chosen without a key.
	ErrNoAPIKey = errors.New("no API key")
	// ErrBadURL means Config.BaseURL is not a server address.
	ErrBadURL = errors.New("bad server URL")
	// ErrNoCassette means the replay provider was chosen without a cassette.
	ErrNoCassette = errors.New("no cassette")
	// ErrDiverged means a replayed run asked for something its cassette
	// did not record.
	ErrDiverged = errors.New("the run has diverged from the recording")
	// ErrTimeout is the cause to give a call's context when the call takes
	// too long (context.WithTimeoutCause); such a call is retried like any
	// transient failure.
	ErrTimeout = errors.New("the model did not answer in time")
	// ErrContextOverflow means the prompt does not fit the model's context
	// window: the server refused it (llama-server's
	// exceed_context_size_error, Ollama's "the input length exceeds the
	// context length"), cut it, or the client knew it could not fit. The
	// error's PromptTokens and ContextTokens say by how much, when known.
	ErrContextOverflow = errors.New("the prompt does not fit the model's context window")
	// ErrContextFull means the prompt fitted the context window but the
	// reply filled the rest of it before it ended: llama-server's
	// "truncated" reply, Ollama's "length" with the window full (asked not
	// to shift it). It matches ErrContextOverflow too.
	ErrContextFull error = contextFull{}
	// ErrNotUTF8 means the server could not send the model's reply because
	// the model wrote bytes that are not UTF-8 (llama-server answers 500,
	// "Failed to parse input"): asking again the same way gets the same.
	ErrNotUTF8 = errors.New("the model wrote text that is not UTF-8, which the server cannot send")
	// ErrMalformed means the server answered with something that is not
	// a reply in the protocol the client speaks: another kind of server,
	// or a broken one.
	ErrMalformed = errors.New("the server's reply is not in the protocol the client speaks")
	// ErrNoModel means the server has no model of the name asked for.
	ErrNoModel = errors.New("the server has no such model")
)

// contextFull is ErrContextFull: a prompt that does not fit the window
// with its reply.
type contextFull struct{}

func (contextFull) Error() string {
	return "the reply filled the model's context window before it ended"
}

// Is reports that a full window is a prompt that does not fit it.
func (contextFull) Is(target error) bool { return target == ErrContextOverflow }

// errSchemaRefused is the cause of a server's failure to make a grammar of
// a request's schema or grammar (Ollama's 500 "invalid JSON schema in
// format"): not a failure that passes, and a refused constraint.
var errSchemaRefused = errors.New("the server could not make a grammar of the constraint")

// Setting names what to change about a failed call: a field of Config,
// the caller's time limit, or the cassette of a recorded run. A command
// line chooses its advice (the flag to pass) by it.
type Setting int

// The settings an Error may name in its Fix field.
const (
	// NoSetting means that no setting would help.
	NoSetting Setting = iota
	// SettingProvider is Config.Provider.
	SettingProvider
	// SettingModel is Config.Model, or the sampling options sent with it.
	SettingModel
	// SettingBaseURL is Config.BaseURL.
	SettingBaseURL
	// SettingAPIKey is Config.APIKey.
	SettingAPIKey
	// SettingTimeout is the caller's time limit of the whole run.
	SettingTimeout
	// SettingMaxReplyBytes is Config.MaxReplyBytes.
	SettingMaxReplyBytes
	// SettingIdleTimeout is Config.IdleTimeout.
	SettingIdleTimeout
	// SettingReplay is the cassette replayed (package cassette's Open).
	SettingReplay
	// SettingRecord is the cassette recorded (package cassette's
	// NewRecorder): it is to be recorded again.
	SettingRecord
	// SettingNumCtx is Config.NumCtx, the context window asked of the
	// server.
	SettingNumCtx
	// SettingTemperature is Config.Temperature: a model that loops at
	// one temperature may write something else at a higher one.
	SettingTemperature
)

// String returns the name of the Config field s stands for, such as
// "BaseURL", or "Timeout" for the caller's time limit; "" for NoSetting.
func (s Setting) String() string {
	switch s {
	case SettingProvider:
		return "Provider"
	case SettingModel:
		return "Model"
	case SettingBaseURL:
		return "BaseURL"
	case SettingAPIKey:
		return "APIKey"
	case SettingTimeout:
		return "Timeout"
	case SettingMaxReplyBytes:
		return "MaxReplyBytes"
	case SettingIdleTimeout:
		return "IdleTimeout"
	case SettingReplay:
		return "Replay"
	case SettingRecord:
		return "Record"
	case SettingNumCtx:
		return "NumCtx"
	case SettingTemperature:
		return "Temperature"
	case NoSetting:
		return ""
	}
	return "Setting(" + strconv.Itoa(int(s)) + ")"
}

// Error is a failed model call, or a configuration New cannot use,
// classified so that callers know whether to retry it and people know
// what to change.
type Error struct {
	// Provider is the provider's name, such as "ollama", when known.
	Provider string
	// Model is the model's name, when known.
	Model string
	// URL is the server's URL, with any password removed, when known.
	URL string
	// StatusCode is the HTTP status of the failed response, or 0.
	StatusCode int
	// Temporary is true for failures worth retrying: the server could not
	// be reached, timed out, was rate limited (429) or failed (5xx), or
	// the model changed what it sends (see Retry).
	Temporary bool
	// Retry says why a Temporary failure is worth retrying, and whether
	// at once (see RetryReason.AtOnce); RetryNone for a failure that is
	// not, or whose reason the model does not know.
	Retry RetryReason
	// RetryAfter is how long the server asked to wait before trying again
	// (its Retry-After header, within MaxRetryAfter), or 0.
	RetryAfter time.Duration
	// Fix is the setting to change, such as SettingBaseURL or
	// SettingAPIKey; NoSetting when no setting would help.
	Fix Setting
	// PromptTokens and ContextTokens are the tokens of a prompt that did
	// not fit (ErrContextOverflow) and of the context window, when known;
	// else 0.
	PromptTokens, ContextTokens int
	// Detail says what is known of the failure beyond Err, in words that
	// name no setting ("cannot reach Ollama at http://127.0.0.1:11434",
	// "the prompt is 9000 tokens, more than the context window of 8192"),
	// when there is something to say.
	Detail string
	// Hint says what to do about it in words that name no setting ("start
	// it with `ollama serve`"), when there is something to say. A command
	// line that says it in its own words, with the flag Fix stands for,
	// says those instead.
	Hint string
	// Said is what the server answered, in its own words, when it
	// answered with an error status: "HTTP 429", "HTTP 401: Incorrect
	// API key provided…", "HTTP 500 within the reply"; its message is
	// left out when it only names the status. It is "" when no server
	// answered with an error. A command line shows it beside Detail,
	// which says what the status means.
	Said string
	// Fitting is, for a server that is not the kind the provider talks to
	// (ErrWrongServer), the provider that fits it, when known.
	Fitting string
	// Models are the models the server has, sorted, when the error is
	// ErrNoModel and the server said which it has; a command line may
	// offer the one meant.
	Models []string
	// Err is the underlying error.
	Err error
}

// Error returns the provider, what happened and what to do about it:
// "provider: Err; Detail: Hint".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	switch {
	case e.Detail != "" && e.Hint != "":
		b.WriteString("; " + e.Detail + ": " + e.Hint)
	case e.Detail != "":
		b.WriteString("; " + e.Detail)
	case e.Hint != "":
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Brief describes err without what to do about it: the warning of a
// retried call, when the advice comes once, with the final error, and
// the message a command line adds its own advice to.
func Brief(err error) string {
	var me *Error
	if !errors.As(err, &me) || me.Hint == "" {
		return err.Error()
	}
	brief := *me
	brief.Hint = ""
	return brief.Error()
}

// statusError is an HTTP response with an error status, or an error the
// server sent inside a reply it had begun, classified where it was read:
// by its status and the server's own error body.
type statusError struct {
	code       int
	msg        string        // the server's message
	retryAfter time.Duration // what the server's Retry-After asks, or 0
	detail     errorDetail   // what the body says beyond its message
	inStream   bool          // sent inside a reply begun with 200
	// object means the body's "error" is an object, as OpenAI's API and
	// the servers that speak it write it ({"error": {"message": …}});
	// Ollama's own API writes a string.
	object bool
	// kind is what the server's error means, for errors.Is: one of the
	// sentinels (ErrContextOverflow, ErrNotUTF8, ErrNoToolCalls, ErrNoModel,
	// errSchemaRefused), or nil.
	kind error
	// param is a request parameter the server refused that a call can
	// do without ("stop", "temperature"), or "".
	param string
}

func (e *statusError) Error() string {
	switch {
	case e.inStream && e.msg == "":
		return fmt.Sprintf("the server ended the reply with an error (%d)", e.code)
	case e.inStream:
		return fmt.Sprintf("the server ended the reply with an error (%d): %s", e.code, e.msg)
	case e.msg == "":
		return fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
	}
	return fmt.Sprintf("HTTP %d: %s", e.code, e.msg)
}

// said returns the server's error in its own words, for Error.Said: its
// status, where it came (within a reply it had begun), and its message
// unless the message only names the status.
func (e *statusError) said() string {
	s := fmt.Sprintf("HTTP %d", e.code)
	if e.inStream {
		s += " within the reply"
	}
	msg := strings.TrimSpace(e.msg)
	if msg == "" || strings.EqualFold(strings.TrimRight(msg, "."), http.StatusText(e.code)) {
		return s
	}
	return s + ": " + msg
}

// Unwrap returns what the server's error means, so that errors.Is finds
// ErrContextOverflow in a server's refusal of a prompt too long.
func (e *statusError) Unwrap() error { return e.kind }

// unreachableError is a request that never got a response.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// Classify turns any error of a model call into an *Error, deciding
// whether it is worth retrying. ctx is the context of the attempt; a cause
// of ErrTimeout marks the attempt as timed out. It reads the types the
// clients gave their errors where they read them, never an error's text.
func Classify(ctx context.Context, err error) *Error {
	var me *Error
	if errors.As(err, &me) {
		if me.Temporary && me.Retry == RetryNone {
			me.Retry = retryOf(me.StatusCode)
		}
		return me
	}
	e := &Error{Err: err}
	var se *statusError
	var ue *unreachableError
	var stale *staleError
	switch {
	case errors.Is(err, ErrReplyTooLarge), errors.Is(err, ErrLineTooLong), errors.Is(err, ErrWrongServer):
	case errors.Is(err, ErrIncomplete):
		e.Temporary, e.Retry = true, RetryIncomplete
	case errors.Is(err, ErrIdle):
		e.Temporary, e.Retry = true, RetryIdle
	case errors.Is(context.Cause(ctx), ErrTimeout) || errors.Is(err, ErrTimeout):
		if !errors.Is(err, ErrTimeout) {
			e.Err = fmt.Errorf("%w (%w)", ErrTimeout, err)
		}
		e.Temporary, e.Retry = true, RetryTimeout
	case errors.As(err, &se):
		e.StatusCode, e.RetryAfter, e.Said = se.code, se.retryAfter, se.said()
		e.PromptTokens, e.ContextTokens = se.detail.PromptTokens, se.detail.ContextTokens
	case errors.As(err, &stale):
		e.Temporary, e.Retry = true, RetryStaleConnection
	case errors.As(err, &ue), isNetError(err):
		e.Temporary = !refusedHere(err)
		if e.Temporary {
			e.Retry = RetryUnreachable
		}
	}
	switch c := e.StatusCode; {
	case errors.Is(err, ErrNotUTF8), errors.Is(err, ErrContextOverflow), errors.Is(err, errSchemaRefused):
		// The same request gets the same answer.
		e.Temporary = false
	case c == http.StatusTooManyRequests:
		e.Temporary, e.Retry = true, RetryRateLimited
	case c == http.StatusRequestTimeout:
		e.Temporary, e.Retry = true, RetryTimeout
	case c >= 500:
		e.Temporary, e.Retry = true, RetryServerError
	case c >= 400:
		e.Temporary = false
	}
	if !e.Temporary {
		e.Retry = RetryNone
	}
	return e
}

// retryOf returns why a call that failed with the HTTP status code is
// worth making again, as far as the status says.
func retryOf(code int) RetryReason {
	switch {
	case code == http.StatusTooManyRequests:
		return RetryRateLimited
	case code == http.StatusRequestTimeout:
		return RetryTimeout
	case code >= 500:
		return RetryServerError
	}
	return RetryNone
}

// refusedHere reports whether err is a connection that this machine
// refused: nothing listens at the port of a loopback address, and waiting
// does not start the server, so the call is not worth retrying. A remote
// host's refusal stays transient: it may be a server restarting behind
// its address, or a load balancer between two of them.
func refusedHere(err error) bool {
	var oe *net.OpError
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.As(err, &oe) {
		return false
	}
	a, ok := oe.Addr.(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// overflowWhat says what the prompt too large for the context window
// was, in numbers, when they are known.
func overflowWhat(e *Error) string {
	switch p, c := e.PromptTokens, e.ContextTokens; {
	case errors.Is(e.Err, ErrContextFull):
		return "the window is too small for the prompt and its reply"
	case p > 0 && c > 0:
		return fmt.Sprintf("the prompt is %d tokens, more than the context window of %d", p, c)
	case c > 0:
		return fmt.Sprintf("the prompt is larger than the context window of %d tokens", c)
	}
	return "the prompt is larger than the model's context window"
}

// overflowed says what is known of e, a prompt that does not fit the
// context window (ErrContextOverflow), and how the window can be made
// larger: by fix, in the words of larger, or, with larger "", not at all,
// as limit says. The sizes are said of a server's refusal; the clients'
// own errors say them already. Asking for less always helps, and goes
// without saying: a command line says it with its own flag.
func overflowed(e *Error, fix Setting, larger, limit string) {
	var details []string
	var se *statusError
	if errors.As(e.Err, &se) {
		details = append(details, overflowWhat(e))
	}
	if limit != "" {
		details = append(details, limit)
	}
	e.Fix, e.Detail, e.Hint = fix, strings.Join(details, "; "), larger
}

// explain fills in what to do about e, given the provider, the model and
// the server's URL. A client that knows more of its server (the window it
// can grow to) says so after.
func explain(e *Error, provider, model, where string) *Error {
	e.Provider, e.Model, e.URL = provider, model, where
	if where == "" {
		where = "the provider's API"
	}
	var ue *unreachableError
	unreachable := e.StatusCode == 0 && (e.Temporary || refusedHere(e.Err)) && !errors.Is(e.Err, ErrTimeout) &&
		!errors.Is(e.Err, ErrIdle) && !errors.Is(e.Err, ErrIncomplete) && e.Retry != RetryStaleConnection &&
		(errors.As(e.Err, &ue) || isNetError(e.Err))
	switch {
	case unreachable && provider == ollamaProvider.Name:
		e.Fix, e.Detail, e.Hint = SettingBaseURL, fmt.Sprintf("cannot reach Ollama at %s", where), "start it with `ollama serve`"
	case unreachable:
		e.Fix, e.Detail, e.Hint = SettingBaseURL, fmt.Sprintf("cannot reach the server at %s", where), "check that it is running"
	case errors.Is(e.Err, ErrStreamCut):
		e.Fix = NoSetting
		e.Detail = "Ollama does so when the model writes one token more than 30 times in a row (its repeat limit), " +
			"and when the runner that generates the reply fails"
		e.Hint = "the server's log says which (the repeat limit only with OLLAMA_DEBUG=1)"
	case errors.Is(e.Err, ErrIncomplete):
		e.Hint = fmt.Sprintf("the server at %s may have stopped or failed mid-reply: its log says why", where)
	case errors.Is(e.Err, ErrTimeout):
		e.Fix, e.Hint = SettingTimeout, "use a smaller or faster model"
	case errors.Is(e.Err, ErrReplyTooLarge):
		e.Fix, e.Detail = SettingMaxReplyBytes, "the server sent more than a reply should hold"
	case errors.Is(e.Err, ErrLineTooLong):
		e.Detail = fmt.Sprintf("the server at %s sent more in one line than a piece of a reply holds", where)
	case errors.Is(e.Err, ErrIdle):
		e.Fix, e.Detail = SettingIdleTimeout, fmt.Sprintf("the server at %s stopped answering", where)
	case errors.Is(e.Err, ErrContextOverflow):
		overflowed(e, NoSetting, "give the server's model a larger context", "")
	case errors.Is(e.Err, ErrNotUTF8):
		e.Detail, e.Hint = "the model wrote bytes that are no text", "try a lower temperature, other sampling options or another model"
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		e.Fix, e.Detail = SettingAPIKey, "the server refused the API key"
		if p, ok := Lookup(provider); ok && p.KeyEnv != "" {
			e.Hint = "set a valid key in " + p.KeyEnv
		}
	case errors.Is(e.Err, ErrNoModel) && provider == ollamaProvider.Name:
		e.Fix, e.Detail, e.Hint = SettingModel, fmt.Sprintf("the model %q is not installed", model), fmt.Sprintf("run `ollama pull %s`", model)
	case e.StatusCode == http.StatusNotFound:
		e.Fix, e.Detail = SettingModel, fmt.Sprintf("the server at %s has no model %q or no such endpoint", where, model)
	case e.StatusCode == http.StatusBadRequest:
		e.Fix, e.Detail = SettingModel, "the server rejected the request"
	case e.StatusCode == http.StatusTooManyRequests:
		e.Detail, e.Hint = "the provider is rate limiting requests", "wait and try again"
	case e.StatusCode >= 500:
		e.Detail, e.Hint = "the server failed", "try again later or look at its logs"
	}
	return e
}
