package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

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
