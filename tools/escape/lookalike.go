package escape

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxMarks is the most combining marks in a row shown as they are: enough
// for Vietnamese (ệ is e with two) and pointed Hebrew, not for a stack
// that strikes a line through or covers the line above.
const maxMarks = 2

// Unmistakable returns s with what could pass for other text written as
// an escape, the way Go writes it in a string literal (\u0430), and a
// note of what was escaped for a person to read, "" when nothing was:
//
//   - in a word (the characters between two spaces) whose letters come
//     from scripts that do not go together, such as Latin and Cyrillic in
//     "https://аpple.com" or Greek and Latin, its letters, digits and marks
//     outside ASCII;
//   - in any word, a letter or digit that is a variant of an ASCII one
//     (fullwidth ａ, mathematical bold 𝐚, superscript ¹);
//   - a run of more than maxMarks combining marks (fifty U+0336 strike the
//     line through), and a mark on an ASCII letter that makes no letter of
//     its own with it (o̸ passes for ø).
//
// Words of one script, and the scripts written together (Japanese's Han,
// Hiragana and Katakana, with Latin), are shown as they are. It is for
// what a person is to judge before it runs, such as the call a
// confirmation asks about and its input as the trace shows it; it leaves
// what [Visible] escapes as it is, and is used on text made visible.
func Unmistakable(s string) (shown, note string) {
	if ascii(s) {
		return s, "" // ASCII letters are Latin, and carry no marks
	}
	var b strings.Builder
	var found []string
	mark := func(what string) {
		if !slices.Contains(found, what) && len(found) < 4 {
			found = append(found, what)
		}
	}
	for len(s) > 0 {
		space := strings.IndexFunc(s, unicode.IsSpace)
		if space < 0 {
			space = len(s)
		}
		word := s[:space]
		mixed := mixedScripts(word)
		if mixed != "" {
			mark(mixed)
		}
		for i := 0; i < len(word); {
			r, size := utf8.DecodeRuneInString(word[i:])
			if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
				n, end := marksFrom(word, i)
				base, _ := utf8.DecodeLastRuneInString(word[:i])
				if mixed != "" || n > maxMarks || base < utf8.RuneSelf && unicode.IsLetter(base) && !composes(base, word[i:end]) {
					if n > maxMarks {
						mark(fmt.Sprintf("a run of %d combining marks", n))
					} else if mixed == "" {
						mark(fmt.Sprintf("%U, a mark that makes no letter with %q", r, base))
					}
					for _, m := range word[i:end] {
						writeEscape(&b, 0, m, utf8.RuneLen(m))
					}
					i = end
					continue
				}
				b.WriteString(word[i:end])
				i = end
				continue
			}
			switch {
			case r < utf8.RuneSelf:
				b.WriteByte(word[i])
			case mixed != "" && (unicode.IsLetter(r) || unicode.IsDigit(r)):
				writeEscape(&b, word[i], r, size)
			case asciiVariant(r):
				mark(fmt.Sprintf("%U, a variant of %q", r, norm.NFKC.String(string(r))))
				writeEscape(&b, word[i], r, size)
			default:
				b.WriteString(word[i : i+size])
			}
			i += size
		}
		s = s[space:]
		space = strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
		if space < 0 {
			space = len(s)
		}
		b.WriteString(s[:space])
		s = s[space:]
	}
	if len(found) == 0 {
		return b.String(), ""
	}
	return b.String(), "Shown as \\u escapes, as they would pass for what they are not: " + strings.Join(found, "; ") + "."
}

// marksFrom returns how many combining marks follow one another in s from
// index i, and the index after them.
func marksFrom(s string, i int) (n, end int) {
	for end = i; end < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[end:])
		if !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Me, r) {
			break
		}
		end += size
	}
	return n, end
}

// composes reports whether the ASCII letter base and the marks after it
// make one letter of their own (e and U+0301 make é), as NFC writes it.
func composes(base rune, marks string) bool {
	return utf8.RuneCountInString(norm.NFC.String(string(base)+marks)) == 1
}

// asciiVariant reports whether r, outside ASCII, is a letter or digit
// that stands for an ASCII one in another form (fullwidth, mathematical,
// superscript, circled).
func asciiVariant(r rune) bool {
	if r < utf8.RuneSelf || !unicode.IsLetter(r) && !unicode.IsNumber(r) {
		return false
	}
	k := norm.NFKC.String(string(r))
	return len(k) == 1 && k[0] < utf8.RuneSelf && (unicode.IsLetter(rune(k[0])) || unicode.IsDigit(rune(k[0])))
}

// togetherScripts are the sets of scripts written together in one word.
var togetherScripts = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// mixedScripts describes the first letter of word whose script does not
// go with the others' ("U+0430, a Cyrillic letter among Latin ones"), or
// returns "" when its letters and digits are of one script, or of scripts
// written together.
func mixedScripts(word string) string {
	var scripts []string
	first := map[string]rune{}
	for _, r := range word {
		if r < utf8.RuneSelf && !unicode.IsLetter(r) || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		s := scriptOf(r)
		if s == "Common" {
			continue // ー in タワー; mathematical letters are ASCII variants
		}
		if _, ok := first[s]; !ok {
			first[s] = r
			scripts = append(scripts, s)
		}
	}
	if len(scripts) < 2 {
		return ""
	}
	for _, set := range togetherScripts {
		if !slices.ContainsFunc(scripts, func(s string) bool { return !slices.Contains(set, s) }) {
			return ""
		}
	}
	base := scripts[0]
	if slices.Contains(scripts, "Latin") {
		base = "Latin" // what the others pass for, most often
	}
	other := scripts[slices.IndexFunc(scripts, func(s string) bool { return s != base })]
	return fmt.Sprintf("%U, a %s letter among %s ones", first[other], other, base)
}

// commonScripts are looked at first, as most text is in them.
var commonScripts = []string{"Latin", "Han", "Cyrillic", "Greek", "Hiragana", "Katakana", "Hangul", "Arabic", "Hebrew", "Devanagari", "Thai"}

// scriptOf names the script of r; "Common" for a letter or digit of no
// script of its own (ー, mathematical letters, fullwidth digits).
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		return "Latin"
	}
	for _, name := range commonScripts {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	for name, table := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(table, r) {
			return name
		}
	}
	return "Common"
}

// ascii reports whether s is all ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
