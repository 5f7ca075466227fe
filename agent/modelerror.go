package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// ModelError is a failed model call, classified so that the agent knows
// whether to retry it and the user knows what to fix.
type ModelError struct {
	// Provider is the provider's name, such as "ollama", when known.
	Provider string
	// Model is the model's name, when known.
	Model string
	// StatusCode is the HTTP status of the failed response, or 0.
	StatusCode int
	// Temporary is true for failures worth retrying: the server could not
	// be reached, timed out, was rate limited (429) or failed (5xx).
	Temporary bool
	// Err is the underlying error.
	Err error
	// Fix says what to do about it, when there is something to say.
	Fix string
}

// briefly describes err without what to do about it: the warning of a
// retried call, when the advice comes once, with the final error.
func briefly(err error) string {
	var me *ModelError
	if !errors.As(err, &me) || me.Fix == "" {
		return err.Error()
	}
	brief := *me
	brief.Fix = ""
	return brief.Error()
}

// Error returns the provider, what happened and what to do about it.
func (e *ModelError) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	if e.Fix != "" {
		b.WriteString("; ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ModelError) Unwrap() error { return e.Err }

// errCallTimeout is the cause of an attempt's context when the attempt
// takes longer than WithCallTimeout allows.
var errCallTimeout = errors.New("the model did not answer in time")

// httpStatusError is an HTTP response with an error status, caught by
// statusTransport before a client turns it into a bare string.
type httpStatusError struct {
	code int
	msg  string
}

func (e *httpStatusError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
	}
	return fmt.Sprintf("HTTP %d: %s", e.code, e.msg)
}

// unreachableError is a request that never got a response. It is not a
// net.Error, so that clients that hide network errors behind a generic
// message keep it.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// statusTransport turns error statuses into *httpStatusError, so that the
// status survives clients that flatten errors into strings.
type statusTransport struct{ base http.RoundTripper }

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < http.StatusBadRequest {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return nil, &httpStatusError{code: resp.StatusCode, msg: errorMessage(body)}
}

// errorMessage extracts the message of an error body in the shapes
// servers use: {"error": "..."}, {"error": {"message": "..."}}, or text.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case v.Message != "":
			return v.Message
		}
	}
	return strings.TrimSpace(string(body))
}

// doer adapts an *http.Client to the Doer interface of the openai and
// anthropic clients, keeping our typed errors visible through them.
type doer struct{ c *http.Client }

func (d doer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err == nil {
		return resp, nil
	}
	var se *httpStatusError
	if errors.As(err, &se) {
		return nil, se
	}
	if req.Context().Err() != nil {
		return nil, err
	}
	return nil, &unreachableError{err: err}
}

// newHTTPClient returns the client the providers talk through.
func newHTTPClient(base *http.Client) *http.Client {
	c := &http.Client{}
	rt := http.DefaultTransport
	if base != nil {
		*c = *base
		if base.Transport != nil {
			rt = base.Transport
		}
	}
	c.Transport = statusTransport{base: rt}
	return c
}

// statusInText finds an HTTP status in an error that lost its type, as
// langchaingo's OpenAI client writes it ("status code: 503").
var statusInText = regexp.MustCompile(`(?i)(?:status code:?|status|http)\s*(\d{3})\b`)

// classify turns any error of a model call into a *ModelError, deciding
// whether it is worth retrying. ctx is the context of the attempt.
func classify(ctx context.Context, err error) *ModelError {
	var me *ModelError
	if errors.As(err, &me) {
		return me
	}
	e := &ModelError{Err: err}
	var se *httpStatusError
	var ue *unreachableError
	switch {
	case errors.Is(context.Cause(ctx), errCallTimeout):
		e.Err = fmt.Errorf("%w (%v)", errCallTimeout, err)
		e.Temporary = true
	case errors.As(err, &se):
		e.StatusCode = se.code
	case errors.As(err, &ue), isNetError(err):
		e.Temporary = true
	default:
		msg := strings.ToLower(err.Error())
		if m := statusInText.FindStringSubmatch(msg); m != nil {
			e.StatusCode, _ = strconv.Atoi(m[1])
		}
		for _, s := range []string{"connection refused", "connection reset", "no such host",
			"timeout", "network error", "unexpected eof", "server closed", "broken pipe"} {
			if strings.Contains(msg, s) {
				e.Temporary = true
			}
		}
	}
	switch c := e.StatusCode; {
	case c == http.StatusTooManyRequests, c == http.StatusRequestTimeout, c >= 500:
		e.Temporary = true
	case c >= 400:
		e.Temporary = false
	}
	return e
}

func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// explain fills in what the user should do about e, given the provider,
// the model and the server's URL.
func explain(e *ModelError, provider, model, url string) *ModelError {
	e.Provider, e.Model = provider, model
	where := url
	if where == "" {
		where = "the provider's API"
	}
	var ue *unreachableError
	unreachable := e.StatusCode == 0 && e.Temporary && !errors.Is(e.Err, errCallTimeout) &&
		(errors.As(e.Err, &ue) || isNetError(e.Err) || strings.Contains(strings.ToLower(e.Err.Error()), "connection refused"))
	switch {
	case unreachable && provider == "ollama":
		e.Fix = fmt.Sprintf("cannot reach Ollama at %s: start it with `ollama serve`, or point --base-url (or OLLAMA_HOST) at your server", where)
	case unreachable:
		e.Fix = fmt.Sprintf("cannot reach the server at %s: check that it is running and --base-url", where)
	case errors.Is(e.Err, errCallTimeout):
		e.Fix = "raise --timeout, or use a smaller or faster model"
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		e.Fix = fmt.Sprintf("the server refused the API key: set a valid key in %s", keyEnv(provider))
	case e.StatusCode == http.StatusNotFound && provider == "ollama":
		e.Fix = fmt.Sprintf("the model %q is not installed: run `ollama pull %s`, or choose another with --model", model, model)
	case e.StatusCode == http.StatusNotFound:
		e.Fix = fmt.Sprintf("the server at %s has no model %q or no such endpoint: check --model, and that --base-url ends in /v1 for OpenAI-compatible servers", where, model)
	case e.StatusCode == http.StatusBadRequest:
		e.Fix = "the server rejected the request: check --model and the sampling options"
	case e.StatusCode == http.StatusTooManyRequests:
		e.Fix = "the provider is rate limiting requests: wait and try again"
	case e.StatusCode >= 500:
		e.Fix = "the server failed: try again later or look at its logs"
	}
	return e
}

func keyEnv(provider string) string {
	switch provider {
	case "anthropic":
		return "ANTHROPIC_API_KEY"
	case "googleai":
		return "GOOGLE_API_KEY"
	}
	return "OPENAI_API_KEY (or pass --api-key)"
}
