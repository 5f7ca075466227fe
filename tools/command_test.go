//go:build unix

package tools

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestRunCommand(t *testing.T) {
	tests := []struct {
		name       string
		argv       []string
		stdin      string
		wantOut    string
		wantErrOut string
		wantStatus string
	}{
		{name: "stdin reaches the command", argv: []string{"cat"}, stdin: `{"a":1}`, wantOut: `{"a":1}`},
		{name: "the streams are kept apart", argv: []string{"sh", "-c", "echo out; echo err >&2"}, wantOut: "out\n", wantErrOut: "err\n"},
		{name: "a non-zero exit is a status, not an error", argv: []string{"sh", "-c", "exit 7"}, wantStatus: "exit status 7"},
		{name: "a signal is a status", argv: []string{"sh", "-c", "kill -9 $$"}, wantStatus: "signal: killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCommand(context.Background(), tt.argv, Environ(nil), strings.NewReader(tt.stdin), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(out.stdout.buf); got != tt.wantOut {
				t.Errorf("stdout = %q, want %q", got, tt.wantOut)
			}
			if got := string(out.stderr.buf); got != tt.wantErrOut {
				t.Errorf("stderr = %q, want %q", got, tt.wantErrOut)
			}
			if out.status != tt.wantStatus {
				t.Errorf("status = %q, want %q", out.status, tt.wantStatus)
			}
		})
	}
}

func TestRunCommandThatCannotStart(t *testing.T) {
	_, err := runCommand(context.Background(), []string{"/no/such/program"}, nil, nil, 1024)
	if err == nil || (!errors.Is(err, exec.ErrNotFound) && !strings.Contains(err.Error(), "no such file")) {
		t.Errorf("error = %v, want a start failure", err)
	}
}
