package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// openTemp opens a new log in a temporary directory.
func openTemp(t testing.TB, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "logs.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDefaultPath(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the fallback tested here is that of Linux and other Unix systems")
	}
	tests := []struct {
		name, xdg, want string
	}{
		{"XDG_DATA_HOME is used when set", "/data", "/data/react-agent/logs.db"},
		{"a relative XDG_DATA_HOME is ignored, as the spec says", "rel", "/home/u/.local/share/react-agent/logs.db"},
		{"without XDG_DATA_HOME the log is under ~/.local/share", "", "/home/u/.local/share/react-agent/logs.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			got, err := DefaultPath()
			if err != nil || got != tt.want {
				t.Fatalf("DefaultPath() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestOpenCreatesTheDirectoryAndUsesWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?", "logs.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at %s: %v", path, err)
	}
	var mode string
	var timeout int
	s.db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	s.db.QueryRow("PRAGMA busy_timeout").Scan(&timeout)
	if mode != "wal" || timeout != int(BusyTimeout.Milliseconds()) {
		t.Errorf("journal mode %q and busy timeout %dms, want wal and %dms", mode, timeout, BusyTimeout.Milliseconds())
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
}

// TestConcurrentWriters has four writers, each with its own connection as
// separate processes have, write runs into one file at once; none may be
// lost.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	const writers, runs, events = 4, 25, 6
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				s, err := Open(ctx, path)
				if err != nil {
					return err
				}
				defer s.Close()
				for r := range runs {
					rec, err := s.Start(ctx, Run{Conversation: fmt.Sprintf("w%d", w), Question: fmt.Sprintf("question %d of writer %d", r, w)})
					if err != nil {
						return err
					}
					for i := range events {
						if err := rec.Add(ctx, Event{Kind: "thought", Iteration: i + 1, Text: "thinking"}); err != nil {
							return err
						}
					}
					if err := rec.Finish(ctx, Outcome{Answer: "done", StopReason: "final_answer"}); err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var nRuns, nEvents, nFinished int
	s.db.QueryRow("SELECT COUNT(*), COUNT(finished_at) FROM runs").Scan(&nRuns, &nFinished)
	s.db.QueryRow("SELECT COUNT(*) FROM events").Scan(&nEvents)
	if nRuns != writers*runs || nFinished != nRuns || nEvents != writers*runs*events {
		t.Fatalf("%d runs (%d finished) and %d events, want %d runs, all finished, and %d events",
			nRuns, nFinished, nEvents, writers*runs, writers*runs*events)
	}
	list, err := s.List(ctx, Query{Text: "question", Limit: 100})
	if err != nil || len(list) != writers {
		t.Fatalf("search found %d conversations (%v), want %d", len(list), err, writers)
	}
	for _, c := range list {
		if c.Runs != runs {
			t.Errorf("conversation %s has %d runs, want %d", c.ID, c.Runs, runs)
		}
	}
}

// TestOpenTakesAnyPath opens logs at relative paths and at names that
// mean something in a URI: each is a file of that name, where the name
// says, and nowhere else.
func TestOpenTakesAnyPath(t *testing.T) {
	tests := []struct{ name, path string }{
		{"a bare relative name", "rel.db"},
		{"a name under the working directory", "./x.db"},
		{"a path into a folder it creates", "sub/x.db"},
		{"a name with spaces", "my logs.db"},
		{"a name with a question mark", "what?.db"},
		{"a name with a hash", "a#b.db"},
		{"a name with a percent sign", "100%.db"},
		{"a name that looks escaped", "a%20b.db"},
		{"a name with a colon and an at sign", "a:b@c.db"},
		{"a name in another script", "журнал.db"},
		{"a name with an ampersand and an equals sign", "a&_pragma=x.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			ctx := context.Background()
			s, err := Open(ctx, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := s.Start(ctx, Run{Conversation: "c", Question: "q"})
			if err == nil {
				err = rec.Finish(ctx, Outcome{Answer: "a"})
			}
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, tt.path)
			if s.Path() != want {
				t.Errorf("Path() = %q, want %q", s.Path(), want)
			}
			s.Close()
			if _, err := os.Stat(want); err != nil {
				t.Fatalf("no database at %s: %v", want, err)
			}
			var others []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if !d.IsDir() && p != want && p != want+"-wal" && p != want+"-shm" {
					others = append(others, p)
				}
				return nil
			})
			if len(others) > 0 {
				t.Errorf("files other than the database: %q", others)
			}
			again, err := Open(ctx, want)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if runs, err := again.Runs(ctx, "c"); err != nil || len(runs) != 1 {
				t.Errorf("the run is not in %s when opened again: %v", want, err)
			}
		})
	}
}
