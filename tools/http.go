package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html/charset"
)

const httpRequestName = "http_request"

// BlockedError is a request to an address the run does not reach:
// loopback, private and other non-public addresses, unless allowed
// (Options.AllowPrivateNetwork). It matches ErrBlockedAddress. Its message
// is written for the model; its fields let a command line word it for
// people.
type BlockedError struct {
	// Tool is the tool's name, Method and URL the request's (the URL
	// without its password).
	Tool, Method, URL string
	// Host is the address refused: the IP the host name resolved to, or
	// the host.
	Host string
	// Err is the dialer's error.
	Err error
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s: %s %s: %v (%v); loopback, private and other non-public addresses are refused in this run",
		e.Tool, e.Method, e.URL, ErrBlockedAddress, e.Err)
}

// Unwrap returns ErrBlockedAddress and the dialer's error.
func (e *BlockedError) Unwrap() []error { return []error{ErrBlockedAddress, e.Err} }

// blockedHost returns the address of a request to u that the dialer
// refused with err: the IP it dialed, or u's host.
func blockedHost(u *url.URL, err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		if host, _, serr := net.SplitHostPort(op.Addr.String()); serr == nil {
			return host
		}
		return op.Addr.String()
	}
	return u.Hostname()
}

// ErrBlockedAddress is matched (with errors.Is) by the error http_request
// returns when it refuses to dial a non-public address.
var ErrBlockedAddress = errors.New("refused to connect to a non-public address")

// httpMethods are the methods http_request sends; readMethods the ones it
// sends unless Options.AllowHTTPWrite.
var (
	httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	readMethods = []string{"GET", "HEAD"}
)

// credentialHeaders are the request headers http_request sends only with
// Options.AllowHTTPWrite: a page the model read must not make it send the
// user's credentials, or any, on its behalf.
var credentialHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization"}

// httpRequest fetches a URL. HTML comes back as Markdown, JSON and text as
// they are, and binary content is only described.
type httpRequest struct {
	client      *http.Client
	maxResponse int64
	html        *htmlConverter
	methods     []string // the methods it sends
	write       bool     // other methods, bodies and credential headers allowed
}

func newHTTPRequest(o Options) *httpRequest {
	o = o.withDefaults()
	var control dialControl
	if !o.AllowPrivateNetwork {
		control = PublicOnly()
	}
	h := &httpRequest{
		client:      newHTTPClient(control),
		maxResponse: o.MaxResponse,
		html:        newHTMLConverter(),
		methods:     readMethods,
	}
	if o.AllowHTTPWrite {
		h.methods, h.write = httpMethods, true
	}
	return h
}

func (h *httpRequest) Name() string { return httpRequestName }

func (h *httpRequest) Description() string {
	d := "Fetch a web page or call an HTTP API. Returns the status, the content type and the body: " +
		"HTML pages as readable Markdown (title, headings, paragraphs, lists, links), JSON and text as they are, " +
		"binary content only described. Only public http and https addresses. "
	if !h.write {
		return d + `Only GET and HEAD, with no body and no credentials. Example: {"url": "https://example.com/"}.`
	}
	return d + `Example: {"url": "https://example.com/"} or {"url": "https://api.example.com/items", "method": "POST", "headers": {"Authorization": "Bearer ..."}, "body": {"name": "x"}}.`
}

func (h *httpRequest) Schema() Schema {
	return Schema{
		Args: []Arg{
			{Name: "url", Type: "string", Required: true, Description: "The http or https URL to fetch."},
			{Name: "method", Type: "string", Description: "The HTTP method; GET when omitted."},
			{Name: "headers", Type: "object", Description: "Request headers, as an object of names to values."},
			{Name: "body", Type: "any", Description: "The request body: a string sent as is, or a JSON value sent as JSON."},
		},
		Primary: "url",
	}
}

func (h *httpRequest) Call(ctx context.Context, args map[string]any) (string, error) {
	req, err := h.newRequest(ctx, args)
	if err != nil {
		return "", fmt.Errorf("http_request: %w", err)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		if IsBlockedAddress(err) {
			return "", &BlockedError{Tool: httpRequestName, Method: req.Method, URL: req.URL.Redacted(), Host: blockedHost(req.URL, err), Err: unwrapURLError(err)}
		}
		if err := unreachable(httpRequestName, "", req.URL, unwrapURLError(err)); errors.Is(err, ErrUnreachable) {
			return "", err
		}
		return "", fmt.Errorf("http_request: %s %s: %w", req.Method, req.URL.Redacted(), unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, cut, err := readCapped(resp.Body, h.maxResponse)
	if err != nil {
		return "", fmt.Errorf("http_request: reading the response of %s: %w", req.URL.Redacted(), err)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Status: %s\n", resp.Status)
	if final := resp.Request.URL.String(); final != req.URL.String() {
		fmt.Fprintf(&b, "URL: %s\n", resp.Request.URL.Redacted())
	}
	ctype := resp.Header.Get("Content-Type")
	if ctype == "" && len(data) > 0 {
		ctype = http.DetectContentType(data)
	}
	if ctype != "" {
		fmt.Fprintf(&b, "Content-Type: %s\n", ctype)
	}
	body, err := h.render(data, ctype, resp.Request.URL.String())
	if err != nil {
		return "", fmt.Errorf("http_request: %s: %w", req.URL.Redacted(), err)
	}
	if body != "" {
		b.WriteString("\n")
		b.WriteString(body)
		b.WriteString("\n")
	}
	if cut {
		fmt.Fprintf(&b, "[response body cut at %d bytes; the rest was not read]\n", h.maxResponse)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// newRequest builds the request args describe.
func (h *httpRequest) newRequest(ctx context.Context, args map[string]any) (*http.Request, error) {
	raw, _ := args["url"].(string) // checked by the registry
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("bad url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("only http and https URLs are supported, not %q", u.Scheme+":")
	}
	if u.Host == "" {
		return nil, fmt.Errorf("url %q has no host", raw)
	}
	method := "GET"
	if m, ok := args["method"].(string); ok && strings.TrimSpace(m) != "" {
		method = strings.ToUpper(strings.TrimSpace(m))
	}
	if !slices.Contains(h.methods, method) {
		return nil, fmt.Errorf("method %q is not allowed in this run; use one of %s", method, strings.Join(h.methods, ", "))
	}
	if !h.write && args["body"] != nil {
		return nil, errors.New("a request body is not allowed in this run: only GET and HEAD requests are sent; leave the body out")
	}
	var body io.Reader
	isJSON := false
	switch v := args["body"].(type) {
	case nil:
	case string:
		body = strings.NewReader(v)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encoding the body as JSON: %w", err)
		}
		body, isJSON = bytes.NewReader(data), true
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html, application/json;q=0.9, text/plain;q=0.8, */*;q=0.5")
	if isJSON {
		req.Header.Set("Content-Type", "application/json")
	}
	if headers, ok := args["headers"].(map[string]any); ok {
		for k, v := range headers {
			s, err := convertArg("string", v)
			if err != nil {
				return nil, fmt.Errorf("header %q %v", k, err)
			}
			if !h.write && slices.ContainsFunc(credentialHeaders, func(c string) bool { return strings.EqualFold(c, k) }) {
				return nil, fmt.Errorf("the header %q is not sent in this run: http_request sends no credentials; leave it out", k)
			}
			req.Header.Set(k, s.(string))
		}
	}
	return req, nil
}

// render turns a response body into text for the model according to its
// content type.
func (h *httpRequest) render(data []byte, ctype, pageURL string) (string, error) {
	if len(data) == 0 {
		return "", nil
	}
	media, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		media = http.DetectContentType(data)
		media, _, _ = strings.Cut(media, ";")
	}
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		r, err := charset.NewReader(bytes.NewReader(data), ctype)
		if err != nil {
			return "", fmt.Errorf("decoding the page: %w", err)
		}
		return h.html.Markdown(r, pageURL)
	case isTextual(media):
		r, err := charset.NewReader(bytes.NewReader(data), ctype)
		if err != nil {
			return string(data), nil
		}
		text, err := io.ReadAll(r)
		if err != nil {
			return string(data), nil
		}
		return string(text), nil
	}
	return fmt.Sprintf("[binary content: %s, %d bytes, not shown]", media, len(data)), nil
}

// isTextual reports whether a media type is text a model can read as is.
func isTextual(media string) bool {
	if strings.HasPrefix(media, "text/") ||
		strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml") {
		return true
	}
	switch media {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-www-form-urlencoded", "application/yaml", "application/x-yaml",
		"application/toml", "application/x-ndjson", "application/graphql":
		return true
	}
	return false
}

// unwrapURLError drops the *url.Error layer, whose message repeats the
// method and URL the caller already names.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
