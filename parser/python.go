package parser

import "strings"

// Arguments written as Python values: frameworks that ask a model for a
// tuple ("Action Input: ('Paris',)") evaluate what it writes, and models
// write a call's arguments as Python does ("web_search('zig', 3)").

// pyArgs are the arguments of a Python call or tuple: the positional ones
// in order, and the keyword ones.
type pyArgs struct {
	pos []any
	kw  map[string]any
}

// maxPyArgs bounds the arguments read: a call has a few.
const maxPyArgs = 8

// readPyArgs reads s, what stands between the parentheses of a call or a
// tuple, as Python arguments: literals (strings, numbers, True, False,
// None, lists and dicts), positional ones first, then "name=value" ones.
// It reports whether s reads as a tuple or call of literals at all: a
// string among the positional arguments, a comma after the last, more
// than one, or keywords; "(5)" and "(2+2)" are not. It reads in one pass,
// strings at memchr speed, and no more than maxPyArgs arguments; the
// values are held as read until the whole reads as arguments, so that a
// text that is none costs no allocation.
func readPyArgs(s string) (pyArgs, bool) {
	var vals [maxPyArgs]pyValue
	var kw map[string]any
	r := jsonReader{s: s}
	n, text, trailing := 0, false, false
	for {
		r.space()
		if r.i == len(s) {
			if n == 0 && kw == nil {
				return pyArgs{}, false
			}
			trailing = true // the comma read last ended the arguments
			break
		}
		key := ""
		if k := keywordAt(s, r.i); k > 0 {
			key = strings.TrimSpace(s[r.i:k])
			r.i = k + 1
			r.space()
		} else if kw != nil || n == maxPyArgs {
			return pyArgs{}, false // a positional argument after a keyword one, or too many
		}
		v, ok := r.literal()
		if !ok {
			return pyArgs{}, false
		}
		if key != "" {
			if kw == nil {
				kw = map[string]any{}
			}
			kw[key] = v.value()
		} else {
			text = text || v.text || isContainer(v.v)
			vals[n], n = v, n+1
		}
		r.space()
		if r.i == len(s) {
			break
		}
		if s[r.i] != ',' {
			return pyArgs{}, false
		}
		r.i++
	}
	if !text && !trailing && n < 2 && kw == nil {
		return pyArgs{}, false
	}
	a := pyArgs{kw: kw}
	if n > 0 {
		a.pos = make([]any, n)
		for i := range n {
			a.pos[i] = vals[i].value()
		}
	}
	return a, true
}

// pyValue is a literal as readPyArgs reads it: a string as such, so that
// reading it costs no allocation, or any other value.
type pyValue struct {
	text bool
	s    string
	v    any
}

// value returns the literal as the arguments hold it.
func (v pyValue) value() any {
	if v.text {
		return v.s
	}
	return v.v
}

// keywordAt returns the offset of the "=" of a keyword argument that
// starts at s[i] ("max_results=3"), or 0 when none does.
func keywordAt(s string, i int) int {
	j := i
	for j < len(s) && j-i < 64 && (s[j] == '_' || s[j]|0x20 >= 'a' && s[j]|0x20 <= 'z' || j > i && s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j == i {
		return 0
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j < len(s) && s[j] == '=' && (j+1 == len(s) || s[j+1] != '=') {
		return j
	}
	return 0
}

// literal reads one Python or JSON literal at r.i: a string, a dict, a
// list, a number, True, False or None; ok is false for anything else
// ("2+2", a name).
func (r *jsonReader) literal() (pyValue, bool) {
	if r.i >= len(r.s) {
		return pyValue{}, false
	}
	switch r.s[r.i] {
	case '(':
		return pyValue{}, false // a tuple in a tuple: not read
	case '"', '\'':
		text, err := r.str()
		return pyValue{text: true, s: text}, err == nil
	case '{', '[':
		v, err := r.value()
		return pyValue{v: v}, err == nil
	}
	// A number, True, False or None: a short word, read as far as a
	// comma or a space, and no further, so that a long text that is no
	// literal is given up on at once.
	end := r.i
	for end < len(r.s) && end-r.i <= maxLiteral && r.s[end] != ',' && r.s[end] != ' ' && r.s[end] != '\t' && r.s[end] != '\n' && r.s[end] != '\r' {
		end++
	}
	if end-r.i > maxLiteral {
		return pyValue{}, false
	}
	word := jsonReader{s: r.s[r.i:end]}
	v, err := word.bare(&noStops)
	if _, isText := v.(string); err != nil || isText {
		return pyValue{}, false // a bare word the reader kept as text is no literal
	}
	r.i = end
	return pyValue{v: v}, true
}

// maxLiteral bounds a bare literal: the longest number a tool is given.
const maxLiteral = 32

// isContainer reports whether v is an object or a list.
func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// pyTuple reads s as a tuple (or the arguments of a call) in
// parentheses: "('Paris',)", "("zig", 3)".
func pyTuple(s string) (pyArgs, bool) {
	if len(s) < 3 || s[0] != '(' || s[len(s)-1] != ')' {
		return pyArgs{}, false
	}
	return readPyArgs(s[1 : len(s)-1])
}

// empty reports whether the arguments hold nothing: no keyword, and no
// positional one but None.
func (a pyArgs) empty() bool {
	for _, v := range a.pos {
		if v != nil {
			return false
		}
	}
	return len(a.kw) == 0
}
