//go:build unix

package tools

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// readLineContext reads one line from the terminal f a byte at a time,
// reading only when a byte is there, so that when ctx ends first (Ctrl-C
// at the question) nothing is left reading: the next line the person
// types goes to whoever asks next.
func readLineContext(ctx context.Context, f *os.File) (string, error) {
	var line []byte
	var b [1]byte
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	for {
		if err := ctx.Err(); err != nil {
			return string(line), err
		}
		n, err := unix.Poll(fds, 100)
		if errors.Is(err, unix.EINTR) || err == nil && n == 0 {
			continue
		}
		if err != nil {
			return readLine(f) // not pollable: read as before
		}
		if _, err := f.Read(b[:]); err != nil {
			return string(line), err
		}
		if b[0] == '\n' {
			return string(line), nil
		}
		line = append(line, b[0])
	}
}
