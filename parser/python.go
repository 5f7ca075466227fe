package parser

import (
	"strconv"
	"strings"
)

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
const maxPyArgs = 64

// readPyArgs reads s, what stands between the parentheses of a call or a
// tuple, as Python arguments: literals (strings, numbers, True, False,
// None, lists, dicts and tuples), positional ones first, then
// "name=value" ones. It reports whether s reads as a tuple or call of
// literals at all: a string among the positional arguments, a comma after
// the last, more than one, or keywords; "(5)" and "(2+2)" are not.
func readPyArgs(s string) (pyArgs, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.IndexByte(s, '\n') >= 0 && !strings.ContainsAny(s, "'\"") {
		return pyArgs{}, false
	}
	parts := splitTopLevel(s, ',')
	trailing := false
	if len(parts) > 1 && strings.TrimSpace(parts[len(parts)-1]) == "" {
		parts, trailing = parts[:len(parts)-1], true
	}
	if len(parts) > maxPyArgs {
		return pyArgs{}, false
	}
	var a pyArgs
	text := false
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			return pyArgs{}, false
		}
		if eq := strings.IndexByte(part, '='); eq > 0 && !strings.HasPrefix(part[eq:], "==") && isIdentifier(strings.TrimSpace(part[:eq])) {
			v, ok := pyLiteral(strings.TrimSpace(part[eq+1:]))
			if !ok {
				return pyArgs{}, false
			}
			if a.kw == nil {
				a.kw = map[string]any{}
			}
			a.kw[strings.TrimSpace(part[:eq])] = v
			continue
		}
		if a.kw != nil {
			return pyArgs{}, false // a positional argument after a keyword one
		}
		v, ok := pyLiteral(part)
		if !ok {
			return pyArgs{}, false
		}
		_, isText := v.(string)
		text = text || isText || isContainer(v)
		a.pos = append(a.pos, v)
	}
	return a, text || trailing || len(a.pos) > 1 || a.kw != nil
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

// pyLiteral reads s, the whole of it, as one Python or JSON literal.
func pyLiteral(s string) (any, bool) {
	if s == "" {
		return nil, false
	}
	switch s[0] {
	case '"', '\'':
		r := jsonReader{s: s}
		text, err := r.str()
		if err != nil || strings.TrimSpace(s[r.i:]) != "" {
			return nil, false
		}
		return text, true
	case '{', '[':
		return decodeValue(s)
	case '(':
		if s == "()" {
			return []any{}, true
		}
		a, ok := pyTuple(s)
		if !ok || a.kw != nil {
			return nil, false
		}
		return a.pos, true
	}
	switch s {
	case "True", "true":
		return true, true
	case "False", "false":
		return false, true
	case "None", "null":
		return nil, true
	}
	if c := s[0]; (c == '-' || c >= '0' && c <= '9') && isJSONNumber(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f, true
		}
	}
	return nil, false
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
