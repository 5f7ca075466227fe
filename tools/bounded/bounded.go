// Package bounded reads files and streams up to a limit, so that no input
// can make the program read without end: a file that is too large, a
// device such as /dev/zero, a FIFO nobody writes to.
//
// [ReadFile] reads a file that must be a regular file: anything else (a
// device, a FIFO, a socket, a folder) is refused before it is read, and
// without waiting on it. [ReadAll] reads a stream, such as standard
// input, which may be a pipe. Going past the limit is an error,
// [*TooLargeError], that names the input and the limit, never a silent
// cut.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrTooLarge is matched (with errors.Is) by a [*TooLargeError].
var ErrTooLarge = errors.New("too large")

// ErrNotRegular is matched (with errors.Is) by a [*NotRegularError].
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is the error of an input longer than its limit.
type TooLargeError struct {
	// Name names the input: a file's path, "standard input".
	Name string
	// Limit is the most that is read, in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most that is read of it", e.Name, Size(e.Limit))
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// NotRegularError is the error of a path that holds something other
// than a regular file.
type NotRegularError struct {
	// Path is the path given.
	Path string
	// Is says what is there, as [Kind] names it: "a FIFO", "a folder"…
	Is string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a file", e.Path, e.Is)
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// ReadFile reads the file at path, following symbolic links, when it is a
// regular file of at most limit bytes. Anything else at path is refused,
// before it is read and without waiting on it: a [*NotRegularError] for a
// device, a FIFO, a socket or a folder, a [*TooLargeError] for a longer
// file (and for one that grows past limit as it is read). Other errors
// are those of package os.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := OpenFile(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// OpenFile opens the file at path as [ReadFile] reads it, for a caller
// that reads it bit by bit (a line at a time): a regular file, refused
// at once when it is longer than limit bytes, read through a reader that
// fails with a [*TooLargeError] once it has given more (the file grew).
// Closing it closes the file.
func OpenFile(path string, limit int64) (io.ReadCloser, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		f.Close()
		return nil, &TooLargeError{Name: path, Limit: limit}
	}
	return struct {
		io.Reader
		io.Closer
	}{NewReader(f, path, limit), f}, nil
}

// Open opens the file at path for reading, following symbolic links,
// when it is a regular file, for a caller that reads it bit by bit. It
// refuses anything else with a [*NotRegularError], before opening it
// (opening some devices does something) and without waiting on it.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what the caller asked for: "open x: no such file"
		}
		return nil, err
	}
	if what := Kind(fi); what != "" {
		return nil, &NotRegularError{Path: path, Is: what}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	now, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, err
	case Kind(now) != "":
		f.Close()
		return nil, &NotRegularError{Path: path, Is: Kind(now)}
	}
	return f, nil
}

// ReadAll reads r to its end, when that comes within limit bytes; name
// names r in the [*TooLargeError] it returns otherwise.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(NewReader(r, name, limit))
	if err != nil {
		return nil, err
	}
	return data, nil
}

// NewReader returns a reader of r, for a caller that reads it bit by bit,
// that fails with a [*TooLargeError] naming r as name once r has given
// more than limit bytes.
func NewReader(r io.Reader, name string, limit int64) io.Reader {
	return &reader{r: r, name: name, left: limit}
}

// reader is the reader NewReader returns.
type reader struct {
	r    io.Reader
	name string
	left int64 // bytes still allowed; -1 once past the limit
	read int64
}

func (r *reader) Read(p []byte) (int, error) {
	if r.left < 0 {
		return 0, &TooLargeError{Name: r.name, Limit: r.read}
	}
	if int64(len(p)) > r.left+1 {
		p = p[:r.left+1] // one byte more tells a longer input
	}
	n, err := r.r.Read(p)
	if int64(n) > r.left {
		r.read += r.left
		r.left = -1
		return n - 1, &TooLargeError{Name: r.name, Limit: r.read}
	}
	r.left -= int64(n)
	r.read += int64(n)
	return n, err
}

// Kind names what fi describes when it is not a regular file: "a
// folder", "a character device", "a named pipe (FIFO)"…; "" for a regular
// file.
func Kind(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a folder"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// Size writes n bytes as people read it: 1 MiB, 64 KiB, 300 bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
