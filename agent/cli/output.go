package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/react-agent/react-agent/tools/escape"
)

// forTerminal returns text from outside as it may be shown on w: with its
// control characters made visible when w is a terminal, and unchanged in
// a pipe or a file, where a script reads it byte for byte.
func (e *env) forTerminal(w io.Writer, text string) string {
	if e.terminal(w) {
		return escape.Visible(text)
	}
	return text
}

// forTerminalWriter passes text on, with control characters made visible
// when w is a terminal.
func (e *env) forTerminalWriter(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		if _, err := io.WriteString(w, e.forTerminal(w, string(b))); err != nil {
			return 0, err
		}
		return len(b), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// writeJSON writes v to w as indented JSON, with <, > and & as they are,
// and on a terminal with what would act on it escaped (see jsonOut).
func (e *env) writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(e.jsonOut(w))
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// plural says n of a thing: "1 model call", "2 model calls".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// jsonOut returns where JSON meant for w is written: w itself in a pipe
// or a file, where a script reads it byte for byte, and on a terminal a
// writer that writes the characters that would act on the terminal or
// reorder what it shows (DEL, the C1 controls, the text-direction
// characters…) as \u escapes: the same JSON value (see
// escape.VisibleJSON).
func (e *env) jsonOut(w io.Writer) io.Writer {
	if !e.terminal(w) {
		return w
	}
	return &jsonEscaper{w: w}
}

// jsonEscaper is the writer jsonOut returns on a terminal. A character
// cut between two writes waits for the rest of its bytes.
type jsonEscaper struct {
	w    io.Writer
	rest []byte // the start of a character cut at the end of a write
}

func (j *jsonEscaper) Write(p []byte) (int, error) {
	b := append(j.rest, p...)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	j.rest = append([]byte(nil), b[cut:]...)
	if _, err := j.w.Write(escape.VisibleJSON(b[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}
