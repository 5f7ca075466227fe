package trace

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible returns s with every character that could move the cursor,
// change the terminal's state or reorder text shown as a visible escape:
// control characters other than newline and tab (ESC as \x1b, a carriage
// return as \r), DEL, the C1 controls, the bidirectional overrides and
// isolates (U+202A–U+202E, U+2066–U+2069), and invalid UTF-8 bytes. Text
// from outside (model replies, web pages, server errors) goes through it
// before it reaches a terminal, so that what a person sees is what was
// there.
func Visible(s string) string {
	i := strings.IndexFunc(s, hidden)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case r == '\r':
			b.WriteString(`\r`)
		case hidden(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// hidden reports whether r is shown by Visible as an escape.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
