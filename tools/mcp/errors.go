package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
)

// maxQuoted caps what an error for people quotes of a server's own
// words, such as the message of an error it sent back.
const maxQuoted = 4 << 10

// clip cuts s at maxQuoted bytes, with a marker.
func clip(s string) string { return tools.Truncate(s, maxQuoted) }

// StartError is the error of a server that could not start: its command
// failed or exited, it did not answer in time, or it broke the protocol.
// Its message quotes the last lines the server wrote on stderr, where
// servers say what went wrong.
type StartError struct {
	// Server is the server's name.
	Server string
	// File is the config file that declares it.
	File string
	// Err says what went wrong. It matches context.DeadlineExceeded when
	// the server did not answer within the start-up time limit.
	Err error
	// URL is the address of a remote server, and empty for one that runs
	// a command.
	URL string
	// Stderr holds the last lines of the stderr of a server that runs a
	// command, control characters escaped.
	Stderr []string
}

func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %q", e.Server)
	if e.File != "" {
		fmt.Fprintf(&b, " (from %s)", e.File)
	}
	fmt.Fprintf(&b, " did not start: %s", escape.Visible(clip(e.Err.Error())))
	if e.URL == "" {
		writeStderr(&b, e.Stderr)
	}
	return b.String()
}

func (e *StartError) Unwrap() error { return e.Err }

// timeoutError says what did not happen in time, and matches
// context.DeadlineExceeded.
type timeoutError string

func (e timeoutError) Error() string { return string(e) }

func (e timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// ErrServerStopped is matched (with errors.Is) by the error of a call to a
// server that stopped in the middle of the run and could not be restarted,
// or stopped again after its one restart.
var ErrServerStopped = errors.New("the MCP server stopped")

// stoppedError is the error of a call whose server stopped for good. The
// model reads it.
type stoppedError struct {
	server string
	why    string // "stopped (exit status 3) and was restarted once already"
	stderr []string
	remote bool
}

func (e *stoppedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the MCP server %q %s, so its tools cannot be used for the rest of this run: do not call them again; answer with what you have, or try another way", e.server, e.why)
	if !e.remote {
		writeStderr(&b, e.stderr)
	}
	return b.String()
}

func (e *stoppedError) Is(target error) bool { return target == ErrServerStopped }

// writeStderr appends the last lines of a server's stderr to a message.
func writeStderr(b *strings.Builder, lines []string) {
	if len(lines) == 0 {
		b.WriteString("; it wrote nothing on stderr")
		return
	}
	b.WriteString("; the last lines of its stderr:")
	for _, l := range lines {
		b.WriteString("\n    ")
		b.WriteString(l)
	}
}
