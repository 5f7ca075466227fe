//go:build unix

// Package boundedtest tests that a reader of a file named on the command
// line reads it through package bounded.
package boundedtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools/bounded"
)

// ReadsWithABound points read at what was once read without end
// (/dev/zero), waited on forever (a FIFO) or read whole however large (a
// sparse file of max+1 bytes, which uses no disk): each must be refused at
// once with bounded's error, the last one naming the bound as limit says
// it ("16 MiB"). name is read's name in the messages.
func ReadsWithABound(t *testing.T, name string, read func(path string) error, max int64, limit string) {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large")
	if err := os.WriteFile(large, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(large, max+1); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		err        error
		want       string
	}{
		{"a device", "/dev/zero", bounded.ErrNotRegular, "/dev/zero is a character device, not a file"},
		{"a FIFO", fifo, bounded.ErrNotRegular, "is a named pipe (FIFO), not a file"},
		{"a file past the bound", large, bounded.ErrTooLarge, "is larger than " + limit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- read(tt.path) }()
			select {
			case err := <-done:
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s = %v, want %v saying %q", name, err, tt.err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s is still reading after 5s", name)
			}
		})
	}
}
