package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// privateHTTP returns http_request allowed to reach the loopback test
// servers.
func privateHTTP(o Options) *httpRequest {
	o.AllowPrivateNetwork = true
	return newHTTPRequest(o)
}

func TestHTTPRequestContent(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(fixture(t, "article.html"))
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Write([]byte("<html><body><p>caf\xe9 cr\xe8me</p></body></html>"))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name": "x", "tags": ["<b>not html</b>"]}`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "line one\n<line two>\n")
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1000)...))
	})
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // Stop the server from sniffing.
		w.Write([]byte("\x00\x01\x02binary\xff\xfe"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%s %s type=%q auth=%q body=%s", r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), body)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name    string
		args    map[string]any
		want    []string
		notWant []string
		wantErr string
		write   bool // with AllowHTTPWrite
	}{
		{
			name: "an HTML page comes back as Markdown",
			args: map[string]any{"url": srv.URL + "/article"},
			want: []string{
				"Status: 200 OK\nContent-Type: text/html; charset=utf-8\n\n# Baking Sourdough at Home",
				"- 500 g bread flour",
				"[starter guide](" + srv.URL + "/guides/starter)",
			},
			notWant: []string{"secretScriptMarker", "Footer-marker", "<p>"},
		},
		{name: "a page in another charset is decoded", args: map[string]any{"url": srv.URL + "/latin1"}, want: []string{"café crème"}},
		{name: "JSON comes back as it is", args: map[string]any{"url": srv.URL + "/json"}, want: []string{"\n\n" + `{"name": "x", "tags": ["<b>not html</b>"]}`}},
		{name: "text comes back as it is", args: map[string]any{"url": srv.URL + "/text"}, want: []string{"\n\nline one\n<line two>"}},
		{name: "an image is described, not dumped", args: map[string]any{"url": srv.URL + "/png"}, want: []string{"[binary content: image/png, 1008 bytes, not shown]"}, notWant: []string{"PNG"}},
		{name: "untyped binary is sniffed and described", args: map[string]any{"url": srv.URL + "/untyped"}, want: []string{"[binary content: application/octet-stream, 11 bytes, not shown]"}},
		{name: "an error status is an observation", args: map[string]any{"url": srv.URL + "/missing"}, want: []string{"Status: 404 Not Found", "no such page"}},
		{
			name:  "an object body is sent as JSON with the given headers",
			args:  map[string]any{"url": srv.URL + "/echo", "method": "post", "headers": map[string]any{"Authorization": "Bearer t"}, "body": map[string]any{"a": 1.0}},
			write: true,
			want:  []string{`POST /echo type="application/json" auth="Bearer t" body={"a":1}`},
		},
		{
			name:  "a string body is sent as it is",
			args:  map[string]any{"url": srv.URL + "/echo", "method": "PUT", "body": "raw text"},
			write: true,
			want:  []string{`PUT /echo type="" auth="" body=raw text`},
		},
		{name: "HEAD has no body", args: map[string]any{"url": srv.URL + "/text", "method": "HEAD"}, want: []string{"Status: 200 OK\nContent-Type: text/plain"}, notWant: []string{"line one"}},
		{name: "other schemes are refused", args: map[string]any{"url": "ftp://example.com/file"}, wantErr: `http_request: only http and https URLs are supported, not "ftp:"`},
		{name: "file URLs are refused", args: map[string]any{"url": "file:///etc/passwd"}, wantErr: `http_request: only http and https URLs are supported, not "file:"`},
		{name: "an unknown method is refused", args: map[string]any{"url": srv.URL, "method": "BREW"}, write: true, wantErr: `http_request: method "BREW" is not allowed in this run; use one of GET, HEAD, POST`},
		{name: "a header value must be text", args: map[string]any{"url": srv.URL, "headers": map[string]any{"X": map[string]any{}}}, wantErr: `http_request: header "X" must be a string, got an object`},
		{name: "POST is refused by default", args: map[string]any{"url": srv.URL + "/echo", "method": "POST"}, wantErr: `http_request: method "POST" is not allowed in this run; use one of GET, HEAD`},
		{name: "a body is refused by default", args: map[string]any{"url": srv.URL + "/echo", "body": "x"}, wantErr: "http_request: a request body is not allowed in this run"},
		{name: "a cookie is refused by default", args: map[string]any{"url": srv.URL + "/echo", "headers": map[string]any{"cookie": "session=1"}}, wantErr: `http_request: the header "cookie" is not sent in this run`},
		{name: "a missing url names the arguments", args: map[string]any{"method": "GET"}, wantErr: `http_request: missing argument "url"; expected {"url": string, "method": string (optional), "headers": object (optional), "body": any (optional)}`},
	}
	read, err := NewRegistry(privateHTTP(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	write, err := NewRegistry(privateHTTP(Options{AllowHTTPWrite: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := read
			if tt.write {
				reg = write
			}
			got, err := reg.Call(context.Background(), "http_request", tt.args)
			checkObservation(t, got, err, tt.wantErr, tt.want, tt.notWant)
		})
	}
}

func TestHTTPRequestCapsTheBodyOfAnEndlessResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 32<<10))
		for {
			if _, err := w.Write(chunk); err != nil {
				return // The client hung up.
			}
		}
	}))
	defer srv.Close()
	h := privateHTTP(Options{MaxResponse: 100 << 10})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := h.Call(ctx, map[string]any{"url": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(got, "\n\n")
	body, _, _ = strings.Cut(body, "\n[response body cut")
	if n := strings.Count(body, "x"); n != 100<<10 {
		t.Errorf("the observation holds %d bytes of body, want %d", n, 100<<10)
	}
	if !strings.HasSuffix(got, "[response body cut at 102400 bytes; the rest was not read]") {
		t.Errorf("no cut marker at the end: …%s", got[len(got)-80:])
	}
}

func TestHTTPRequestRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			io.WriteString(w, "arrived")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://example.com/", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	h := privateHTTP(Options{})

	tests := []struct {
		name    string
		path    string
		want    string
		wantErr string
	}{
		{name: "a chain within the cap is followed", path: "/hop/5", want: "Status: 200 OK\nURL: " + srv.URL + "/hop/0\n"},
		{name: "a chain over the cap stops", path: "/hop/6", wantErr: "stopped after 5 redirects"},
		{name: "a redirect to another scheme is refused", path: "/to-ftp", wantErr: "refusing a redirect to ftp://example.com/: only http and https are allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.Call(context.Background(), map[string]any{"url": srv.URL + tt.path})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(got, tt.want) {
				t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// countingServer counts the requests it receives.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestHTTPRequestRefusesNonPublicAddressesByDefault(t *testing.T) {
	target, targetHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") })
	reg, err := Builtins(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(target.Listener.Addr().String(), ":")

	tests := []struct {
		name string
		url  string
	}{
		{"a loopback IP", target.URL},
		{"a name resolving to loopback", "http://localhost:" + port + "/"},
		{"an IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]:" + port + "/"},
		{"a private address", "http://10.0.0.1:" + port + "/"},
		{"a link-local metadata address", "http://169.254.169.254/latest/meta-data/"},
		{"the unspecified address", "http://0.0.0.0:" + port + "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := reg.Call(ctx, "http_request", map[string]any{"url": tt.url})
			if !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("error = %v, want ErrBlockedAddress", err)
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("error %q names a command-line flag, which the model cannot pass", err)
			}
		})
	}
	if n := targetHits.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests", n)
	}

	reg, err = Builtins(Options{AllowPrivateNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reg.Call(context.Background(), "http_request", map[string]any{"url": target.URL})
	if err != nil || !strings.Contains(got, "secret") {
		t.Errorf("with --allow-private-network: %q, %v", got, err)
	}
}

func TestHTTPRequestChecksTheAddressOfEachRedirect(t *testing.T) {
	inner, innerHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") })
	outer, outerHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
	})
	// Stand in for a public server: let the dialler reach the outer
	// server's exact address and check every other address as usual.
	guard := PublicOnly()
	outerAddr := outer.Listener.Addr().String()
	h := newHTTPRequest(Options{})
	h.client = newHTTPClient(func(network, address string, c syscall.RawConn) error {
		if address == outerAddr {
			return nil
		}
		return guard(network, address, c)
	})

	_, err := h.Call(context.Background(), map[string]any{"url": outer.URL})
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("error = %v, want ErrBlockedAddress", err)
	}
	if outerHits.Load() != 1 || innerHits.Load() != 0 {
		t.Errorf("outer server hit %d times, loopback server %d times; want 1 and 0", outerHits.Load(), innerHits.Load())
	}
}

func TestHTTPRequestHonoursContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	reg, err := Builtins(Options{AllowPrivateNetwork: true, ToolTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = reg.Call(context.Background(), "http_request", map[string]any{"url": srv.URL})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("error = %v, want ErrTimeout", err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("took %s with a 100ms timeout", elapsed)
	}
}

func TestHTTPRequestDefaultsToHTTPS(t *testing.T) {
	h := newHTTPRequest(Options{})
	req, err := h.newRequest(context.Background(), map[string]any{"url": "example.com/a?b=c"})
	if err != nil {
		t.Fatal(err)
	}
	if got := req.URL.String(); got != "https://example.com/a?b=c" {
		t.Errorf("URL = %s, want https://example.com/a?b=c", got)
	}
	if req.Method != "GET" || req.Header.Get("User-Agent") != userAgent {
		t.Errorf("method %s, user agent %q", req.Method, req.Header.Get("User-Agent"))
	}
}
