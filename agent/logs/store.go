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

	"github.com/react-agent/react-agent/agent/redact"
	"modernc.org/sqlite" // The "sqlite" driver: pure Go, no C toolchain.
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
	db        *sql.DB
	path      string
	readOnly  bool // opened with OpenReadOnly
	secrets   []string
	redact    *redact.Redactor
	closeWait time.Duration

	insertEvent *sql.Stmt
}

// Option configures a Store.
type Option func(*Store)

// WithSecrets adds exact strings, such as the API key in use, that are
// removed from all text before it is written, on top of the shapes of
// secrets [redact.Text] knows. Strings shorter than
// [redact.MinSecret], too short to be a key and too likely to occur in
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
// Before anything writes to the path, Open checks what is there: nothing
// (the log is created), an empty file, or an SQLite database; a symbolic
// link is followed to such a file of the user's own. Anything else (a
// device such as /dev/null, a FIFO, a folder, a text file) is refused with
// a [*PathError], matching [ErrNotALog], and left as it was; so is the
// database of another program.
//
// The log holds the questions, answers and tool output of every run, so
// it is private: a directory Open creates has mode 0700, and the database
// and its -wal and -shm files 0600. Files that others could read, as
// versions before this one created them, lose group and other access.
func Open(ctx context.Context, path string, opts ...Option) (s *Store, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("finding the log %s: %w", path, err)
	}
	path = abs
	defer func() { err = damaged(path, err) }()
	file, err := prepare(path)
	if err != nil {
		if errors.As(err, new(*PathError)) {
			return nil, err
		}
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	// Switching a new database to WAL, or creating its tables, while
	// another process does the same can fail at once with SQLITE_BUSY,
	// without waiting for the busy timeout: try again within it.
	deadline := time.Now().Add(BusyTimeout)
	for {
		s, err := open(ctx, file, opts)
		if err == nil || !locked(err) || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// OpenReadOnly opens the log at path to read it alone, as the commands
// that only read it do: it writes nothing, not the files SQLite keeps
// beside a log when it can do without, nor the mode of any file, so that
// a log in a read-only folder, or on a read-only disk, can be read. The
// path is checked as [Open] checks it; a missing log is an error matching
// fs.ErrNotExist, and one written by an older version is brought up to
// date first, as Open does, where it can be written. A
// search of a log opened so does not see the events of unfinished runs
// that were not yet indexed, as indexing them is a write.
func OpenReadOnly(ctx context.Context, path string) (s *Store, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("finding the log %s: %w", path, err)
	}
	path = abs
	defer func() { err = damaged(path, err) }()
	file, err := inspect(path, false)
	if err != nil {
		if errors.As(err, new(*PathError)) {
			return nil, err
		}
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	// A log in WAL mode is read with the -shm file SQLite keeps beside it,
	// which a read-only folder keeps it from making: the log is then read
	// as immutable, as nobody can write it there either.
	var db *sql.DB
	for _, mode := range []string{"&mode=ro", "&mode=ro&immutable=1"} {
		if db, err = sql.Open("sqlite", dsn(file.path)+mode); err != nil {
			return nil, fmt.Errorf("opening the log %s: %w", path, err)
		}
		db.SetMaxOpenConns(1)
		s = &Store{db: db, path: file.path, readOnly: true, closeWait: DefaultCloseWait, redact: redact.New()}
		var se *sqlite.Error
		if err = s.checkOwn(ctx); !errors.As(err, &se) || se.Code()&0xff != 8 && se.Code()&0xff != 14 { // SQLITE_READONLY, SQLITE_CANTOPEN
			break
		}
		db.Close()
	}
	fail := func(err error) (*Store, error) {
		db.Close()
		if errors.As(err, new(*PathError)) {
			return nil, err
		}
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	if err != nil {
		return fail(err)
	}
	var v int
	if err := db.QueryRowContext(ctx, "SELECT user_version FROM pragma_user_version").Scan(&v); err != nil {
		return fail(err)
	}
	switch {
	case v > len(migrations):
		return fail(fmt.Errorf("the log database has schema version %d, newer than this program's %d: %w", v, len(migrations), ErrNewerSchema))
	case v < len(migrations) && v > 0:
		// Written by an older version: brought up to date first, where
		// it can be written.
		db.Close()
		if w, err := Open(ctx, path); err == nil {
			w.readOnly = true
			return w, nil
		}
		return nil, fmt.Errorf("opening the log %s: it has schema version %d, older than this program's %d, and cannot be brought up to date where it is: run a question with it once where it can be written", path, v, len(migrations))
	}
	return s, nil
}

// ErrDamaged is matched (with errors.Is) by the error of a log that
// SQLite finds damaged on disk ("database disk image is malformed").
var ErrDamaged = errors.New("the log is damaged")

// damaged returns err, of the log at path, as an error that matches
// ErrDamaged when SQLite found the database damaged or no database.
func damaged(path string, err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
		return fmt.Errorf("%w (%s): %w", ErrDamaged, path, err)
	}
	return err
}

// open makes one attempt at Open, of the database file that prepare
// checked.
func open(ctx context.Context, file checked, opts []Option) (*Store, error) {
	path := file.path
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	// One connection: writes of one process go one at a time, and the
	// busy timeout settles those of other processes.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path, closeWait: DefaultCloseWait}
	for _, opt := range opts {
		opt(s)
	}
	s.redact = redact.New(s.secrets...)
	if err := s.init(ctx, file); err != nil {
		db.Close()
		if errors.As(err, new(*PathError)) {
			return nil, err
		}
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	return s, nil
}

// dsn is the driver's name for the database at path: every connection
// waits for locks up to BusyTimeout, enforces foreign keys (deleting a run
// deletes its events), and starts transactions with the write lock taken
// (BEGIN IMMEDIATE), so that two of them never deadlock upgrading a read
// lock. The database writes ahead to a log, so that readers and a writer
// do not block each other: init switches it to WAL once it has checked
// that the database is a log, since the switch is written in the file.
//
// It is a file: URI, which SQLite reads with its path percent-decoded:
// path, absolute, is escaped, so that spaces, ?, # and % in it are a
// file's name and not the URI's query or fragment. The driver takes its
// options from what follows the first ?, which is theirs.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/logs.db is file:///C:/logs.db
	}
	return (&url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}).String()
}

func (s *Store) init(ctx context.Context, file checked) error {
	if err := s.db.PingContext(ctx); err != nil {
		return err
	}
	if err := s.checkOwn(ctx); err != nil {
		return err
	}
	private(file)
	// Its row is read to the end, so that the statement leaves no read
	// transaction open, which would make each later write of this
	// connection fail at once once another process has written.
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
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

// checkOwn refuses the database of another program, before anything is
// written to it: one with tables but no schema version, or with a schema
// version but no table of runs. It reads both in one statement, so that
// another process migrating a new log meanwhile is seen before or after,
// never halfway.
func (s *Store) checkOwn(ctx context.Context) error {
	var version, tables, runs int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version),
		count(*), count(*) FILTER (WHERE name = 'runs') FROM sqlite_schema WHERE type = 'table'`).Scan(&version, &tables, &runs)
	if err != nil {
		return err
	}
	if version == 0 && tables > 0 || version > 0 && runs == 0 {
		return &PathError{Path: s.path, Is: "the SQLite database of another program"}
	}
	return nil
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
