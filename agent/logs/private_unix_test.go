//go:build unix

package logs

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTheLogIsPrivate opens logs with the usual umask, 022, under which
// files are readable by all unless created otherwise.
func TestTheLogIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	mode := func(t *testing.T, p string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	write := func(t *testing.T, s *Store) {
		t.Helper()
		ctx := context.Background()
		rec, err := s.Start(ctx, Run{Conversation: "c", Question: "q"})
		if err != nil {
			t.Fatal(err)
		}
		rec.Add(ctx, Event{Kind: "thought", Text: "t"})
	}
	t.Run("a new log, its -wal and -shm files and its folder are its owner's alone", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "new", "logs.db")
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		write(t, s)
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if m := mode(t, p); m != 0o600 {
				t.Errorf("%s has mode %o, want 600", filepath.Base(p), m)
			}
		}
		if m := mode(t, filepath.Dir(path)); m != 0o700 {
			t.Errorf("the folder has mode %o, want 700", m)
		}
	})
	t.Run("a log an older version made readable by all is made private", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "logs.db")
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		write(t, s)
		s.Close()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644) // keeps what it holds
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			os.Chmod(p, 0o644)
		}
		s, err = Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if m := mode(t, p); m != 0o600 {
				t.Errorf("%s has mode %o, want 600", filepath.Base(p), m)
			}
		}
		if runs, err := s.Runs(context.Background(), "c"); err != nil || len(runs) != 1 {
			t.Errorf("the log lost its run: %v", err)
		}
	})
}
