package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name          string
		err           error
		wantTemporary bool
		wantStatus    int
	}{
		{"a refused connection is temporary", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true, 0},
		{"a remote host's refusal is temporary", &net.OpError{Op: "dial", Addr: &net.TCPAddr{IP: net.IPv4(203, 0, 113, 9), Port: 80},
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}, true, 0},
		{"a refusal on this machine is permanent", &unreachableError{&net.OpError{Op: "dial", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 11434},
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}, false, 0},
		{"a refusal at IPv6's loopback is permanent", &net.OpError{Op: "dial", Addr: &net.TCPAddr{IP: net.IPv6loopback, Port: 8080},
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}, false, 0},
		{"an unreachable server behind a client is temporary", &unreachableError{errors.New("dial tcp: x")}, true, 0},
		{"HTTP 503 is temporary", &statusError{code: 503}, true, 503},
		{"HTTP 429 is temporary", fmt.Errorf("wrapped: %w", &statusError{code: 429}), true, 429},
		{"HTTP 401 is permanent", &statusError{code: 401}, false, 401},
		{"HTTP 404 is permanent", &statusError{code: 404}, false, 404},
		{"HTTP 400 is permanent", &statusError{code: 400}, false, 400},
		{"a status only in an error's text is not read", errors.New("API returned unexpected status code: 502: bad gateway"), false, 0},
		{"a timeout only in an error's text is not read", errors.New("request timeout: network operation exceeded timeout"), false, 0},
		{"a refusal only in an error's text is not read", errors.New("dial tcp 127.0.0.1:9: connect: connection refused"), false, 0},
		{"an unknown error is permanent", errors.New("invalid character 'x'"), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Classify(context.Background(), tt.err)
			if e.Temporary != tt.wantTemporary || e.StatusCode != tt.wantStatus {
				t.Errorf("got temporary %v, status %d; want %v, %d", e.Temporary, e.StatusCode, tt.wantTemporary, tt.wantStatus)
			}
			if !errors.Is(e, tt.err) {
				t.Error("the *Error does not wrap the error")
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":"model \"x\" not found"}`, `model "x" not found`},
		{`{"error":{"message":"Incorrect API key"}}`, "Incorrect API key"},
		{`{"message":"nope"}`, "nope"},
		{"Service Unavailable\n", "Service Unavailable"},
	}
	for _, tt := range tests {
		if got := errorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("errorMessage(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestExplain(t *testing.T) {
	tests := []struct {
		name     string
		e        *Error
		provider string
		want     string
		wantFix  Setting
	}{
		{"ollama unreachable", &Error{Err: &unreachableError{errors.New("connection refused")}, Temporary: true}, "ollama", "ollama serve", SettingBaseURL},
		{"server unreachable", &Error{Err: &unreachableError{errors.New("connection refused")}, Temporary: true}, "openai", "check that it is running", SettingBaseURL},
		{"a 404 on ollama", Classify(context.Background(), newStatusError(404, []byte(`{"error":"model 'm' not found"}`), "")), "ollama", "ollama pull m", SettingModel},
		{"a 401", &Error{Err: errors.New("x"), StatusCode: 401}, "anthropic", "ANTHROPIC_API_KEY", SettingAPIKey},
		{"a 400", &Error{Err: errors.New("x"), StatusCode: 400}, "openai", "rejected the request", SettingModel},
		{"a timeout", &Error{Err: ErrTimeout, Temporary: true}, "ollama", "smaller or faster model", SettingTimeout},
		{"a 503 says to try later and names no setting", &Error{Err: errors.New("x"), StatusCode: 503, Temporary: true}, "openai", "try again later", NoSetting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := explain(tt.e, tt.provider, "m", "http://h")
			got := e.Error()
			if !strings.Contains(got, tt.want) || !strings.HasPrefix(got, tt.provider+": ") {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
			if e.Fix != tt.wantFix {
				t.Errorf("Fix = %v, want %v", e.Fix, tt.wantFix)
			}
			if strings.Contains(got, "--") {
				t.Errorf("%q names a command-line flag", got)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://user:secret@host:8080/v1", "http://user:***@host:8080/v1"},
		{"http://host:8080", "http://host:8080"},
		{"not a url", "not a url"},
		{"http://user:secret@[::1", "http://user:***@[::1"},
		{"http://user@[::1/x", "http://user@[::1/x"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewNeverShowsAPassword(t *testing.T) {
	m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: "http://me:hunter2@127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "127.0.0.1:9") {
		t.Fatalf("error = %v, want the server named without its password", err)
	}
}

// TestWhatIsKnownAndWhatToDoAreFieldsApart: an error says what is known
// of a failure (Detail) and what to do about it (Hint) in fields of their
// own, which a command line reads as they are, rather than cutting one
// sentence in two at its first colon.
func TestWhatIsKnownAndWhatToDoAreFieldsApart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	m, err := New(context.Background(), Config{Provider: "ollama", BaseURL: "http://" + addr, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")})
	var me *Error
	if !errors.As(err, &me) || me.Detail != "cannot reach Ollama at http://"+addr || me.Hint != "start it with `ollama serve`" ||
		!strings.HasSuffix(err.Error(), "; cannot reach Ollama at http://"+addr+": start it with `ollama serve`") {
		t.Fatalf("error %v: detail %q, hint %q", err, me.Detail, me.Hint)
	}
}

// TestALibraryCallerGetsARefusedParameterAsATemporaryError calls a model
// of New through langchaingo's GenerateContent, as a library user does, on
// a server that refuses the stop sequences: the call is made once, and its
// error says to make it again at once, which goes without them.
func TestALibraryCallerGetsARefusedParameterAsATemporaryError(t *testing.T) {
	srv := serveStatus(t, 400, `{"error":{"message":"Unsupported parameter: 'stop' is not supported with this model."}}`)
	m, err := New(context.Background(), Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")}
	_, err = m.GenerateContent(context.Background(), msgs, llms.WithStopWords([]string{"\nObservation"}))
	var me *Error
	if !errors.As(err, &me) || !me.Temporary || me.Retry != RetryParameterDropped || !me.Retry.AtOnce() || srv.calls() != 1 {
		t.Fatalf("error %v (%+v) after %d calls: want one call, and a temporary error to make it again at once", err, me, srv.calls())
	}
	m.GenerateContent(context.Background(), msgs, llms.WithStopWords([]string{"\nObservation"}))
	if body := srv.last(); strings.Contains(body, `"stop"`) {
		t.Errorf("the call made again sent the stop sequences: %s", body)
	}
	if d := m.(Dropper).Dropped(); len(d) != 1 || d[0] != "stop" {
		t.Errorf("dropped %q", d)
	}
}

// statusServer answers every request with one status and body, and keeps
// the bodies it was sent.
type statusServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func serveStatus(t *testing.T, status int, body string) *statusServer {
	t.Helper()
	s := &statusServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(data))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *statusServer) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func (s *statusServer) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[len(s.bodies)-1]
}

func TestRetryAfterIsClampedBeforeItIsADuration(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"5", 5 * time.Second},
		{" 30 ", 30 * time.Second},
		{"-1", 0},
		{"1.5", 0},
		{"soon", 0},
		{"31622400", MaxRetryAfter},    // a year and a day: the most
		{"9223372037", MaxRetryAfter},  // a Duration's most, in seconds, and one more: once negative
		{"18446744074", MaxRetryAfter}, // past a uint64 of nanoseconds: once 290 ms
		{"99999999999999999999999", MaxRetryAfter}, // past a uint64
		{"Fri, 31 Dec 9999 23:59:59 GMT", MaxRetryAfter},
		{"Mon, 01 Jan 2001 00:00:00 GMT", 0}, // past
	} {
		if got := retryAfter(tt.header); got != tt.want {
			t.Errorf("Retry-After %q: %s, want %s", tt.header, got, tt.want)
		}
	}
}
