package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/mcp/internal/hostile"
	"github.com/react-agent/react-agent/tools/mcp/internal/testserver"
)

// hostileServer serves a hostile MCP server on loopback for the test, and
// declares it.
func hostileServer(t *testing.T, attack hostile.Attack, size int) Server {
	t.Helper()
	srv := httptest.NewServer(&hostile.Server{Attack: attack, Size: size})
	t.Cleanup(srv.Close)
	transport := HTTP
	if attack == hostile.EndlessSSE {
		transport = SSE
	}
	return Server{Name: "hostile", Transport: transport, URL: srv.URL + "/mcp", File: "servers.json"}
}

func TestRepliesAreBounded(t *testing.T) {
	const max = 1 << 20
	tests := []struct {
		name   string
		attack hostile.Attack
		size   int
	}{
		{"a JSON reply that never ends", hostile.EndlessJSON, 0},
		{"a JSON reply larger than the bound", hostile.BigJSON, 4 * max},
		{"an event that never ends", hostile.EndlessEvent, 0},
		{"an event larger than the bound", hostile.BigEvent, 4 * max},
		{"an event of the SSE transport that never ends", hostile.EndlessSSE, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name+" ends the call with an error, and the next call connects again", func(t *testing.T) {
			reg := registry(t, start(t, Options{MaxReply: max}, hostileServer(t, tt.attack, tt.size)), tools.Limits{Timeout: time.Minute})
			for range 2 {
				begin := time.Now()
				_, err := reg.Call(context.Background(), "flood", nil)
				if !errors.Is(err, ErrReplyTooLarge) || !strings.Contains(err.Error(), "flood: the MCP server's reply is too large: it sent more than 1.0 MB, the most react-agent reads of one reply") {
					t.Fatalf("got %v", err)
				}
				if d := time.Since(begin); d > 10*time.Second {
					t.Errorf("the call took %s", d)
				}
			}
		})
	}
	t.Run("a reply within the bound is read whole", func(t *testing.T) {
		reg := registry(t, start(t, Options{MaxReply: max}, hostileServer(t, hostile.BigJSON, max/2)), tools.Limits{MaxObservation: max})
		out, err := reg.Call(context.Background(), "flood", nil)
		if err != nil || len(out) != max/2 {
			t.Errorf("got %d bytes, %v; want %d bytes", len(out), err, max/2)
		}
	})
}

func TestErrorsAreBounded(t *testing.T) {
	for _, attack := range []hostile.Attack{hostile.BigError, hostile.BigRPCError} {
		t.Run(string(attack)+" is cut at MaxError", func(t *testing.T) {
			reg := registry(t, start(t, Options{MaxError: 1000}, hostileServer(t, attack, 2<<20)), tools.Limits{})
			_, err := reg.Call(context.Background(), "flood", nil)
			if err == nil || len(err.Error()) > 1100 || !strings.Contains(err.Error(), "[truncated: ") || !strings.HasPrefix(err.Error(), "flood: ") {
				t.Errorf("got an error of %d bytes: %.200q…", len(fmt.Sprint(err)), fmt.Sprint(err))
			}
		})
	}
}

func TestToolListsAreBounded(t *testing.T) {
	tests := []struct {
		name string
		page int
		want string
	}{
		{"pages of 300 KB forever are read up to MaxReply", 300 << 10, `MCP server "hostile" lists more than 1.0 MB of tools, more than react-agent reads; only its first `},
		{"pages of one tool forever are read up to 100 pages", 1, `MCP server "hostile" lists more than 100 pages of tools, more than react-agent reads; only its first 100 tools are used`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := start(t, Options{MaxReply: 1 << 20}, hostileServer(t, hostile.Pages, tt.page))
			w := set.Warnings()
			if len(w) != 1 || !strings.HasPrefix(w[0], tt.want) {
				t.Errorf("got warnings %q, want %q", w, tt.want)
			}
			if n := len(set.Tools()); n == 0 || n > 1000 {
				t.Errorf("got %d tools", n)
			}
		})
	}
	t.Run("a page larger than MaxReply is an error", func(t *testing.T) {
		_, err := Start(context.Background(), []Server{hostileServer(t, hostile.Pages, 2<<20)}, Options{MaxReply: 1 << 20})
		var se *StartError
		if !errors.As(err, &se) || !errors.Is(err, ErrReplyTooLarge) ||
			!strings.Contains(err.Error(), `MCP server "hostile" (from servers.json) did not start: the MCP server's reply is too large: it sent more than 1.0 MB, the most react-agent reads of one reply`) {
			t.Errorf("got %v", err)
		}
	})
}

// recorder records the headers of the requests it is sent.
type recorder struct {
	mu   sync.Mutex
	seen []http.Header
}

func (r *recorder) record(h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, h.Clone())
}

// secrets returns the configured headers that the recorded requests held.
func (r *recorder) secrets() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var got []string
	for _, h := range r.seen {
		for _, k := range []string{"Authorization", "X-Api-Key"} {
			if v := h.Get(k); v != "" {
				got = append(got, k+": "+v)
			}
		}
	}
	return got
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

var secretHeaders = map[string]string{"Authorization": "Bearer s3cret-t0ken", "X-Api-Key": "k3y-0f-the-server"}

func TestHeadersStayWithTheirOrigin(t *testing.T) {
	t.Run("a redirect to another origin gets none", func(t *testing.T) {
		handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return testserver.New(testserver.Options{}) }, nil)
		var other recorder
		elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			other.record(r.Header)
			handler.ServeHTTP(w, r)
		}))
		t.Cleanup(elsewhere.Close)
		var own recorder
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			own.record(r.Header)
			http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(origin.Close)
		s := Server{Name: "moved", Transport: HTTP, URL: origin.URL + "/mcp", Headers: secretHeaders}
		reg := registry(t, start(t, Options{}, s), tools.Limits{})
		if out, err := reg.Call(context.Background(), "echo", map[string]any{"text": "moved"}); err != nil || out != "moved" {
			t.Errorf("got %q, %v", out, err)
		}
		if got := other.secrets(); other.count() == 0 || len(got) > 0 {
			t.Errorf("the other origin got %d requests, with %q", other.count(), got)
		}
		if got := own.secrets(); len(got) == 0 {
			t.Error("the configured origin got no headers")
		}
	})
	t.Run("an SSE endpoint at another host gets none", func(t *testing.T) {
		var other recorder
		elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			other.record(r.Header)
			w.WriteHeader(http.StatusAccepted)
		}))
		t.Cleanup(elsewhere.Close)
		endpoint := strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1) + "/message"
		var own recorder
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			own.record(r.Header)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", endpoint)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		t.Cleanup(origin.Close)
		s := Server{Name: "sse", Transport: SSE, URL: origin.URL + "/sse", Headers: secretHeaders}
		_, err := Start(context.Background(), []Server{s}, Options{StartTimeout: time.Second})
		if err == nil {
			t.Fatal("the server started")
		}
		if got := other.secrets(); other.count() == 0 || len(got) > 0 {
			t.Errorf("the endpoint got %d requests, with %q", other.count(), got)
		}
		if got := own.secrets(); len(got) != 2 {
			t.Errorf("the configured origin got %q", got)
		}
	})
}

func TestNetworkPolicy(t *testing.T) {
	t.Run("a server at a public address reaches only public ones", func(t *testing.T) {
		tests := []struct {
			addr    string
			refused bool
		}{
			{"169.254.169.254:80", true},
			{"[fd00:ec2::254]:80", true},
			{"10.0.0.7:443", true},
			{"192.168.1.1:8080", true},
			{"127.0.0.1:8931", true},
			{"[::1]:443", true},
			{"93.184.216.34:443", false},
			{"[2606:4700:4700::1111]:443", false},
		}
		for _, tt := range tests {
			network := "tcp4"
			if strings.HasPrefix(tt.addr, "[") {
				network = "tcp6"
			}
			err := policy(false)(network, tt.addr, nil)
			if refused := err != nil && tools.IsBlockedAddress(err); refused != tt.refused {
				t.Errorf("%s: refused = %v (%v), want %v", tt.addr, refused, err, tt.refused)
			}
		}
		if policy(true) != nil {
			t.Error("a server at a private address is held to the public-only policy")
		}
	})
	t.Run("a server is at a private address when its host is or names one", func(t *testing.T) {
		tests := []struct {
			host    string
			private bool
		}{
			{"127.0.0.1", true},
			{"::1", true},
			{"localhost", true},
			{"mcp.localhost", true},
			{"10.1.2.3", true},
			{"169.254.169.254", true},
			{"93.184.216.34", false},
			{"2606:4700:4700::1111", false},
		}
		for _, tt := range tests {
			if got, err := privateHost(context.Background(), tt.host); err != nil || got != tt.private {
				t.Errorf("%s: got %v, %v; want %v", tt.host, got, err, tt.private)
			}
		}
	})
	t.Run("the client of a server at a public address refuses a metadata or loopback address", func(t *testing.T) {
		local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("a request reached the loopback server, with %q", r.Header.Get("Authorization"))
		}))
		t.Cleanup(local.Close)
		client, err := newRemote(context.Background(), "https://93.184.216.34/mcp", secretHeaders, DefaultMaxReply, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{"http://169.254.169.254/latest/meta-data/", local.URL} {
			_, err := client.Get(u)
			if !tools.IsBlockedAddress(err) || !strings.Contains(err.Error(), "a non-public address, for an MCP server configured at a public one") {
				t.Errorf("%s: got %v", u, err)
			}
		}
	})
}
