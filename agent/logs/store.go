package logs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/react-agent/react-agent/agent/model"
	_ "modernc.org/sqlite" // The "sqlite" driver: pure Go, no C toolchain.
)

// ErrNotFound is returned for a conversation that is not in the log.
var ErrNotFound = errors.New("not in the log")

// ErrNewerSchema is returned by [Open] for a database written by a newer
// version of the program, whose schema this one does not know.
var ErrNewerSchema = errors.New("the database was written by a newer version")

// BusyTimeout is how long a write waits for another process's write to
// the same database before it fails.
const BusyTimeout = 5 * time.Second

// Store is a log database. It is safe for concurrent use, and several
// processes may open the same file at once.
type Store struct {
	db      *sql.DB
	path    string
	secrets []string
	redact  *model.Redactor

	insertEvent *sql.Stmt
}

// Option configures a Store.
type Option func(*Store)

// WithSecrets adds exact strings, such as the API key in use, that are
// removed from all text before it is written, on top of the shapes of
// secrets [model.RedactText] knows. Strings shorter than
// [model.MinSecret], too short to be a key and too likely to occur in
// ordinary text, are ignored.
func WithSecrets(secrets ...string) Option {
	return func(s *Store) { s.secrets = append(s.secrets, secrets...) }
}

// DefaultPath returns where the log is kept unless told otherwise:
// react-agent/logs.db under $XDG_DATA_HOME when it is set to an absolute
// path, else under the platform's data directory: ~/.local/share on Linux
// and other Unix systems, ~/Library/Application Support on macOS,
// %LocalAppData% on Windows.
func DefaultPath() (string, error) {
	dir, err := dataDir()
	if err != nil {
		return "", fmt.Errorf("finding the user's data directory for the log: %w", err)
	}
	return filepath.Join(dir, "react-agent", "logs.db"), nil
}

// dataDir returns the user's data directory.
func dataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return "", errors.New("%LocalAppData% is not set")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	switch runtime.GOOS {
	case "darwin", "ios":
		return filepath.Join(home, "Library", "Application Support"), nil
	case "plan9":
		return filepath.Join(home, "lib"), nil
	}
	return filepath.Join(home, ".local", "share"), nil
}

// Open opens the log database at path, creating it and its directory if
// need be, and brings its schema up to date. A relative path is taken
// from the working directory.
//
// The log holds the questions, answers and tool output of every run, so
// it is private: a directory Open creates has mode 0700, and the database
// and its -wal and -shm files 0600. Files that others could read, as
// versions before this one created them, lose group and other access.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("finding the log %s: %w", path, err)
	}
	path = abs
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the log's directory: %w", err)
	}
	if err := private(path); err != nil {
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	// Switching a new database to WAL, or creating its tables, while
	// another process does the same can fail at once with SQLITE_BUSY,
	// without waiting for the busy timeout: try again within it.
	deadline := time.Now().Add(BusyTimeout)
	for {
		s, err := open(ctx, path, opts)
		if err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// open makes one attempt at Open, at an absolute path.
func open(ctx context.Context, path string, opts []Option) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	// One connection: writes of one process go one at a time, and the
	// busy timeout settles those of other processes.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	for _, opt := range opts {
		opt(s)
	}
	s.redact = model.NewRedactor(s.secrets...)
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	return s, nil
}

// private creates the database file at path with mode 0600 unless it
// exists, and takes group and other access away from it and the files
// SQLite keeps beside it, which SQLite creates with the database's mode.
// Taking access away is best effort: a file of another user keeps its
// mode.
func private(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o077 != 0 {
			os.Chmod(p, fi.Mode().Perm()&^0o077)
		}
	}
	return nil
}

// dsn is the driver's name for the database at path: every connection
// waits for locks up to BusyTimeout, writes ahead to a log so readers and
// a writer do not block each other, enforces foreign keys (deleting a run
// deletes its events), and starts transactions with the write lock taken
// (BEGIN IMMEDIATE), so that two of them never deadlock upgrading a read
// lock.
//
// It is a file: URI, which SQLite reads with its path percent-decoded:
// path, absolute, is escaped, so that spaces, ?, # and % in it are a
// file's name and not the URI's query or fragment. The driver takes its
// options from what follows the first ?, which is theirs.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/logs.db is file:///C:/logs.db
	}
	return (&url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}).String()
}

func (s *Store) init(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return err
	}
	if err := migrate(ctx, s.db); err != nil {
		return err
	}
	var err error
	s.insertEvent, err = s.db.PrepareContext(ctx, `INSERT INTO events
		(run_id, iteration, kind, text, reasoning, tool, args, failed, forced, stop_reason, duration_ns, elapsed_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	return err
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	if s.insertEvent != nil {
		s.insertEvent.Close()
	}
	return s.db.Close()
}
