//go:build unix

package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/bounded"
)

// TestLoadConfigReadsWithABound points a file of servers, and a server's
// envFile, at what would be read without end or waited on forever: each
// is refused at once, with what it is named.
func TestLoadConfigReadsWithABound(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	large := writeFile(t, dir, "large.env", "A="+strings.Repeat("x", tools.MaxConfigFile)+"\n")
	largeJSON := writeFile(t, dir, "large.json", `{"mcpServers": {}, "pad": "`+strings.Repeat("x", tools.MaxConfigFile)+`"}`)
	envFile := func(path string) string {
		return writeFile(t, dir, "env.json", `{"servers": {"s": {"command": "x", "envFile": "`+path+`"}}}`)
	}
	tests := []struct {
		name string
		path func() string
		err  error
		want string
	}{
		{"a file of servers that is a device", func() string { return "/dev/zero" }, bounded.ErrNotRegular, "/dev/zero is a character device, not a file"},
		{"a file of servers that is a FIFO", func() string { return fifo }, bounded.ErrNotRegular, "is a named pipe (FIFO), not a file"},
		{"a file of servers past the bound", func() string { return largeJSON }, bounded.ErrTooLarge, "is larger than 1 MiB"},
		{"an envFile that is a device", func() string { return envFile("/dev/zero") }, nil, `"envFile" /dev/zero cannot be read: /dev/zero is a character device, not a file`},
		{"an envFile that is a FIFO", func() string { return envFile(fifo) }, nil, "is a named pipe (FIFO), not a file"},
		{"an envFile past the bound", func() string { return envFile(large) }, nil, "large.env is larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := LoadConfig(tt.path())
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("LoadConfig blocked")
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadConfig = %v, want a ConfigError saying %q", err, tt.want)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("LoadConfig = %v, want it to match %v", err, tt.err)
			}
		})
	}
	if _, err := os.Stat(fifo); err != nil {
		t.Fatal(err)
	}
}
