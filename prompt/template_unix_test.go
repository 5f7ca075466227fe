//go:build unix

package prompt

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

// TestParseFileReadsWithABound points --prompt-file at what was once read
// without end (/dev/zero), waited on forever (a FIFO) or
// read whole however large: each is refused at once, and the error names
// the bound.
func TestParseFileReadsWithABound(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.tmpl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.tmpl")
	if err := os.WriteFile(large, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(large, MaxTemplateFile+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		err        error
		want       string
	}{
		{"a device", "/dev/zero", bounded.ErrNotRegular, "/dev/zero is a character device, not a file"},
		{"a FIFO", fifo, bounded.ErrNotRegular, "is a named pipe (FIFO), not a file"},
		{"a file past the bound", large, bounded.ErrTooLarge, "is larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ParseFile(tt.path)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("ParseFile = %v, want %v saying %q", err, tt.err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ParseFile is still reading after 5s")
			}
		})
	}
}
