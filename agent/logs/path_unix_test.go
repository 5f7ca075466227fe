//go:build unix

package logs

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// state is what a test checks is left as it was: a path's mode and kind,
// and the content of a regular file.
type state struct {
	mode    os.FileMode
	content string
}

func stateOf(t *testing.T, path string) state {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := state{mode: fi.Mode()}
	if fi.Mode().IsRegular() {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		st.content = string(b)
	}
	return st
}

// TestOpenRefusesWhatIsNotALog gives Open paths that hold something other
// than a log: each is refused, with what it is named, and left as it was,
// with no file made beside it.
func TestOpenRefusesWhatIsNotALog(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"a text file", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("my notes\n"), 0o644)
		}, "a file that is not an SQLite database"},
		{"a file shorter than SQLite's header", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("SQLite"), 0o644)
		}, "a file that is not an SQLite database"},
		{"a FIFO, which is not waited on", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "a named pipe (FIFO)"},
		{"a character device", func(t *testing.T, path string) {
			if os.Getuid() != 0 {
				t.Skip("making a device takes root")
			}
			if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's numbers
				t.Fatal(err)
			}
			os.Chmod(path, 0o666)
		}, "a character device"},
		{"a folder", func(t *testing.T, path string) {
			os.Mkdir(path, 0o755)
		}, "a folder"},
		{"a socket", func(t *testing.T, path string) {
			l, err := net.Listen("unix", path)
			if err != nil {
				t.Skipf("no Unix socket here: %v", err)
			}
			t.Cleanup(func() { l.Close() })
		}, "a socket"},
		{"a link to nothing", func(t *testing.T, path string) {
			os.Symlink(filepath.Join(filepath.Dir(path), "gone"), path)
		}, "a symbolic link to nothing"},
		{"a link to a device", func(t *testing.T, path string) {
			os.Symlink("/dev/null", path)
		}, "a symbolic link to a character device"},
		{"a link to a folder", func(t *testing.T, path string) {
			os.Symlink(filepath.Dir(path), path)
		}, "a symbolic link to a folder"},
		{"a link to a file of another user", func(t *testing.T, path string) {
			if os.Getuid() != 0 {
				t.Skip("giving a file away takes root")
			}
			target := path + ".theirs"
			os.WriteFile(target, nil, 0o644)
			os.Chown(target, 65534, 65534)
			os.Symlink(target, path)
		}, "a symbolic link to a file of another user"},
		{"the database of another program", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE bookmarks (url TEXT)"); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, 0o644)
		}, "the SQLite database of another program"},
		{"a log beside a -wal that is a FIFO", func(t *testing.T, path string) {
			os.WriteFile(path, nil, 0o644)
			syscall.Mkfifo(path+"-wal", 0o644)
		}, "-wal is a named pipe (FIFO), where SQLite keeps a file of the log"},
		{"a log beside a -journal that is a link", func(t *testing.T, path string) {
			os.WriteFile(path, nil, 0o644)
			os.Symlink("/etc/passwd", path+"-journal")
		}, "-journal is a symbolic link, where SQLite keeps a file of the log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "logs.db")
			tt.make(t, path)
			before := map[string]state{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				before[e.Name()] = stateOf(t, filepath.Join(dir, e.Name()))
			}
			done := make(chan error, 1)
			go func() {
				s, err := Open(context.Background(), path)
				if err == nil {
					s.Close()
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Open blocked")
			}
			var pe *PathError
			if !errors.Is(err, ErrNotALog) || !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open = %v, want a PathError saying %q", err, tt.want)
			}
			after, _ := os.ReadDir(dir)
			if len(after) != len(before) {
				t.Errorf("Open left %d files in the folder, want the %d there before", len(after), len(before))
			}
			for _, e := range after {
				p := filepath.Join(dir, e.Name())
				was, ok := before[e.Name()]
				if !ok {
					t.Errorf("Open made %s", e.Name())
					continue
				}
				if now := stateOf(t, p); now != was {
					t.Errorf("%s went from %v to %v", e.Name(), was, now)
				}
			}
		})
	}
}

// TestOpenTakesWhatCanBeALog opens an empty file, and a link to the
// user's own log: both serve, made private.
func TestOpenTakesWhatCanBeALog(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	t.Run("an empty file becomes a log", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "logs.db")
		os.WriteFile(path, nil, 0o644)
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if m := stateOf(t, path).mode; m != 0o600 {
			t.Errorf("mode %v, want 0600", m)
		}
	})
	t.Run("a link to the user's log is followed, and the log's side files are beside it", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real.db")
		s, err := Open(ctx, real)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := s.Start(ctx, Run{Conversation: "c", Question: "q"})
		if err != nil {
			t.Fatal(err)
		}
		rec.Finish(ctx, Outcome{Answer: "a"})
		s.Close()
		link := filepath.Join(dir, "link.db")
		os.Symlink(real, link)
		s, err = Open(ctx, link)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if runs, err := s.Runs(ctx, "c"); err != nil || len(runs) != 1 {
			t.Errorf("through the link, the log holds %d runs (%v), want 1", len(runs), err)
		}
		if _, err := os.Lstat(link + "-wal"); err == nil {
			t.Error("SQLite's files went beside the link")
		}
		if _, err := os.Lstat(real + "-wal"); err != nil {
			t.Errorf("SQLite's files are not beside the log: %v", err)
		}
	})
}

// TestOpenRefusesASideFileWithOtherNames gives the log a -wal file that
// is another name of a file elsewhere, as a hard link is: SQLite would
// write it, and change its mode, so the log is refused, and the file
// left as it was.
func TestOpenRefusesASideFileWithOtherNames(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "logs.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	elsewhere := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(elsewhere, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(elsewhere, path+"-wal"); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	before := stateOf(t, elsewhere)
	_, err = Open(context.Background(), path)
	if !errors.Is(err, ErrNotALog) || !strings.Contains(err.Error(), "-wal is a file with other names (hard links)") {
		t.Fatalf("Open = %v, want the -wal refused", err)
	}
	if after := stateOf(t, elsewhere); after != before {
		t.Errorf("the linked file went from %v to %v", before, after)
	}
}
