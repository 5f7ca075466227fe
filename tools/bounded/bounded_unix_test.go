//go:build unix

package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(write("target", "via a link"), link)
	tests := []struct {
		name     string
		path     string
		want     string
		wantErr  error
		wantText string
	}{
		{"a file within the limit is read", write("small", "hello"), "hello", nil, ""},
		{"a file at the limit is read", write("exact", "0123456789"), "0123456789", nil, ""},
		{"a file past the limit is refused", write("large", "0123456789a"), "", ErrTooLarge, "is larger than 10 bytes, the most that is read of it"},
		{"a link to a file is followed", link, "via a link", nil, ""},
		{"an endless device is refused before it is read", "/dev/zero", "", ErrNotRegular, "/dev/zero is a character device, not a file"},
		{"a FIFO is refused without waiting for a writer", fifo, "", ErrNotRegular, "is a named pipe (FIFO), not a file"},
		{"a folder is refused", dir, "", ErrNotRegular, "is a folder, not a file"},
		{"a missing file is os's error", filepath.Join(dir, "gone"), "", os.ErrNotExist, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = ReadFile(tt.path, 10)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile blocked")
			}
			if tt.wantErr == nil {
				if err != nil || string(got) != tt.want {
					t.Errorf("ReadFile = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("ReadFile = %v, want %v saying %q", err, tt.wantErr, tt.wantText)
			}
		})
	}
}

func TestReadAllStopsAtTheLimit(t *testing.T) {
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer zero.Close()
	_, err = ReadAll(zero, "standard input", 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Name != "standard input" || err.Error() != "standard input is larger than 1 MiB, the most that is read of it" {
		t.Errorf("ReadAll(/dev/zero) = %v, want a TooLargeError", err)
	}
	got, err := ReadAll(strings.NewReader("short"), "x", 5)
	if err != nil || string(got) != "short" {
		t.Errorf("ReadAll = %q, %v", got, err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{300: "300 bytes", 64 << 10: "64 KiB", 1 << 20: "1 MiB", 3 << 30: "3 GiB", 1<<20 + 1: "1048577 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
