package logs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/react-agent/react-agent/tools/bounded"
)

// ErrNotALog is matched (with errors.Is) by the error [Open] returns for a
// path that holds something other than a log: a device, a FIFO, a socket,
// a folder, a file that is neither empty nor an SQLite database, or the
// database of another program. Open then leaves it as it was.
var ErrNotALog = errors.New("not a log database")

// PathError is the error [Open] returns for a path that cannot be a log.
// It matches [ErrNotALog].
type PathError struct {
	// Path is the path given, absolute.
	Path string
	// Is says what is there: "a character device", "a folder", "a file
	// that is not an SQLite database"…
	Is string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("%s is %s: it cannot be the log, and was left as it was", e.Path, e.Is)
}

func (e *PathError) Unwrap() error { return ErrNotALog }

// sqliteHeader is how every SQLite database file starts.
const sqliteHeader = "SQLite format 3\x00"

// sideFiles are the suffixes of the files SQLite keeps beside a database.
var sideFiles = []string{"-journal", "-wal", "-shm"}

// checked is the log's file as prepare found it.
type checked struct {
	path string      // where SQLite is to open it: a link followed
	fi   fs.FileInfo // what it was, to tell it from what took its place
}

// prepare checks path before SQLite opens it, and before anything writes
// to it or changes its mode. What is there must be a regular file, empty
// or starting with SQLite's header, or nothing, in which case prepare
// creates it (and its folder, mode 0700) with mode 0600. A symbolic link
// is followed only to such a file that the user owns. The files SQLite
// keeps beside it (-journal, -wal, -shm) must be regular files of the
// user with no other name (a hard link), or not be there.
//
// The files prepare opens are closed before it returns, before SQLite
// opens them: closing a file that SQLite has open in the same process
// would drop its locks (they are POSIX locks, which belong to the process
// and go with any of its descriptors of the file).
func prepare(path string) (checked, error) { return inspect(path, true) }

// inspect is prepare, which creates a log that is not there only with
// create; without, a missing log is an error matching fs.ErrNotExist.
func inspect(path string, create bool) (checked, error) {
	for range 2 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return checked{}, fmt.Errorf("creating the log's folder: %w", err)
			}
			f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
			if errors.Is(err, fs.ErrExist) {
				continue // made meanwhile, by another run: check it
			}
			if err != nil {
				return checked{}, err
			}
			fi, err = f.Stat()
			f.Close()
			if err != nil {
				return checked{}, err
			}
			return checked{path, fi}, checkSides(path)
		}
		if err != nil {
			return checked{}, err
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			// SQLite keeps its files beside the file the link leads
			// to: that is the path to check.
			link = path
			if path, fi, err = follow(path); err != nil {
				return checked{}, err
			}
		}
		err = checkLog(path, fi)
		if pe := (*PathError)(nil); errors.As(err, &pe) && link != "" {
			pe.Path = fmt.Sprintf("%s (a link to %s)", link, path)
		}
		if err != nil {
			return checked{}, err
		}
		return checked{path, fi}, checkSides(path)
	}
	return checked{}, fmt.Errorf("%s keeps changing while it is opened", path)
}

// checkLog checks that the file at path, which fi (from os.Lstat)
// describes, is a log or an empty file to make one in.
func checkLog(path string, fi fs.FileInfo) error {
	if what := bounded.Kind(fi); what != "" {
		return &PathError{Path: path, Is: what}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	now, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !os.SameFile(fi, now):
		return fmt.Errorf("%s changed while it was checked; try again", path)
	case now.Size() == 0:
		return nil
	}
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, []byte(sqliteHeader)) {
		return &PathError{Path: path, Is: "a file that is not an SQLite database"}
	}
	return nil
}

// follow returns the path of the file the symbolic link at path leads
// to, and its information, when that is a regular file of the user.
func follow(path string) (string, fs.FileInfo, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, &PathError{Path: path, Is: "a symbolic link to nothing"}
	}
	fi, err := os.Lstat(target)
	switch {
	case err != nil:
		return "", nil, err
	case bounded.Kind(fi) != "":
		return "", nil, &PathError{Path: path, Is: "a symbolic link to " + bounded.Kind(fi)}
	case !ownedByUser(fi):
		return "", nil, &PathError{Path: path, Is: "a symbolic link to a file of another user"}
	}
	return target, fi, nil
}

// checkSides checks the files SQLite keeps beside the database at path:
// each must be a regular file of the user, or not be there.
func checkSides(path string) error {
	for _, suffix := range sideFiles {
		p := path + suffix
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		switch what := bounded.Kind(fi); {
		case fi.Mode()&fs.ModeSymlink != 0:
			return &PathError{Path: p, Is: "a symbolic link, where SQLite keeps a file of the log"}
		case what != "":
			return &PathError{Path: p, Is: what + ", where SQLite keeps a file of the log"}
		case !ownedByUser(fi):
			return &PathError{Path: p, Is: "a file of another user, where SQLite keeps a file of the log"}
		case links(fi) > 1:
			// SQLite would write it, and so the file of its other names.
			return &PathError{Path: p, Is: "a file with other names (hard links), where SQLite keeps a file of the log"}
		}
	}
	return nil
}

// private takes group and other access away from the log's file, and
// from the regular files SQLite keeps beside it, which versions before
// this one left readable by all. It is best effort: a file of another
// user keeps its mode. It changes them by their paths, not through
// descriptors (see prepare), each when it is still a regular file, and
// the log's the file prepare checked.
func private(c checked) {
	if fi, err := os.Lstat(c.path); err == nil && os.SameFile(fi, c.fi) {
		tighten(c.path, fi)
	}
	for _, suffix := range sideFiles {
		if fi, err := os.Lstat(c.path + suffix); err == nil {
			tighten(c.path+suffix, fi)
		}
	}
}

// tighten takes group and other access away from the regular file at
// path, which fi describes, unless it has other names (hard links): then
// it is elsewhere too, perhaps where it must stay readable.
func tighten(path string, fi fs.FileInfo) {
	if fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 && links(fi) == 1 {
		os.Chmod(path, fi.Mode().Perm()&^0o077)
	}
}
