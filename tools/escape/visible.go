package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Visible returns s with every character that would not show as itself
// on a terminal written as an escape, the way Go writes it in a string
// literal: control characters other than newline and tab (ESC as \x1b, a
// carriage return as \x0d, the C1 controls as \u009b), format characters
// (general category Cf: the zero-width space \u200b, the text-direction
// marks, overrides and isolates, the byte-order mark, the tag characters
// \U000e0041), the other default-ignorable code points (the soft hyphen,
// the Hangul fillers, the variation selectors), the line and paragraph
// separators, and the bytes of s that are not UTF-8 (\xff). Text from
// outside (model replies, web pages, server errors, what an MCP server or
// a plugin file says of itself) goes through it before it reaches a
// terminal, so that it can neither move the cursor, recolour or retitle
// the terminal nor write its clipboard, and so that what a person reads is
// all there is: nothing hidden, nothing reordered.
//
// A joiner or a variation selector that shapes what is shown stays, since
// it shows by its effect (see [Hidden]): an emoji's U+FE0F, the U+200D
// that joins two emoji into one, and U+200C and U+200D between two letters
// of a script whose letters join or form conjuncts (Persian's
// می‌خواهم). The escapes are ambiguous with the same text written
// out (a literal \u200b shows as the escape does); what matters is that
// nothing is invisible.
func Visible(s string) string { return escaped(s, false) }

// Literal returns s as [Visible] does, but with every format and
// default-ignorable character escaped, those that join emoji or letters
// included: for text that is to be run or used as written, such as the
// arguments of a call being confirmed, in which a joiner that leaves what
// is shown unchanged still changes what runs (the folder "😀\u200d😀"
// shows as "😀😀", and is not it).
func Literal(s string) string { return escaped(s, true) }

// escaped is Visible, or Literal when literal is true.
func escaped(s string, literal bool) string {
	i, size, r := nextHidden(s, literal)
	if size == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for size > 0 {
		b.WriteString(s[:i])
		writeEscape(&b, s[i], r, size)
		s = s[i+size:]
		i, size, r = nextHidden(s, literal)
	}
	b.WriteString(s)
	return b.String()
}

// Hidden returns the first character of s that [Visible] would escape,
// described for a message ("the invisible character U+200B"), or "" when
// every character of s shows as written.
func Hidden(s string) string { return hiddenIn(s, false) }

// HiddenLiteral is [Hidden] for [Literal]: it describes the first
// character of s that Literal would escape, joiners and selectors that
// shape what is shown included, or returns "" when there is none. A
// command that is to run as it is shown is refused when it holds one.
func HiddenLiteral(s string) string { return hiddenIn(s, true) }

// hiddenIn is Hidden, or HiddenLiteral when literal is true.
func hiddenIn(s string, literal bool) string {
	i, size, r := nextHidden(s, literal)
	switch {
	case size == 0:
		return ""
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf("the byte %#x, which is not UTF-8", s[i])
	case unicode.IsControl(r):
		return fmt.Sprintf("the control character %U", r)
	case unicode.In(r, unicode.Bidi_Control):
		return fmt.Sprintf("the text-direction character %U", r)
	}
	return fmt.Sprintf("the invisible character %U", r)
}

// LiteralJSON returns JSON text with each character [Literal] would
// escape written as a \u escape, which means the same in JSON (a
// surrogate pair above U+FFFF): for JSON that is to be used as written,
// such as the input a plugin reads, shown to be confirmed. json.Marshal
// already escapes control characters, and writes bytes that are not
// UTF-8 as U+FFFD; this covers the format and default-ignorable
// characters too.
func LiteralJSON(json []byte) []byte { return escapeJSON(json, true) }

// VisibleJSON returns JSON text with each character [Visible] would
// escape written as a \u escape (a surrogate pair above U+FFFF), which
// JSON reads as the same character: the same JSON value, which a terminal
// shows as written. Go's encoder escapes only the controls below U+0020
// and U+2028 and U+2029, and leaves DEL, the C1 controls (U+009B starts an
// escape sequence on some terminals) and the text-direction characters
// as they are. Such characters stand only inside JSON strings, so nothing
// else changes. A byte that is not UTF-8 becomes \ufffd, as a decoder
// reads it.
func VisibleJSON(json []byte) []byte { return escapeJSON(json, false) }

// escapeJSON is LiteralJSON, or VisibleJSON when literal is false. It
// returns json itself when nothing in it is to be escaped.
func escapeJSON(json []byte, literal bool) []byte {
	s := string(json)
	i, size, r := nextHidden(s, literal)
	if size == 0 {
		return json
	}
	var b strings.Builder
	for size > 0 {
		b.WriteString(s[:i])
		if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		s = s[i+size:]
		i, size, r = nextHidden(s, literal)
	}
	b.WriteString(s)
	return []byte(b.String())
}

// writeEscape writes the escape of the character r, of size bytes, that
// starts with the byte c.
func writeEscape(b *strings.Builder, c byte, r rune, size int) {
	switch {
	case r == utf8.RuneError && size == 1:
		fmt.Fprintf(b, `\x%02x`, c)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	case r <= 0xffff:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// nextHidden returns the index, the size and the rune of the first
// character of s that does not show as itself, or with literal that is a
// format or default-ignorable character at all; size is 0 when there is
// none. A byte that is not UTF-8 has the rune utf8.RuneError and size 1.
func nextHidden(s string, literal bool) (i, size int, r rune) {
	prev := rune(-1)
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			prev = rune(c)
			i++
			continue
		}
		r, size = utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || hidden(s, i, size, r, prev, literal) {
			return i, size, r
		}
		prev = r
		i += size
	}
	return len(s), 0, 0
}

// hidden reports whether r, of size bytes at s[i:] and after the
// character prev (-1 at the start), would not show as itself; with
// literal, whether it is a format or default-ignorable character at all.
func hidden(s string, i, size int, r, prev rune, literal bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case !unicode.Is(unicode.Cf, r) && !unicode.Is(defaultIgnorable, r):
		return false
	case literal:
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[i+size:])
	switch r {
	case '\uFE0F', '\uFE0E': // emoji or text presentation
		return !(unicode.Is(pictographic, prev) || keycapBase(prev) && next == '\u20E3')
	case '\u200D': // zero-width joiner
		if unicode.Is(pictographic, emojiBase(s[:i])) && unicode.Is(pictographic, next) {
			return false
		}
		return !joins(prev, next)
	case '\u200C': // zero-width non-joiner
		return !joins(prev, next)
	}
	return true
}

// keycapBase reports whether r starts a keycap emoji: 1️⃣, #️⃣, *️⃣.
func keycapBase(r rune) bool {
	return r >= '0' && r <= '9' || r == '#' || r == '*'
}

// emojiBase returns the character that the last emoji of s, whose
// presentation selector and skin tone stand after it, starts with: 🏳 in
// 🏳️, 👩 in 👩🏽.
func emojiBase(s string) rune {
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != '\uFE0F' && !(r >= 0x1F3FB && r <= 0x1F3FF) {
			return r
		}
		s = s[:len(s)-size]
	}
	return -1
}

// joiningScripts are the scripts whose letters join or form conjuncts, so
// that a zero-width joiner or non-joiner between two of them changes what
// is shown: Persian writes می‌خواهم with a non-joiner, Hindi and Malayalam
// choose half forms and chillus with joiners.
var joiningScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mandaic, unicode.Mongolian,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
	unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
}

// joins reports whether a joiner between prev and next shapes them: both
// are letters or marks of the same joining script.
func joins(prev, next rune) bool {
	if !unicode.In(prev, unicode.L, unicode.M) || !unicode.In(next, unicode.L, unicode.M) {
		return false
	}
	for _, script := range joiningScripts {
		if unicode.Is(script, prev) {
			return unicode.Is(script, next)
		}
	}
	return false
}
