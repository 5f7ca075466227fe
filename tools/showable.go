package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// unshowable returns the first character of s that a terminal would not
// show as itself, described for a message, or "" when every character of
// s shows as written: control characters other than newline and tab
// (a carriage return or an escape sequence can hide what came before),
// DEL, C1 controls, bidirectional overrides and isolates (which reorder
// what is shown), and bytes that are not UTF-8.
func unshowable(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return fmt.Sprintf("the byte %#x, which is not UTF-8", s[i])
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return fmt.Sprintf("the control character %U", r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("the text-direction character %U", r)
		}
	}
	return ""
}

// escapeHidden writes the characters of JSON text that a terminal would
// not show as themselves as \u escapes, which mean the same in JSON.
// json.Marshal already escapes control characters; this covers the
// bidirectional overrides and isolates too.
func escapeHidden(json []byte) string {
	s := string(json)
	if unshowable(s) == "" {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
