package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// maxAttached bounds what is piped or attached to a question, in all.
const maxAttached = 1 << 20

// attachment is what is given with the question, piped or a file's: a
// text, or an image for models that see.
type attachment struct {
	name string
	text string // a text's content
	mime string // an image's type, empty for a text
	data []byte // an image's bytes
}

// attachBudget is what is left of maxAttached.
type attachBudget struct{ left int64 }

// take counts n bytes of name against the budget, with a usage error when
// they do not fit.
func (b *attachBudget) take(name string, n int64) error {
	if n > b.left {
		return usagef("with %s, what is given with the question holds more than the %d bytes a question may carry; pass less of it", name, maxAttached)
	}
	b.left -= n
	return nil
}

// attachFiles reads the files of -a. Sizes are checked before anything is
// read, so that a thousand large files fail at once; a name that is no
// file (a folder, a socket) is a usage error, and a pipe (a FIFO, or
// <(command)) is read as it comes, until Ctrl-C.
func attachFiles(ctx context.Context, names []string, budget *attachBudget) ([]attachment, error) {
	var total int64
	for _, name := range names {
		info, err := os.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, usagef("-a %s: no such file", name)
		case err != nil:
			return nil, usagef("-a %s: %v", name, errors.Unwrap(err))
		case info.IsDir():
			return nil, usagef("-a %s is a folder; attach its files, as in -a %s", name, filepath.Join(name, "notes.txt"))
		case info.Mode().IsRegular():
			if total += info.Size(); total > budget.left {
				return nil, usagef("the attached files hold %d bytes or more, past the %d a question may carry; pass less of them", total, maxAttached)
			}
		case info.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) == 0:
			return nil, usagef("-a %s is not a file (%s); attach a file, or pipe what it holds to stdin", name, info.Mode().Type())
		}
	}
	var out []attachment
	for _, name := range names {
		// Not blocking on open: a FIFO nobody writes to opens at once
		// and reads as empty.
		f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, usagef("-a %s: %v", name, errors.Unwrap(err))
		}
		a, err := readAttachment(ctx, f, name, budget)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// readAttachment reads what r holds, within the budget: a text, or an
// image (PNG, JPEG, GIF, WebP). Other binary content is a usage error.
// Reading stops when ctx ends.
func readAttachment(ctx context.Context, r io.Reader, name string, budget *attachBudget) (attachment, error) {
	if f, ok := r.(*os.File); ok {
		stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
		defer stop()
	}
	b, err := io.ReadAll(io.LimitReader(r, budget.left+1))
	if ctx.Err() != nil {
		return attachment{}, ctx.Err()
	}
	if err != nil {
		return attachment{}, fmt.Errorf("ask: reading %s: %w", name, err)
	}
	if err := budget.take(name, int64(len(b))); err != nil {
		return attachment{}, err
	}
	switch kind := http.DetectContentType(b); {
	case kind == "image/png", kind == "image/jpeg", kind == "image/gif", kind == "image/webp":
		return attachment{name: name, mime: kind, data: b}, nil
	case strings.HasPrefix(kind, "text/"), len(b) == 0:
		return attachment{name: name, text: strings.ToValidUTF8(string(b), "\uFFFD")}, nil
	default:
		return attachment{}, usagef("%s is not text but %s; attach text files, or images (PNG, JPEG, GIF, WebP) for models that see", name, strings.TrimSuffix(kind, "; charset=utf-8"))
	}
}

// withAttachments renders the texts given with a question, to follow it:
// the question is what to do, they are what to do it with. An image is
// named, in its place; it goes with the question's message.
func withAttachments(given []attachment) string {
	var b strings.Builder
	for _, t := range given {
		if t.mime != "" {
			fmt.Fprintf(&b, "\n\n--- %s: an image (%s, %d KB), attached ---", t.name, t.mime, (len(t.data)+1023)/1024)
			continue
		}
		fmt.Fprintf(&b, "\n\n--- %s ---\n%s", t.name, strings.TrimRight(t.text, "\n"))
	}
	return b.String()
}
