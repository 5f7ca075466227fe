//go:build unix

package tools

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

// TestLoadPluginsReadsWithABound points the plugin file at what would be
// read without end or waited on forever: each is refused at once.
func TestLoadPluginsReadsWithABound(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "tools.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.yaml")
	os.WriteFile(large, []byte("# "+strings.Repeat("x", MaxConfigFile)+"\n"), 0o600)
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
				_, err := LoadPlugins(tt.path, Options{})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("LoadPlugins = %v, want %v saying %q", err, tt.err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("LoadPlugins blocked")
			}
		})
	}
}
