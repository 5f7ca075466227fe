package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name          string
		err           error
		wantTemporary bool
		wantStatus    int
	}{
		{"a refused connection is temporary", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true, 0},
		{"an unreachable server behind a client is temporary", &unreachableError{errors.New("dial tcp: x")}, true, 0},
		{"HTTP 503 is temporary", &httpStatusError{code: 503}, true, 503},
		{"HTTP 429 is temporary", fmt.Errorf("wrapped: %w", &httpStatusError{code: 429}), true, 429},
		{"HTTP 401 is permanent", &httpStatusError{code: 401}, false, 401},
		{"HTTP 404 is permanent", &httpStatusError{code: 404}, false, 404},
		{"HTTP 400 is permanent", &httpStatusError{code: 400}, false, 400},
		{"a status only in the text is found", errors.New("API returned unexpected status code: 502: bad gateway"), true, 502},
		{"a timeout in the text is temporary", errors.New("request timeout: network operation exceeded timeout"), true, 0},
		{"an unknown error is permanent", errors.New("invalid character 'x'"), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := classify(context.Background(), tt.err)
			if e.Temporary != tt.wantTemporary || e.StatusCode != tt.wantStatus {
				t.Errorf("got temporary %v, status %d; want %v, %d", e.Temporary, e.StatusCode, tt.wantTemporary, tt.wantStatus)
			}
			if !errors.Is(e, tt.err) {
				t.Error("the *ModelError does not wrap the error")
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
		e        *ModelError
		provider string
		want     string
	}{
		{"ollama unreachable", &ModelError{Err: &unreachableError{errors.New("connection refused")}, Temporary: true}, "ollama", "ollama serve"},
		{"server unreachable", &ModelError{Err: &unreachableError{errors.New("connection refused")}, Temporary: true}, "openai", "check that it is running"},
		{"a 404 on ollama", &ModelError{Err: errors.New("x"), StatusCode: 404}, "ollama", "ollama pull m"},
		{"a 401", &ModelError{Err: errors.New("x"), StatusCode: 401}, "anthropic", "ANTHROPIC_API_KEY"},
		{"a 400", &ModelError{Err: errors.New("x"), StatusCode: 400}, "openai", "check --model"},
		{"a timeout", &ModelError{Err: errCallTimeout, Temporary: true}, "ollama", "raise --timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := explain(tt.e, tt.provider, "m", "http://h").Error()
			if !strings.Contains(got, tt.want) || !strings.HasPrefix(got, tt.provider+": ") {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}
