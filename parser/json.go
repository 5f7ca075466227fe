package parser

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON reader below is lenient: it reads JSON and the JavaScript- and
// Python-flavoured object notation models write instead, in one pass over
// the text: single-quoted strings, bare keys, bare values (kept as text),
// True/False/None, trailing commas, comments, raw control characters and
// invalid escapes in strings, and containers left open at the end of the
// text. Numbers are float64, as encoding/json gives them.

// maxDepth bounds the nesting of the values the reader accepts.
const maxDepth = 512

var errSyntax = errors.New("not an object")

// jsonReader reads one value from s.
type jsonReader struct {
	s     string
	i     int
	depth int
	// doubled is set when the outermost object opens with "{{", as
	// prompt templates escape braces and models copy them: then "{{" and
	// "}}" read as one brace each.
	doubled bool
}

// decodeObject reads the object at the start of s, ignoring whatever
// follows it, and returns it with the offset just past it.
func decodeObject(s string) (map[string]any, int, bool) {
	if len(s) == 0 || s[0] != '{' {
		return nil, 0, false
	}
	r := jsonReader{s: s}
	v, err := r.value()
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, 0, false
	}
	return obj, r.i, true
}

// decodeFlat reads s when it is a flat object written as JSON writes it,
// and nothing after: keys and string values in double quotes without
// escapes, values that are such strings, whole numbers from 0 to 10^15,
// true, false or null, and white space between them. It gives what
// decodeObject gives, in one tight pass; ok is false for anything else,
// which decodeObject reads.
func decodeFlat(s string) (obj map[string]any, ok bool) {
	if len(s) < 2 || s[0] != '{' || s[1] == '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	i := skipBlank(s, 1)
	if s[i] == '}' {
		return nil, false // {}: rare, and read by decodeObject
	}
	for {
		key, next, ok := flatString(s, i)
		if !ok {
			return nil, false
		}
		if i = skipBlank(s, next); s[i] != ':' {
			return nil, false
		}
		i = skipBlank(s, i+1)
		var v any
		switch c := s[i]; {
		case c == '"':
			text, next, ok := flatString(s, i)
			if !ok {
				return nil, false
			}
			v, i = text, next
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n, ok := smallInt(s[i:j])
			if !ok {
				return nil, false
			}
			if n < 256 {
				v = smallNumbers()[n]
			} else {
				v = float64(n)
			}
			i = j
		case strings.HasPrefix(s[i:], "true"):
			v, i = true, i+len("true")
		case strings.HasPrefix(s[i:], "false"):
			v, i = false, i+len("false")
		case strings.HasPrefix(s[i:], "null"):
			v, i = nil, i+len("null")
		default:
			return nil, false
		}
		if obj == nil {
			obj = make(map[string]any, 4)
		}
		obj[key] = v
		switch i = skipBlank(s, i); s[i] {
		case ',':
			if i = skipBlank(s, i+1); s[i] == '}' {
				return nil, false // a trailing comma: read by decodeObject
			}
		case '}':
			return obj, i == len(s)-1
		default:
			return nil, false
		}
	}
}

// skipBlank returns the offset of the first byte at or after i in s that
// is not white space; s ends in a byte that is not.
func skipBlank(s string, i int) int {
	for s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' {
		i++
	}
	return i
}

// flatString reads the string that opens at s[i] when it is not empty and
// holds no backslash, and its closing quote is followed, past white
// space, by a comma, a colon or a closing brace: then str reads it the
// same. It returns the text and the offset after the closing quote.
func flatString(s string, i int) (string, int, bool) {
	if s[i] != '"' || s[i+1] == '"' {
		return "", 0, false
	}
	k := strings.IndexByte(s[i+1:], '"')
	if k < 0 {
		return "", 0, false
	}
	text := s[i+1 : i+1+k]
	if strings.IndexByte(text, '\\') >= 0 {
		return "", 0, false
	}
	end := i + 2 + k
	if j := skipBlank(s, end); s[j] != ',' && s[j] != ':' && s[j] != '}' {
		return "", 0, false
	}
	return text, end, true
}

// decodeValue reads the whole of s as one value, with nothing but white
// space after it.
func decodeValue(s string) (any, bool) {
	r := jsonReader{s: s}
	v, err := r.value()
	if err != nil {
		return nil, false
	}
	r.space()
	return v, r.i == len(s)
}

// space skips white space and comments.
func (r *jsonReader) space() {
	for r.i < len(r.s) {
		switch c := r.s[r.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			r.i++
		case c == '/' && strings.HasPrefix(r.s[r.i:], "//"):
			if j := strings.IndexByte(r.s[r.i:], '\n'); j >= 0 {
				r.i += j
			} else {
				r.i = len(r.s)
			}
		case c == '#' && (r.i+1 == len(r.s) || r.s[r.i+1] == ' ' || r.s[r.i+1] == '\t'):
			// A Python comment: "'query': 'x',  # the query".
			if j := strings.IndexByte(r.s[r.i:], '\n'); j >= 0 {
				r.i += j
			} else {
				r.i = len(r.s)
			}
		case c == '/' && strings.HasPrefix(r.s[r.i:], "/*"):
			if j := strings.Index(r.s[r.i+2:], "*/"); j >= 0 {
				r.i += j + 4
			} else {
				r.i = len(r.s)
			}
		default:
			return
		}
	}
}

func (r *jsonReader) value() (any, error) {
	r.space()
	if r.i >= len(r.s) {
		return nil, errSyntax
	}
	switch c := r.s[r.i]; c {
	case '{':
		return r.object()
	case '[':
		return r.array()
	case '"', '\'':
		return r.str()
	}
	return r.bare(&valueStops)
}

func (r *jsonReader) object() (any, error) {
	if r.depth++; r.depth > maxDepth {
		return nil, errSyntax
	}
	obj, err := r.members()
	r.depth--
	return obj, err
}

// members reads an object's members, after its opening brace.
func (r *jsonReader) members() (any, error) {
	r.i++ // {
	if r.i < len(r.s) && r.s[r.i] == '{' && (r.doubled || r.depth == 1) {
		r.doubled = true
		r.i++
	}
	obj := map[string]any{}
	for {
		r.space()
		if r.i >= len(r.s) {
			return obj, nil // left open: closed by the end of the text
		}
		if r.s[r.i] == '}' {
			r.close()
			return obj, nil
		}
		var key string
		switch r.s[r.i] {
		case '"', '\'':
			k, err := r.str()
			if err != nil {
				return nil, err
			}
			key = k
		default:
			j := r.i
			for j < len(r.s) && !keyStops[r.s[j]] {
				j++
			}
			key = strings.TrimSpace(r.s[r.i:j])
			if key == "" {
				return nil, errSyntax
			}
			r.i = j
		}
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != ':' {
			return nil, errSyntax
		}
		r.i++
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		obj[key] = v
		r.space()
		if r.i >= len(r.s) {
			return obj, nil
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case '}':
			r.close()
			return obj, nil
		default:
			return nil, errSyntax
		}
	}
}

// close reads an object's closing brace, doubled or not.
func (r *jsonReader) close() {
	r.i++
	if r.doubled && r.i < len(r.s) && r.s[r.i] == '}' {
		r.i++
	}
}

func (r *jsonReader) array() (any, error) {
	if r.depth++; r.depth > maxDepth {
		return nil, errSyntax
	}
	defer func() { r.depth-- }()
	r.i++ // [
	list := []any{}
	for {
		r.space()
		if r.i >= len(r.s) {
			return list, nil
		}
		if r.s[r.i] == ']' {
			r.i++
			return list, nil
		}
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		r.space()
		if r.i >= len(r.s) {
			return list, nil
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			return list, nil
		default:
			return nil, errSyntax
		}
	}
}

// str reads a string quoted with " or ', or with three of them as Python
// writes long strings. A string left open runs to the end of the text.
//
// A quote that cannot end the string, because what follows it cannot
// follow a string in an object, a list or a call (a letter, as in "He said
// "yes" to it"), is taken as part of it; when no quote can end it, the
// first one does, as in strict JSON.
func (r *jsonReader) str() (string, error) {
	quote := r.s[r.i]
	q3 := `"""`
	if quote == '\'' {
		q3 = "'''"
	}
	if strings.HasPrefix(r.s[r.i:], q3) {
		start := r.i + 3
		end := strings.Index(r.s[start:], q3)
		if end < 0 {
			r.i = len(r.s)
			return unescape(r.s[start:]), nil
		}
		r.i = start + end + 3
		return unescape(r.s[start : start+end]), nil
	}
	start := r.i + 1
	// The usual string: short, with no escapes, and a quote that ends
	// it. A long one is left to the scans below, which run at memchr
	// speed.
	head := r.s[start:min(len(r.s), start+shortString)]
	if k := strings.IndexByte(head, quote); k >= 0 && strings.IndexByte(head[:k], '\\') < 0 && canFollowString(r.s[start+k+1:]) {
		r.i = start + k + 1
		return head[:k], nil
	}
	end := r.closingQuote(start, quote)
	r.i = min(end+1, len(r.s))
	return unescape(r.s[start:end]), nil
}

// shortString is how long a string may be for str to read it in one
// look.
const shortString = 48

// closingQuote returns the offset of the quote that ends the string whose
// text starts at start, or len(r.s) when none does.
func (r *jsonReader) closingQuote(start int, quote byte) int {
	first := -1
	for i := start; ; {
		k := strings.IndexByte(r.s[i:], quote)
		if k < 0 {
			if first >= 0 {
				return first
			}
			return len(r.s)
		}
		k += i
		i = k + 1
		if escaped(r.s[start:k]) {
			continue
		}
		if first < 0 {
			first = k
		}
		if canFollowString(r.s[k+1:]) {
			return k
		}
	}
}

// escaped reports whether s ends in an odd number of backslashes, which
// escape the character after it.
func escaped(s string) bool {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// canFollowString reports whether rest can follow the end of a string:
// nothing, or, after white space, a comma, a colon or a closing brace or
// bracket. A parenthesis is not one: a call's parentheses are gone by the
// time its arguments are read, and code in a string has many.
func canFollowString(rest string) bool {
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case ' ', '\t', '\r', '\n':
		case ',', ':', '}', ']':
			return true
		case '#':
			// A Python comment after the string ("'x'  # the query"),
			// not a word glued to it.
			return i > 0 && (i+1 == len(rest) || rest[i+1] == ' ')
		default:
			return false
		}
	}
	return true
}

// unescape decodes the escapes of a string's text: JSON's, and \' as
// Python writes it. An escaped underscore, as markdown writes it
// ("action\_input"), is an underscore; other escapes JSON does not have
// ("\d" in a regexp) are kept as written.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	r := jsonReader{s: s}
	for r.i < len(s) {
		k := strings.IndexByte(s[r.i:], '\\')
		if k < 0 || r.i+k+1 >= len(s) {
			b.WriteString(s[r.i:])
			break
		}
		b.WriteString(s[r.i : r.i+k])
		r.i += k + 2
		switch e := s[r.i-1]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '"', '\\', '/', '\'', '_':
			b.WriteByte(e)
		case 'u':
			b.WriteRune(r.unicodeEscape())
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

// unicodeEscape reads the hex digits of a \u escape (the "\u" is read),
// joining surrogate pairs as encoding/json does.
func (r *jsonReader) unicodeEscape() rune {
	hex := func() (rune, bool) {
		if r.i+4 > len(r.s) {
			return 0, false
		}
		n, err := strconv.ParseUint(r.s[r.i:r.i+4], 16, 32)
		if err != nil {
			return 0, false
		}
		r.i += 4
		return rune(n), true
	}
	c, ok := hex()
	if !ok {
		return utf8.RuneError
	}
	if utf16.IsSurrogate(c) {
		if strings.HasPrefix(r.s[r.i:], `\u`) {
			save := r.i
			r.i += 2
			if c2, ok := hex(); ok {
				if dec := utf16.DecodeRune(c, c2); dec != utf8.RuneError {
					return dec
				}
			}
			r.i = save
		}
		return utf8.RuneError
	}
	return c
}

// byteSet is a set of bytes.
type byteSet [256]bool

func newByteSet(chars string) (set byteSet) {
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

// The bytes that end a bare value, a bare key, and nothing.
var (
	valueStops = newByteSet(",}]\n")
	keyStops   = newByteSet(":,{}[]\"'\n")
	noStops    byteSet
)

// bare reads an unquoted value up to one of the stop bytes: a number, a
// JSON, Python or JavaScript literal, or text.
func (r *jsonReader) bare(stop *byteSet) (any, error) {
	j := r.i
	if stop == &noStops {
		j = len(r.s)
	}
	for j < len(r.s) && !stop[r.s[j]] {
		if r.s[j] == '#' && stop != &noStops && j > r.i && (r.s[j-1] == ' ' || r.s[j-1] == '\t') && (j+1 == len(r.s) || r.s[j+1] == ' ') {
			break // a Python comment after the value
		}
		j++
	}
	tok := strings.TrimSpace(r.s[r.i:j])
	r.i = j
	switch tok {
	case "":
		return nil, errSyntax
	case "true", "True":
		return true, nil
	case "false", "False":
		return false, nil
	case "null", "None", "nil", "NULL", "undefined":
		return nil, nil
	}
	if n, ok := smallInt(tok); ok {
		if n >= 0 && n < 256 {
			return smallNumbers()[n], nil
		}
		return float64(n), nil
	}
	if c := tok[0]; c == '-' || (c >= '0' && c <= '9') {
		if f, err := strconv.ParseFloat(tok, 64); err == nil && isJSONNumber(tok) {
			return f, nil
		}
	}
	return tok, nil
}

// smallInt reads tok when it is a whole number of up to 15 digits, the
// usual number in a tool's arguments, without the general float parser.
func smallInt(tok string) (int64, bool) {
	digits := tok
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(tok) {
		if n == 0 {
			return 0, false // -0, which the float parser keeps
		}
		n = -n
	}
	return n, true
}

// smallNumbers are the numbers 0 to 255 as arguments hold them, made
// once: a value taken from here costs no allocation.
var smallNumbers = sync.OnceValue(func() *[256]any {
	var nums [256]any
	for i := range nums {
		nums[i] = float64(i)
	}
	return &nums
})

// isJSONNumber reports whether tok is a number as JSON writes them (no
// hex, no underscores, no "Inf").
func isJSONNumber(tok string) bool {
	for i := 0; i < len(tok); i++ {
		if strings.IndexByte("0123456789-+.eE", tok[i]) < 0 {
			return false
		}
	}
	return true
}

// jsonEnd returns the offset just past the JSON object or list that
// starts at s[from], or -1 when it does not close within s. Quoted
// strings are skipped at memchr speed, so that brackets inside them do
// not count.
func jsonEnd(s string, from int) int {
	depth := 0
	for i := from; i < len(s); i++ {
		// The next quote or bracket, past the text between.
		k := strings.IndexAny(s[i:], "\"'{}[]")
		if k < 0 {
			return -1
		}
		i += k
		switch s[i] {
		case '"', '\'':
			end := stringEnd(s, i)
			if end < 0 {
				return -1
			}
			i = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// jsonScan reads a JSON value a piece at a time, as far as it is asked
// to, to tell whether an offset is inside one of its strings.
type jsonScan struct {
	pos    int  // how far it has read
	depth  int  // the brackets open
	quote  byte // the quote of the string it is in, or 0
	closed bool // the value has ended
}

// inString reads s up to offset to and reports whether to is inside a
// string of the value (and the value has not ended before it).
func (js *jsonScan) inString(s string, to int) bool {
	for js.pos < to && !js.closed {
		if js.quote != 0 {
			k := strings.IndexByte(s[js.pos:to], js.quote)
			if k < 0 {
				js.pos = to
				break
			}
			i := js.pos + k
			backslashes := 0
			for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
				backslashes++
			}
			if backslashes%2 == 0 {
				js.quote = 0
			}
			js.pos = i + 1
			continue
		}
		switch c := s[js.pos]; c {
		case '"', '\'':
			js.quote = c
		case '{', '[':
			js.depth++
		case '}', ']':
			if js.depth--; js.depth <= 0 {
				js.closed = true
			}
		}
		js.pos++
	}
	return js.quote != 0 && !js.closed
}

// stringEnd returns the offset just past the quoted string that starts at
// s[at], or -1 when it is not closed within s: the first quote like the
// opening one that no backslash escapes.
func stringEnd(s string, at int) int {
	q := s[at]
	for i := at + 1; i < len(s); {
		k := strings.IndexByte(s[i:], q)
		if k < 0 {
			return -1
		}
		i += k
		backslashes := 0
		for j := i - 1; j > at && s[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i + 1
		}
		i++
	}
	return -1
}
