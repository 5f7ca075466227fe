package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// httpStatusError is an HTTP response with an error status, caught by
// statusTransport before a client turns it into a bare string, or an
// error the server sent in the middle of a stream, with the status it
// gave it.
type httpStatusError struct {
	code       int
	msg        string
	retryAfter time.Duration // what the server's Retry-After asks, or 0
	detail     errorDetail   // what the body says beyond its message
	inStream   bool          // sent as an event of a stream begun with 200
}

func (e *httpStatusError) Error() string {
	var s string
	switch {
	case e.inStream && e.msg == "":
		s = fmt.Sprintf("the server ended the reply with an error (%d)", e.code)
	case e.inStream:
		s = fmt.Sprintf("the server ended the reply with an error (%d): %s", e.code, e.msg)
	case e.msg == "":
		s = fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
	default:
		s = fmt.Sprintf("HTTP %d: %s", e.code, e.msg)
	}
	return s
}

// errorDetail is what an error body says beyond its message: llama.cpp's
// error type and, for a prompt larger than the context, both sizes.
type errorDetail struct {
	Type          string `json:"type"`
	PromptTokens  int    `json:"n_prompt_tokens"`
	ContextTokens int    `json:"n_ctx"`
}

// errorDetails reads the detail of an error body, {"error": {...}}.
func errorDetails(body []byte) errorDetail {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	var d errorDetail
	if json.Unmarshal(body, &v) == nil {
		json.Unmarshal(v.Error, &d)
	}
	return d
}

// unreachableError is a request that never got a response. It is not a
// net.Error, so that clients that hide network errors behind a generic
// message keep it.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// statusTransport turns error statuses into *httpStatusError, so that the
// status survives clients that flatten errors into strings, and holds every
// response within its bounds (see guardedBody).
type statusTransport struct {
	base http.RoundTripper
	bounds
}

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// What the client asked for, before the options of Config.Options
	// (which may say "stream": false) go into the body: the client reads
	// the reply as a stream either way.
	streamed := isGeneration(req) && asksStream(req)
	req = t.drop.withoutParams(req)
	req = withConstraintFields(req)
	req, idle := t.guard(req)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		idle.stop()
		if cause := context.Cause(req.Context()); errors.Is(cause, ErrIdle) {
			return nil, cause
		}
		return nil, err
	}
	if resp.StatusCode == http.StatusOK && streamOf(resp) == notStream && streamed {
		// A whole reply where a stream was asked for, as some proxies
		// send: read as the stream it stands for.
		if resp, err = asStream(req.URL.Path, resp, t.maxReply); err != nil {
			idle.stop()
			return nil, err
		}
	}
	w, _ := req.Context().Value(watchKey{}).(*watch)
	g := &guardedBody{rc: resp.Body, ctx: req.Context(), idle: idle, watch: w, max: t.maxReply, stream: streamOf(resp), maxLine: t.maxLine,
		ollama: t.ollama}
	switch {
	case g.stream == sseStream && strings.HasSuffix(req.URL.Path, "/completion"):
		g.stream = completionStream // llama.cpp's own endpoint ends with "stop": true
	case g.stream == notStream && resp.StatusCode == http.StatusOK && strings.HasSuffix(req.URL.Path, "/api/chat"):
		// Ollama's whole reply is the last message of its stream, one
		// line, done or not.
		g.stream = ndjsonStream
	case g.stream == notStream && resp.StatusCode == http.StatusOK && t.ollama && strings.HasSuffix(req.URL.Path, "/chat/completions"):
		g.stream = wholeCompletion
	}
	if g.stream == ndjsonStream {
		g.ollama = true // Ollama's own API
	}
	if g.stream == sseStream && t.maxEvent > 0 && (g.maxLine == 0 || t.maxEvent < g.maxLine) {
		g.maxLine = t.maxEvent
	}
	resp.Body = g
	if resp.StatusCode < http.StatusBadRequest {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return nil, &httpStatusError{code: resp.StatusCode, msg: errorMessage(body), retryAfter: retryAfter(resp.Header.Get("Retry-After")),
		detail: errorDetails(body)}
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

// newHTTPClient returns the client the providers talk through, with the
// bounds of b on every call.
func newHTTPClient(base *http.Client, b bounds) *http.Client {
	c := &http.Client{}
	var rt http.RoundTripper
	if base != nil {
		*c = *base
		rt = base.Transport
	}
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
		rt = t
	}
	c.Transport = statusTransport{base: rt, bounds: b}
	return c
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), 0)
	}
	return 0
}
