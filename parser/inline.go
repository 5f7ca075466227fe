package parser

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Labels inside a line: a whole step written on one line ("Thought: x
// Action: y Action Input: z"), or a made-up observation after a call. A
// label inside a line ends at a colon and is found from it, backwards.

// nextInlineLabel finds the first label after prev's value starts, before
// end, that may follow prev on its line. c keeps where the line's colons
// are from one call to the next, and where the search stopped: a line
// that grows (a reply still streaming) is searched on from there, and
// each of its colons is looked at once.
func nextInlineLabel(lt *labelSet, text string, prev mark, end int, c *colons) (mark, bool) {
	// The next half-width and full-width colons, each found at memchr
	// speed and looked for again only once passed, also by the calls for
	// the next labels of the line.
	half, full := &c.half, &c.full
	// An input written as JSON: a label inside one of its strings
	// ("{"input": "0 Thought: 0"}") is text. The JSON is read only as far
	// as the labels found in it, so that a line of many inputs is read
	// once.
	var js jsonScan
	from, rejected := prev.value, 0
	if c.from == 0 {
		js.pos = from
	} else {
		from, rejected, js = c.from, c.rejected, c.js
	}
	isJSON := prev.kind == labelInput && prev.value < end && (text[prev.value] == '{' || text[prev.value] == '[')
	for from < end {
		if *half < from {
			*half = indexByteFrom(text[:end], ':', from)
		}
		if *full < from {
			*full = indexFrom(text[:end], "：", from)
		}
		colon, size := *half, 1
		if *full < colon {
			colon, size = *full, len("：")
		}
		if colon >= end {
			// None before end: a line that grows is searched on from
			// there, less the start of a full-width colon cut at end.
			c.from, c.rejected, c.js = max(from, end-len("：")+1), rejected, js
			return mark{}, false
		}
		from = colon + size
		m, ok := labelBefore(lt, text, prev.value, colon)
		if !ok {
			continue
		}
		if isJSON && js.inString(text, m.line) {
			continue
		}
		if !followsInline(prev, m, text, m.line) {
			// Label words that are no label here: a line of many is
			// not a step written on one line.
			if rejected++; rejected == maxRejectedInline {
				c.from = math.MaxInt
				return mark{}, false
			}
			continue
		}
		m.value = from
		for m.value < end && (text[m.value] == '*' || text[m.value] == '_') {
			m.value++
		}
		for m.value < end && (text[m.value] == ' ' || text[m.value] == '\t') {
			m.value++
		}
		c.from = 0 // the next search starts at m's value
		return m, true
	}
	c.from, c.rejected, c.js = from, rejected, js
	return mark{}, false
}

// colons are where the next colons of a line stand, as far as they were
// looked for: a label inside the line ends at one. They also keep the
// search for the next label inside the line: where it goes on (0 before
// it starts, at the last label's value), how many label words it met
// that could not follow that label, and how far it read a JSON input.
type colons struct {
	half, full int // -1 when not looked for yet
	from       int
	rejected   int
	js         jsonScan
}

// grow readies c for its line grown past end, where it ended before:
// colons not found before end may stand after it.
func (c *colons) grow(end int) {
	if c.half >= end {
		c.half = -1
	}
	if c.full >= end {
		c.full = -1
	}
}

// newColons returns colons not looked for yet in text; wide says whether
// text has full-width colons at all.
func newColons(text string, wide bool) colons {
	c := colons{half: -1, full: -1}
	if !wide {
		c.full = len(text)
	}
	return c
}

// indexFrom returns the offset of the first sep in s at or after from, or
// len(s) when there is none (so that it is not looked for again).
func indexFrom(s, sep string, from int) int {
	if k := strings.Index(s[from:], sep); k >= 0 {
		return from + k
	}
	return len(s)
}

// indexByteFrom is indexFrom for a single byte.
func indexByteFrom(s string, c byte, from int) int {
	if k := strings.IndexByte(s[from:], c); k >= 0 {
		return from + k
	}
	return len(s)
}

// maxRejectedInline is how many label words a line may hold that cannot
// follow its label before the rest of the line is taken as text.
const maxRejectedInline = 4

// colonMarkup are the blanks and the closing markup that may stand
// between a label's words and its colon ("**Action**:").
var colonMarkup = newByteSet(" \t*_`")

// labelBefore reads the label whose colon is at text[colon], with its
// words starting no earlier than from: up to three words (and a number,
// and closing markup) before the colon, the longest that is a label.
func labelBefore(lt *labelSet, text string, from, colon int) (mark, bool) {
	i := colon
	// Closing markup and a number between the words and the colon.
	for i > from && colonMarkup[text[i-1]] {
		i--
	}
	for i > from && text[i-1] >= '0' && text[i-1] <= '9' {
		i--
	}
	for i > from && (colonMarkup[text[i-1]] || text[i-1] == '#') {
		i--
	}
	wordsEnd := i
	var found mark
	ok := false
	for words := 0; words < 3 && i > from; words++ {
		j := i
		for j > from && wordsEnd-j <= maxLabelRunes*4 {
			if c := text[j-1]; c < utf8.RuneSelf {
				if (c|0x20) < 'a' || (c|0x20) > 'z' {
					break
				}
				j--
				continue
			}
			r, size := utf8.DecodeLastRuneInString(text[from:j])
			if !isLetter(r) {
				break
			}
			j -= size
		}
		if j == i || wordsEnd-j > maxLabelRunes*4 {
			break
		}
		var buf [maxLabelRunes * 4]byte
		key := labelKey(buf[:0], text[j:wordsEnd])
		if kind, isLabel := lt.words[string(key)]; isLabel && !lt.prose[string(key)] {
			found, ok = mark{kind: kind, line: j}, true
		}
		// The next word back, past the spaces or the underscore or hyphen
		// between them.
		i = j
		if i > from && strings.IndexByte(" \t_-'", text[i-1]) >= 0 {
			i--
		} else {
			break
		}
	}
	if !ok {
		return mark{}, false
	}
	r, _ := utf8.DecodeRuneInString(text[found.line:])
	found.lower = unicode.IsLower(r)
	// The label stands after a space or punctuation, not inside a word.
	if found.line > from {
		b, _ := utf8.DecodeLastRuneInString(text[from:found.line])
		if isLetter(b) || unicode.IsDigit(b) {
			return mark{}, false
		}
	}
	// Opening markup before the label belongs to it.
	for found.line > from && strings.IndexByte("*_`", text[found.line-1]) >= 0 {
		found.line--
	}
	return found, true
}

// labelKey appends the lookup key of a label's words to buf: lower case,
// with no spaces, underscores or hyphens. The caller's buffer keeps the
// lookup free of allocations.
func labelKey(buf []byte, words string) []byte {
	for i := 0; i < len(words); i++ {
		if c := words[i]; c >= utf8.RuneSelf {
			return labelKeySlow(buf, words[i:])
		} else if (c|0x20) >= 'a' && (c|0x20) <= 'z' {
			buf = append(buf, c|0x20)
		}
	}
	return buf
}

// labelKeySlow is labelKey for words beyond ASCII.
func labelKeySlow(buf []byte, words string) []byte {
	for _, r := range words {
		if isWideLetter(r) {
			buf = utf8.AppendRune(buf, r)
		} else if isLetter(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		}
	}
	return buf
}

// followsInline reports whether label m, found inside a line after prev,
// is one: of a kind that may follow prev on one line, and capitalised
// unless prev was written in lower case too. A lower-case final answer
// must also open a sentence, so that "I will give the final answer: soon"
// stays prose.
func followsInline(prev, m mark, text string, at int) bool {
	switch m.kind {
	case labelArgs:
		// A generic word ("Input:") is a label inline only after the
		// tool's name and a space or comma: "web_search, Input: zig",
		// not "#Args:0".
		if prev.kind != labelAction || at == 0 || strings.IndexByte(" \t,;", text[at-1]) < 0 {
			return false
		}
	case labelInput:
		if prev.kind != labelAction && prev.kind != labelThought {
			return false
		}
	case labelAction, labelFinal:
		if prev.kind != labelThought {
			return false
		}
	case labelThought:
		if prev.kind != labelInput {
			return false
		}
	case labelObservation:
	default:
		return false
	}
	if !m.lower {
		return true
	}
	if !prev.lower {
		return false
	}
	if m.kind == labelFinal || m.kind == labelThought {
		before := strings.TrimRight(text[:at], " \t*_`")
		r, _ := utf8.DecodeLastRuneInString(before)
		return strings.ContainsRune(".!?。！？", r)
	}
	return true
}
