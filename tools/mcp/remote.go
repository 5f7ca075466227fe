package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/react-agent/react-agent/tools"
)

// DefaultMaxReply bounds what is read of one reply of a remote server
// when [Options.MaxReply] is zero. Half the SDK's bound on a message of a
// server that runs a command: a reply is parsed several times over, and
// the SDK queues up to 100 events of the older SSE transport, so that a
// server flooding events of this size holds react-agent under 200 MB.
const DefaultMaxReply = 8 << 20

// maxRedirects caps the redirects followed for a remote server, as
// http_request caps its own.
const maxRedirects = 5

// ErrReplyTooLarge is matched (with errors.Is) by the error of a call or
// a start whose remote server sent a reply larger than [Options.MaxReply].
var ErrReplyTooLarge = errors.New("the MCP server's reply is too large")

// remote carries the requests of one connection to a remote server: it
// sends the configured headers to the configured origin only, refuses
// non-public addresses to a server configured at a public one, and bounds
// every reply. It is the connection's http.RoundTripper.
type remote struct {
	base    http.RoundTripper
	origin  string // scheme://host:port of the configured URL
	headers map[string]string
	max     int64
	// overflow is called, once a reply has passed max, to end the
	// connection: the SDK would otherwise go on reading, or wait for a
	// reply it dropped.
	overflow func()
}

// newRemote returns the client of a connection to the server configured
// at rawURL, whose RoundTripper is a [remote]. Loopback, private and
// link-local addresses are reached only if rawURL names one (or a name
// that resolves only to such): a server configured at a public address,
// and the redirects and SSE endpoints it names, get the network policy
// of http_request ([tools.PublicOnly]), and no proxy, which would dial
// out of the policy's reach.
func newRemote(ctx context.Context, rawURL string, headers map[string]string, max int64, overflow func()) (*http.Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	private, err := privateHost(ctx, u.Hostname())
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: policy(private)}
	transport := &http.Transport{
		DialContext:         dialer.DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        4,
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	if private {
		transport.Proxy = http.ProxyFromEnvironment
	}
	rt := &remote{base: transport, origin: originOf(u), headers: headers, max: max, overflow: overflow}
	return &http.Client{Transport: rt, CheckRedirect: checkRedirect}, nil
}

// policy returns the dial control of a server: none for one configured at
// a private address, [tools.PublicOnly] for the others.
func policy(private bool) func(network, address string, c syscall.RawConn) error {
	if private {
		return nil
	}
	return tools.PublicOnly()
}

// privateHost reports whether host, the host of a server's URL, is a
// loopback, private or link-local address, or a name that resolves only
// to such addresses, so that the server may be reached there. A name
// with a public address among them is public: its owner could otherwise
// open the private network to its redirects by adding one record.
func privateHost(ctx context.Context, host string) (bool, error) {
	guard := tools.PublicOnly()
	public := func(a netip.Addr) bool {
		a = a.Unmap()
		network := "tcp4"
		if a.Is6() {
			network = "tcp6"
		}
		return guard(network, netip.AddrPortFrom(a, 443).String(), nil) == nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return !public(a), nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true, nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false, fmt.Errorf("cannot find the address of %s: %w", host, err)
	}
	for _, a := range addrs {
		if public(a) {
			return false, nil
		}
	}
	return len(addrs) > 0, nil
}

// checkRedirect follows at most maxRedirects http or https redirects; the
// dialer checks where they lead.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing a redirect to %s: only http and https are allowed", req.URL.Redacted())
	}
	return nil
}

// originOf returns the origin of u: its scheme, host and port, the port
// written out.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// RoundTrip sends req with the configured headers if it goes to the
// configured origin, and without them (whoever set them) if not, and
// bounds the reply's body.
func (t *remote) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	same := originOf(req.URL) == t.origin
	for k, v := range t.headers {
		if same {
			req.Header.Set(k, v)
		} else {
			req.Header.Del(k)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		if tools.IsBlockedAddress(err) {
			return nil, fmt.Errorf("refused to connect to %s, a non-public address, for an MCP server configured at a public one: %w", req.URL.Host, err)
		}
		return nil, err
	}
	b := &boundedBody{body: resp.Body, max: t.max, overflow: t.overflow}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		b.events = true
	}
	resp.Body = b
	return resp, nil
}

// boundedBody is the body of a reply, cut with an error once it passes
// max bytes. The body of an event stream, which may stay open for the
// whole session, is cut once one event passes max bytes.
type boundedBody struct {
	body     io.ReadCloser
	max      int64
	events   bool
	n        int64 // bytes of the body, or of its current event
	newline  bool  // the last byte read ended a line
	err      error // once cut, every read fails
	overflow func()
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if room := b.max - b.n + 1; int64(len(p)) > room {
		p = p[:room] // read one byte past max at most
	}
	n, err := b.body.Read(p)
	if !b.events {
		b.n += int64(n)
	} else {
		for _, c := range p[:n] {
			switch {
			case c == '\n' && b.newline: // a blank line ends an event
				b.n = 0
			case c == '\n':
				b.newline = true
			case c != '\r':
				b.newline = false
			}
			b.n++
		}
	}
	if b.n > b.max {
		what := "a reply"
		if b.events {
			what = "an event"
		}
		b.err = fmt.Errorf("%w: it sent %s of more than %s, the most read of one", ErrReplyTooLarge, what, size(int(b.max)))
		if b.overflow != nil {
			b.overflow()
		}
		return n, b.err
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.body.Close() }
