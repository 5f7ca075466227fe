package tools

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// maxRedirects caps the redirects http_request and web_search follow.
const maxRedirects = 5

// userAgent identifies http_request to the servers it calls.
const userAgent = "react-agent/1 (+https://github.com/react-agent/react-agent)"

// dialControl is the signature of net.Dialer.Control.
type dialControl = func(network, address string, c syscall.RawConn) error

// PublicOnly returns a dial control (for [net.Dialer.Control]) that
// refuses loopback, private, link-local and other non-public addresses on
// any port: the network policy of http_request, which MCP servers at a
// public address share. It runs on the address actually dialled, after
// DNS resolution and on every redirect, so a public name resolving to
// 127.0.0.1 is refused too. [IsBlockedAddress] recognises its errors.
func PublicOnly() func(network, address string, c syscall.RawConn) error {
	return ssrf.New(ssrf.WithAnyPort()).Safe
}

// newHTTPClient returns a client whose dialer runs control (nil: no check)
// and which follows at most maxRedirects http or https redirects. A
// guarded client ignores proxy settings, since a proxy would dial the
// target itself, out of reach of the check.
func newHTTPClient(control dialControl) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: control}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 20 * time.Second,
	}
	if control == nil {
		transport.Proxy = http.ProxyFromEnvironment
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("refusing a redirect to %s: only http and https are allowed", req.URL.Redacted())
			}
			return nil
		},
	}
}

// IsBlockedAddress reports whether err comes from the non-public address
// check of [PublicOnly].
func IsBlockedAddress(err error) bool {
	return errors.Is(err, ssrf.ErrProhibitedIP) || errors.Is(err, ssrf.ErrProhibitedNetwork)
}

// readCapped reads r up to max bytes, and reports whether there was more:
// however much a server sends, at most max+1 bytes are read.
func readCapped(r io.Reader, max int64) (data []byte, cut bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, max+1))
	if int64(len(data)) > max {
		return data[:max], true, err
	}
	return data, false, err
}

// cappedBuffer keeps the first max bytes written to it and counts the rest.
// It never fails a write, so a command writing a lot is not killed by
// EPIPE; the caller reports what was dropped.
type cappedBuffer struct {
	max     int64
	buf     []byte
	omitted int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.max - int64(len(b.buf))
	switch {
	case room >= int64(len(p)):
		b.buf = append(b.buf, p...)
	case room > 0:
		b.buf = append(b.buf, p[:room]...)
		b.omitted += int64(len(p)) - room
	default:
		b.omitted += int64(len(p))
	}
	return len(p), nil
}

// ErrUnreachable is matched (with errors.Is) by the error of a tool call
// whose server could not be reached: no network, a name that does not
// resolve, a connection refused, reset or timed out, a proxy that does
// not answer. See [UnreachableError].
var ErrUnreachable = errors.New("could not be reached")

// UnreachableError is the error of a web_search or http_request call whose
// server could not be reached. Its message is written for the model, which
// reads it as the observation; a program that shows it to people says
// what to do with Tool, Host and Cause.
type UnreachableError struct {
	// Tool is the tool's name: "web_search" or "http_request".
	Tool string
	// Host is the host that could not be reached, or the proxy's when
	// the proxy could not be.
	Host string
	// Proxy says that the proxy in between could not be reached.
	Proxy bool
	// Engine is the search engine's name ("duckduckgo", "searxng") when
	// the host is the search engine's; empty for another server.
	Engine string
	// Err is the network's error.
	Err error
}

func (e *UnreachableError) Error() string {
	what := e.Host
	switch {
	case e.Proxy:
		what = "the proxy " + e.Host
	case e.Engine != "":
		what = "the search engine (" + e.Host + ")"
	}
	msg := fmt.Sprintf("%s: %s could not be reached (%s)", e.Tool, what, e.Cause())
	if e.Tool == webSearchName {
		return msg + "; searching is not possible now: answer from what you know, and say that you could not search"
	}
	return msg + "; check the address, or answer without it"
}

// Unwrap returns ErrUnreachable and the network's error.
func (e *UnreachableError) Unwrap() []error { return []error{ErrUnreachable, e.Err} }

// Cause says in a few words why the host could not be reached.
func (e *UnreachableError) Cause() string { return networkCause(e.Err) }

// networkCause names in a few words the network failure err is, or ""
// when it is none.
func networkCause(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host"
	case errors.As(err, &dns) && dns.IsTimeout:
		return "the name could not be looked up in time"
	case errors.As(err, &dns):
		return "the name could not be looked up"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.ENETUNREACH):
		return "no route to the network"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "no route to the host"
	case errors.As(err, &op) && op.Op == "dial" && op.Timeout():
		return "the connection timed out"
	case errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect"):
		return "the connection failed"
	}
	return ""
}

// unreachable returns err, the error of a request of tool to u, as an
// *UnreachableError when it is a network failure, and as it is otherwise;
// engine names the search engine u is, if any.
func unreachable(tool, engine string, u *url.URL, err error) error {
	if networkCause(err) == "" || IsBlockedAddress(err) {
		return err
	}
	e := &UnreachableError{Tool: tool, Host: u.Hostname(), Engine: engine, Err: err}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "proxyconnect" {
		e.Proxy = true
		if op.Addr != nil {
			e.Host = op.Addr.String()
		}
	}
	return e
}
