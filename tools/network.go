package tools

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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
