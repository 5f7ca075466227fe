package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/react-agent/react-agent/tools"
)

// forTerminal returns text from outside as it may be shown on w: with its
// control characters made visible when w is a terminal, and unchanged in
// a pipe or a file, where a script reads it byte for byte.
func (e *env) forTerminal(w io.Writer, text string) string {
	if e.terminal(w) {
		return tools.Visible(text)
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

// writeJSON writes v to w as indented JSON, with <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
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
