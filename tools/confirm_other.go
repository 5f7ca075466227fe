//go:build !unix

package tools

import (
	"context"
	"os"
)

// readLineContext reads one line from f. Here a read cannot be stopped:
// when ctx ends first, the read goes on, and takes the next line typed.
func readLineContext(ctx context.Context, f *os.File) (string, error) {
	type result struct {
		line string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		line, err := readLine(f)
		done <- result{line, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-done:
		return r.line, r.err
	}
}
