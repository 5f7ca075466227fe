//go:build unix

package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools/bounded"
)

// TestNewReplayReadsWithABound points --replay at what was once read
// without end (/dev/zero reached 19 GB), waited on forever (a FIFO) or
// read whole however large: each is refused at once, and the error names
// the bound.
func TestNewReplayReadsWithABound(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.jsonl")
	if err := os.WriteFile(large, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(large, MaxCassette+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		err        error
		want       string
	}{
		{"a device", "/dev/zero", bounded.ErrNotRegular, "/dev/zero is a character device, not a file"},
		{"a FIFO", fifo, bounded.ErrNotRegular, "is a named pipe (FIFO), not a file"},
		{"a file past the bound", large, bounded.ErrTooLarge, "is larger than 256 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := NewReplay(tt.path)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("NewReplay = %v, want %v saying %q", err, tt.err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("NewReplay is still reading after 5s")
			}
		})
	}
}

// TestNewReplayStopsWhenTheContextEnds reads a cassette with a context
// that ended: a Ctrl-C or SIGTERM while a large cassette is read stops
// the read between two lines, rather than after the whole file.
func TestNewReplayStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newReplay(ctx, "../../testdata/agent/demo.jsonl")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("newReplay = %v, want context.Canceled", err)
	}
	if _, err := newReplay(context.Background(), "../../testdata/agent/demo.jsonl"); err != nil {
		t.Fatal(err)
	}
}
