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
const maxPyArgs = 16

// readPyArgs reads s, what stands between the parentheses of a call or a
// tuple, as Python arguments: literals (strings, numbers, True, False,
// None, lists and dicts), positional ones first, then "name=value" ones.
// It reports whether s reads as a tuple or call of literals at all: a
// string among the positional arguments, a comma after the last, more
// than one, or keywords; "(5)" and "(2+2)" are not. Strings are read at
// memchr speed, and no more than maxPyArgs arguments: a long input that
// is no call is given up on early.
func readPyArgs(s string) (pyArgs, bool) {
	if !pyArgsShape(s) {
		return pyArgs{}, false
	}
	var a pyArgs
	r := jsonReader{s: s}
	text, trailing := false, false
	for n := 0; ; n++ {
		r.space()
		if r.i == len(s) {
			if n == 0 {
				return pyArgs{}, false
			}
			trailing = true // the comma read last ended the arguments
			break
		}
		if n == maxPyArgs {
			return pyArgs{}, false
		}
		key := ""
		if k := keywordAt(s, r.i); k > 0 {
			key = strings.TrimSpace(s[r.i:k])
			r.i = k + 1
			r.space()
		} else if a.kw != nil {
			return pyArgs{}, false // a positional argument after a keyword one
		}
		v, ok := r.literal()
		if !ok {
			return pyArgs{}, false
		}
		if key != "" {
			if a.kw == nil {
				a.kw = map[string]any{}
			}
			a.kw[key] = v
		} else {
			_, isText := v.(string)
			text = text || isText || isContainer(v)
			a.pos = append(a.pos, v)
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
	return a, text || trailing || len(a.pos) > 1 || a.kw != nil
}

// pyArgsShape reports whether s may be Python arguments, looking at its
// shape alone, without decoding a value: at most maxPyArgs items parted
// by commas, each a quoted string, a bracketed value, or a word without
// spaces, perhaps after "name=". It lets readPyArgs give up on most texts
// without building any value.
func pyArgsShape(s string) bool {
	i := 0
	for n := 0; ; n++ {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		if i == len(s) {
			return n > 0
		}
		if n == maxPyArgs {
			return false
		}
		if k := keywordAt(s, i); k > 0 {
			i = k + 1
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i == len(s) {
				return false
			}
		}
		switch s[i] {
		case '"', '\'':
			if i = stringEnd(s, i); i < 0 {
				return false
			}
		case '{', '[':
			if i = jsonEnd(s, i); i < 0 {
				return false
			}
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && j-i < 32 {
				j++
			}
			if j == i || j-i == 32 {
				return false
			}
			i = j
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		if i == len(s) {
			return true
		}
		if s[i] != ',' {
			return false
		}
		i++
	}
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
func (r *jsonReader) literal() (any, bool) {
	if r.i >= len(r.s) {
		return nil, false
	}
	c := r.s[r.i]
	if c == '(' {
		return nil, false // a tuple in a tuple: not read
	}
	v, err := r.value()
	if err != nil {
		return nil, false
	}
	if c == '"' || c == '\'' || c == '{' || c == '[' {
		return v, true
	}
	_, isText := v.(string)
	return v, !isText // a bare word the reader kept as text is no literal
}

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

// args fits the arguments to the tool: a lone positional argument is
// the input (a dict its arguments, anything else onto the primary
// argument); more of them are the tool's arguments in order, or, when
// the tool has fewer or the parser does not know it, a list onto the
// primary one.
func (info *toolInfo) pyCallArgs(a pyArgs) map[string]any {
	if len(a.pos) == 1 && a.kw == nil {
		if obj, ok := a.pos[0].(map[string]any); ok {
			return info.adaptArgs(obj)
		}
		return info.primaryArgs(a.pos[0])
	}
	obj := map[string]any{}
	for k, v := range a.kw {
		obj[k] = v
	}
	if info != nil && len(a.pos) <= len(info.args)-len(a.kw) {
		i := 0
		for _, name := range info.args {
			if i == len(a.pos) {
				break
			}
			if _, given := obj[name]; !given {
				obj[name] = a.pos[i]
				i++
			}
		}
		return info.adaptArgs(obj)
	}
	key := "input"
	if info != nil && info.primary != "" {
		key = info.primary
	}
	switch len(a.pos) {
	case 0:
		return info.adaptArgs(obj)
	case 1:
		obj[key] = a.pos[0]
	default:
		obj[key] = a.pos
	}
	return obj
}
