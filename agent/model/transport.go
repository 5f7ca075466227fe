package model

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/net/http/httpproxy"

	"github.com/react-agent/react-agent/agent/redact"
)

// Sentinel causes of a reply the client refused to take, for errors.Is.
var (
	// ErrReplyTooLarge means a reply grew past Config.MaxReplyBytes.
	ErrReplyTooLarge = errors.New("the reply is larger than allowed")
	// ErrIncomplete means a streamed reply ended before the server said
	// it was complete: the connection dropped, or the server stopped
	// mid-reply. Such a call is retried like any transient failure.
	ErrIncomplete = errors.New("the reply ended before the server finished it")
	// ErrIdle means the server sent nothing for Config.IdleTimeout, before
	// its headers or in the middle of a reply.
	ErrIdle = errors.New("the server sent nothing for too long")
	// ErrLineTooLong means a line of a streamed reply (an event of an
	// event stream, a JSON object of Ollama's) grew past MaxLineBytes.
	ErrLineTooLong = fmt.Errorf("a line of the reply is longer than a line may be (%d MiB)", MaxLineBytes>>20)
	// ErrWrongServer means the server answered in another protocol than
	// the provider speaks: it is another kind of server. The *Error says
	// which provider fits it, when known (Fitting).
	ErrWrongServer = errors.New("the server is not the kind the provider talks to")
	// ErrStreamCut means Ollama ended a reply without saying it was done:
	// the response ended, whole as HTTP, with no "done" message. Ollama
	// (v0.24.0) does so when the model writes one token more than 30
	// times in a row (its repeat limit, which only its debug log names:
	// "token repeat limit reached"), and when the runner that generates
	// the reply fails (its log says why). It matches ErrIncomplete too. A
	// model that looped at temperature 0 loops again on the same prompt,
	// so such a call is worth one more try at most.
	ErrStreamCut = fmt.Errorf("%w: Ollama closed it with no \"done\" message", ErrIncomplete)
	// ErrRepeatLimit is ErrStreamCut, under the name of one of its causes.
	//
	// Deprecated: use ErrStreamCut; the repeat limit is one of the causes
	// of a reply Ollama cut.
	ErrRepeatLimit = ErrStreamCut
)

// Defaults of the bounds on a model call.
const (
	// DefaultMaxReplyBytes bounds the bytes of one response body.
	DefaultMaxReplyBytes = 4 << 20
	// DefaultIdleTimeout bounds the time without a byte from the server.
	// It is long, because a server that does not stream sends nothing
	// until the whole reply is written.
	DefaultIdleTimeout = 5 * time.Minute
	// connectTimeout bounds making the connection.
	connectTimeout = 15 * time.Second
	// MaxLineBytes bounds a line of a streamed reply: an event of an
	// event stream, a JSON object of Ollama's. A line holds a few tokens,
	// or a tool call whole; a longer one is no reply's, and is an error
	// (ErrLineTooLong), whatever MaxReplyBytes allows the whole reply.
	MaxLineBytes = 1 << 20
	// maxErrorBody bounds what is read of an error response.
	maxErrorBody = 64 << 10
	// maxRedirects bounds the redirects a call follows.
	maxRedirects = 3
	// maxIdlePerServer bounds the idle connections a model keeps to its
	// server for the calls after: as many as an evaluation's runs at once
	// (eval -j) may want, where Go's default keeps 2.
	maxIdlePerServer = 16
)

// boundedTransport is the transport of every call: it bounds the bytes of a
// response and the time the server may send nothing, and turns an error
// status into a *statusError, read from the server's error body. It
// never reads or changes a request.
type boundedTransport struct {
	base     http.RoundTripper
	maxReply int64
	idle     time.Duration
}

func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	idle := fmt.Errorf("%w (%s)", ErrIdle, t.idle)
	timer := time.AfterFunc(t.idle, func() { cancel(idle) })
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cause := context.Cause(ctx)
		cancel(nil)
		if errors.Is(cause, ErrIdle) {
			return nil, cause
		}
		return nil, err
	}
	body := &boundedBody{rc: resp.Body, ctx: ctx, cancel: cancel, timer: timer, idle: t.idle, max: t.maxReply}
	if resp.StatusCode < http.StatusBadRequest {
		resp.Body = body
		return resp, nil
	}
	defer body.Close()
	data, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
	return nil, newStatusError(resp.StatusCode, data, resp.Header.Get("Retry-After"))
}

// boundedBody is a response body read within the bounds: at most max
// bytes, never idle for longer than idle.
type boundedBody struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	idle   time.Duration
	max, n int64
	once   sync.Once
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.n > b.max {
		return 0, fmt.Errorf("%w: more than %d bytes", ErrReplyTooLarge, b.max)
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
		b.n += int64(n)
		if b.n > b.max {
			return 0, fmt.Errorf("%w: more than %d bytes", ErrReplyTooLarge, b.max)
		}
	}
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); errors.Is(cause, ErrIdle) {
			err = cause
		}
	}
	return n, err
}

func (b *boundedBody) Close() error {
	b.once.Do(func() {
		b.timer.Stop()
		b.cancel(nil)
	})
	return b.rc.Close()
}

// CloseIdleConnections closes the idle connections of the transport
// below, so that http.Client.CloseIdleConnections reaches them.
func (t boundedTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// propagating is a transport that sends the trace of a request's context
// on to the server, in a W3C traceparent header, so that a server that
// traces its work (vLLM, SGLang) nests its spans under the call's. A
// request whose context holds no span goes as it is.
type propagating struct{ base http.RoundTripper }

func (t propagating) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return t.base.RoundTrip(req)
	}
	req = req.Clone(ctx) // a RoundTripper does not change the request it is given
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	return t.base.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the transport
// below.
func (t propagating) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// newHTTPClient returns the client the providers talk through, with the
// bounds of a reply: base's, when given, with its transport kept; else
// one of its own, which takes its proxy from the environment getenv
// reads (none when nil). A call is redirected only within its server
// (see sameServer), unless base says otherwise. Each request carries the
// trace of its context (see propagating).
func newHTTPClient(base *http.Client, getenv func(string) string, maxReply int64, idle time.Duration) *http.Client {
	c := &http.Client{}
	var rt http.RoundTripper
	if base != nil {
		*c = *base
		rt = base.Transport
	}
	if rt == nil {
		rt = &http.Transport{
			Proxy:                 proxyOf(getenv),
			DialContext:           (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   maxIdlePerServer,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	c.Transport = boundedTransport{base: propagating{rt}, maxReply: maxReply, idle: idle}
	if c.CheckRedirect == nil {
		c.CheckRedirect = checkRedirect
	}
	return c
}

// proxyOf returns the proxy of requests as the environment getenv reads
// names it, in HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their lower-case
// forms), as http.ProxyFromEnvironment reads the process's: a request to
// this machine goes through none. It returns nil for no proxy.
func proxyOf(getenv func(string) string) func(*http.Request) (*url.URL, error) {
	if getenv == nil {
		return nil
	}
	either := func(name string) string { return cmp.Or(getenv(name), getenv(strings.ToLower(name))) }
	c := httpproxy.Config{HTTPProxy: either("HTTP_PROXY"), HTTPSProxy: either("HTTPS_PROXY"), NoProxy: either("NO_PROXY"),
		CGI: getenv("REQUEST_METHOD") != ""}
	if c.HTTPProxy == "" && c.HTTPSProxy == "" {
		return nil
	}
	proxy := c.ProxyFunc()
	return func(req *http.Request) (*url.URL, error) { return proxy(req.URL) }
}

// ErrRedirected means that the server redirected a call to another
// server (another scheme, host or port), where the call is not made: its
// key, or the password of its URL, would go along.
var ErrRedirected = errors.New("the call was redirected to another server")

// redirectError is a call redirected from one server to another.
type redirectError struct{ from, to *url.URL }

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server at %s redirected the call to %s, which is not followed: a call and its key go only to the server given",
		origin(e.from), redact.URL(e.to.String()))
}

func (e *redirectError) Unwrap() error { return ErrRedirected }

// checkRedirect follows a redirect within the server of the first
// request, maxRedirects times at most. Go's client drops the key on the
// way to another host, but not to another port or scheme of the same
// one, and never the password of a URL's user: a redirect to any other
// server is refused.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if !sameServer(via[0].URL, req.URL) {
		return &redirectError{from: via[0].URL, to: req.URL}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("%w %d times", errRedirects, len(via))
	}
	return nil
}

// sameServer reports whether a and b have one scheme, host and port, a
// port left out being the scheme's.
func sameServer(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		switch strings.ToLower(u.Scheme) {
		case "https":
			return "443"
		case "http":
			return "80"
		}
		return ""
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// origin returns the scheme, host and port of u: the server it names.
func origin(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// errorDetail is what an error body says beyond its message: llama.cpp's
// error type and, for a prompt larger than the context, both sizes.
type errorDetail struct {
	Type          string `json:"type"`
	PromptTokens  int    `json:"n_prompt_tokens"`
	ContextTokens int    `json:"n_ctx"`
}

// newStatusError reads an error response: its status, the server's
// message in the shapes servers write it ({"error": "…"}, {"error":
// {"message": …}}, or text), and what the message means.
func newStatusError(code int, body []byte, retry string) *statusError {
	e := &statusError{code: code, msg: errorMessage(body), retryAfter: retryAfter(retry)}
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil {
		e.object = json.Unmarshal(v.Error, &e.detail) == nil
	}
	e.classify()
	return e
}

// streamError returns the error a line of a reply carries, or nil: an
// event `data: {"error": {"code", "message", "type"}}` (llama-server, on
// /completion and /v1 alike), a line `{"error": "…"}` (Ollama).
func streamError(data []byte) *statusError {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.Error) == 0 || string(v.Error) == "null" {
		return nil
	}
	var code struct {
		Code int `json:"code"`
	}
	json.Unmarshal(v.Error, &code)
	if code.Code < 400 || code.Code > 599 {
		code.Code = http.StatusInternalServerError
	}
	e := newStatusError(code.Code, data, "")
	e.inStream = true
	return e
}

// rejectedParam finds, in a 400's message, a parameter the server refused
// that a call can do without ("Unsupported parameter: 'stop'"): the agent
// cuts replies itself, and the server's own temperature is a fine default.
var rejectedParam = regexp.MustCompile(`(?i)(?:unsupported|not supported|unrecognized|unknown|invalid|does not support)[^.;]*?\b(stop|temperature)\b|\b(stop|temperature)\b[^.;]*?(?:is not supported|not supported|unsupported)`)

// classify reads what the server's message means, in the words each
// server uses: the server's own text, never one our code or a library
// wrote.
func (e *statusError) classify() {
	m := strings.ToLower(e.msg)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(m, w) {
				return true
			}
		}
		return false
	}
	switch {
	case e.detail.Type == "exceed_context_size_error",
		// Ollama asked not to truncate, vLLM, OpenAI.
		e.code == http.StatusBadRequest && has("exceeds the context length", "exceeds the available context size",
			"maximum context length", "context_length_exceeded", "context length exceeded"):
		e.kind = ErrContextOverflow
	case has("failed to parse input at pos", "invalid utf-8"):
		// llama-server's JSON library refusing to write the model's text.
		e.kind = ErrNotUTF8
	case e.code >= 500 && has("invalid json schema", "failed to parse grammar", "failed to load grammar"):
		e.kind = errSchemaRefused
	case has("does not support tools"),
		(e.code == http.StatusBadRequest || e.code == http.StatusUnprocessableEntity || e.code == http.StatusNotImplemented) &&
			strings.Contains(m, "tool") && has("not supported", "unsupported"):
		// Ollama's "… does not support tools", and the 400s of
		// OpenAI-compatible servers about "tools".
		e.kind = ErrNoToolCalls
	case e.code == http.StatusNotFound && strings.Contains(m, "model") && has("not found", "does not exist"):
		e.kind = ErrNoModel
	}
	if e.code == http.StatusBadRequest {
		if p := rejectedParam.FindStringSubmatch(e.msg); p != nil {
			e.param = strings.ToLower(p[1] + p[2])
		}
	}
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

// MaxRetryAfter is the longest wait an Error's RetryAfter says: a server
// that asks for a longer one (or for more seconds than a Duration holds)
// asks for this.
const MaxRetryAfter = 366 * 24 * time.Hour

// retryAfter reads a Retry-After header: seconds, or an HTTP date. The
// wait is clamped to MaxRetryAfter before it is a Duration, so that no
// number of seconds overflows it.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || secs > uint64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(time.Until(at), 0), MaxRetryAfter)
	}
	return 0
}

// doer adapts an *http.Client to the Doer interface of langchaingo's
// clients, keeping our typed errors visible through them.
type doer struct{ c *http.Client }

func (d doer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err == nil {
		return resp, nil
	}
	return nil, sendError(req.Context(), err)
}

// errRedirects is the error of a call redirected more than maxRedirects
// times.
var errRedirects = errors.New("the server redirected the call")

// sendError returns the error of a request that got no response to take:
// the server's error status, the idle bound, redirects without end, or
// an unreachable server.
func sendError(ctx context.Context, err error) error {
	var se *statusError
	var re *redirectError
	switch {
	case errors.As(err, &se):
		return se
	case errors.As(err, &re):
		return &Error{Fix: SettingBaseURL, URL: origin(re.from),
			Hint: "if the server it leads to is the one meant, give its address instead", Err: re}
	case errors.Is(err, errRedirects):
		return &Error{Fix: SettingBaseURL, Hint: "give the server's own address", Err: err}
	case errors.Is(err, ErrIdle):
		return err
	case ctx.Err() != nil:
		return err
	}
	return &unreachableError{err: err}
}
