// Package escapetest holds what tests of text made safe to show share:
// the characters that show as nothing, or reorder or hide the text
// around them, each named.
package escapetest

// Invisibles are characters that show as nothing, or reorder or hide the
// text around them, each as a test names it: those a shell confirmation
// once let through, and their kin. escape.Visible writes each of them
// as an escape, in plain text.
var Invisibles = []struct {
	Name string
	R    rune
}{
	{"a zero-width space", '\u200B'},
	{"a left-to-right mark", '\u200E'},
	{"a right-to-left mark", '\u200F'},
	{"an Arabic letter mark", '\u061C'},
	{"a word joiner", '\u2060'},
	{"a soft hyphen", '\u00AD'},
	{"a byte-order mark", '\uFEFF'},
	{"a Mongolian vowel separator", '\u180E'},
	{"a tag letter A", '\U000E0041'},
	{"a left-to-right isolate", '\u2066'},
	{"a right-to-left override", '\u202E'},
	{"an invisible times", '\u2062'},
	{"a combining grapheme joiner", '\u034F'},
	{"a Hangul filler", '\u3164'},
	{"a variation selector out of an emoji", '\uFE0F'},
	{"a variation selector beyond the first sixteen", '\U000E0100'},
	{"a zero-width joiner between Latin letters", '\u200D'},
	{"a zero-width non-joiner between Latin letters", '\u200C'},
	{"an interlinear annotation anchor", '\uFFF9'},
	{"a shorthand format control", '\U0001BCA0'},
	{"a line separator", '\u2028'},
	{"a C1 control", '\u009B'},
	{"a reserved default-ignorable code point", '\U000E0FFF'},
}
