package logs

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logWithARun writes a log in dir holding one answered run, and returns
// its path.
func logWithARun(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, "logs.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Start(ctx, Run{Conversation: "c1", Question: "What is 17 * 23 + 4?"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Finish(ctx, Outcome{Answer: "395", StopReason: "final_answer"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenReadOnlyReadsWhatIsLogged(t *testing.T) {
	ctx := context.Background()
	path := logWithARun(t, t.TempDir())
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(ctx, Query{Text: "17"})
	if err != nil || len(list) != 1 || list[0].ID != "c1" {
		t.Fatalf("List = %v, %v; want the run", list, err)
	}
	runs, err := s.Runs(ctx, "c1")
	if err != nil || len(runs) != 1 || runs[0].Answer != "395" {
		t.Fatalf("Runs = %v, %v; want the run", runs, err)
	}
	if _, err := s.Start(ctx, Run{Conversation: "c2", Question: "q"}); err == nil {
		t.Error("a log opened to read took a run")
	}
}

func TestOpenReadOnlyMakesNoLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", "logs.db")
	if _, err := OpenReadOnly(context.Background(), path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenReadOnly = %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the log's folder was made")
	}
}

// TestOpenReadOnlyReadsALogInAReadOnlyFolder reads a log whose folder
// cannot be written to, as logs, logs show and logs -q do: once they
// failed with "attempt to write a readonly database".
func TestOpenReadOnlyReadsALogInAReadOnlyFolder(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("no folder's mode stops root; .ci/harden_test.go runs this as nobody")
	}
	dir := t.TempDir()
	path := logWithARun(t, dir)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	s, err := OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, err := s.Runs(context.Background(), "c1"); err != nil || len(runs) != 1 {
		t.Fatalf("Runs = %v, %v", runs, err)
	}
}

// TestADamagedLogSaysSo overwrites a log's pages past its header: opening
// it fails with an error matching ErrDamaged, both ways.
func TestADamagedLogSaysSo(t *testing.T) {
	path := logWithARun(t, t.TempDir())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < len(data); i++ {
		data[i] = 0xA5
	}
	os.WriteFile(path, data, 0o600)
	for name, open := range map[string]func(context.Context, string) (*Store, error){
		"Open":         func(ctx context.Context, p string) (*Store, error) { return Open(ctx, p) },
		"OpenReadOnly": OpenReadOnly,
	} {
		_, err := open(context.Background(), path)
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s = %v, want ErrDamaged naming the path", name, err)
		}
	}
}

// TestOpenReadOnlyBringsAnOlderLogUpToDate reads a log of the first
// schema, as an older version wrote it: it is migrated first, as Open
// would, rather than refused.
func TestOpenReadOnlyBringsAnOlderLogUpToDate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "logs.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, migrations[0]+"; PRAGMA user_version = 1; INSERT INTO runs (conversation, started_at, question, answer) VALUES ('old', 1, 'q', '395')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, err := s.Runs(ctx, "old"); err != nil || len(runs) != 1 || runs[0].Answer != "395" {
		t.Fatalf("Runs = %v, %v", runs, err)
	}
}
