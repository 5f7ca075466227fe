package parser

import "strings"

// unfence returns the inside of a markdown code fence when s starts with
// one ("```json\n...\n```" or "```...```" on one line), and s otherwise.
// An unclosed fence runs to the end.
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	body := strings.TrimLeft(s, "`")
	if j := strings.Index(body, "```"); j >= 0 && strings.IndexByte(body[:j], '\n') < 0 {
		// One line: ```ls -la```.
		return strings.TrimSpace(body[:j])
	}
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return strings.TrimSpace(body)
	}
	if tag := strings.TrimSpace(body[:nl]); tag != "" && strings.ContainsAny(tag, " \t{\"'") {
		// Not a language tag but content on the fence line.
		nl = -1
	}
	body = body[nl+1:]
	from := 0
	if t := strings.TrimLeft(body, " \t\n"); t != "" && (t[0] == '{' || t[0] == '[') {
		// Fenced JSON: a fence inside one of its strings (an answer that
		// holds code) does not close the fence around it.
		if end := jsonEnd(body, len(body)-len(t)); end > 0 {
			from = end
		}
	}
	if j := strings.Index(body[from:], "```"); j >= 0 {
		body = body[:from+j]
	}
	return strings.TrimSpace(body)
}

// cleanText trims white space and a stray fence line a model leaves at
// either end of a value when it wraps its whole reply in a code block, or
// opens a fence right after it. A balanced fence is content and stays.
func cleanText(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") && !endsInFence(s) || strings.Count(s, "```")%2 == 0 {
		return s // no fence line at either end, found without reading s whole
	}
	if nl := strings.LastIndexByte(s, '\n'); isFenceLine(s[nl+1:]) {
		return strings.TrimSpace(s[:max(nl, 0)])
	}
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && isFenceLine(s[:nl]) {
		return strings.TrimSpace(s[nl+1:])
	}
	return s
}

// endsInFence reports whether the last line of s, which ends in no white
// space, may be a code fence (see isFenceLine): the bytes at its end up
// to a space, a tab, a quote, a brace or a line break start with one, once
// other white space before it is trimmed. It reads those bytes only, and
// says it may when they are more than a fence line's usual length.
func endsInFence(s string) bool {
	i := len(s)
	for i > 0 && !fenceRunStops[s[i-1]] {
		if i--; len(s)-i > maxFenceLine {
			return true
		}
	}
	return strings.HasPrefix(strings.TrimSpace(s[i:]), "```")
}

// maxFenceLine is how far endsInFence reads: a fence and a language's
// name.
const maxFenceLine = 64

// fenceRunStops are the bytes no fence line holds once trimmed, and the
// line break before one.
var fenceRunStops = newByteSet(" \t\n{\"'")

// isFenceLine reports whether line is a code fence, perhaps with a
// language tag.
func isFenceLine(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "```") && !strings.ContainsAny(line, " \t{\"'")
}

// value is an Action Input as written, decoded as far as it goes: an
// object, or text (a decoded string scalar or the raw input).
type value struct {
	obj   map[string]any
	tuple *pyArgs // a tuple in parentheses: "('Paris',)"
	text  string
	raw   bool // text is the input as written, not a decoded literal
}

// decodeInput reads an Action Input: JSON or a sloppy object (in a fence
// or not, with commentary after it), a quoted string, backtick-quoted
// text, or raw text. Raw text ends at a blank line, unless it is a
// program, or whole is set, for an input that came whole, as a JSON
// string's value.
func decodeInput(raw string, whole bool) value {
	s := strings.TrimSpace(raw)
	fenced := strings.HasPrefix(s, "```")
	if fenced {
		s = unfence(s)
	} else {
		s = cleanText(s)
	}
	switch {
	case s == "":
		return value{}
	case s[0] == '{':
		if obj, _, ok := decodeObject(s); ok {
			return value{obj: obj}
		}
	case s[0] == '"' || s[0] == '\'':
		if text, ok := unquote(s); ok {
			return value{text: text}
		}
		if obj, ok := bracelessObject(s); ok {
			return value{obj: obj}
		}
	case s[0] == '(':
		if a, ok := pyTuple(s); ok {
			return value{tuple: &a}
		}
	case s[0] == '`':
		n := len(s) - len(strings.TrimLeft(s, "`"))
		if len(s) > 2*n && strings.HasSuffix(s, s[:n]) {
			inner := strings.TrimSpace(s[n : len(s)-n])
			if strings.HasPrefix(inner, "{") {
				if obj, _, ok := decodeObject(inner); ok {
					return value{obj: obj}
				}
			}
			return value{text: inner}
		}
	}
	if !fenced && !whole {
		// Raw input ends at a blank line: what follows is commentary
		// ("I'll wait for the result."), unless the input is a program
		// (see rawInput). Fence input to keep blank lines.
		s = rawInput(s)
	}
	return value{text: s, raw: true}
}

// unquote decodes s when it is one quoted string (double or single
// quotes), perhaps followed by commentary on later lines.
func unquote(s string) (string, bool) {
	r := jsonReader{s: s}
	text, err := r.str()
	if err != nil {
		return "", false
	}
	if rest := strings.TrimLeft(s[r.i:], " \t"); rest != "" && rest[0] != '\n' && rest[0] != '\r' {
		return "", false
	}
	return text, true
}

// kwargs reads "key=value" or "key: value" pairs, one a line or separated
// by commas on one line. key maps each key to the name to store it under,
// or to "" to reject the whole input. Values may be quoted; unquoted ones
// are kept as text unless literalsOnly is set, in which case they must be
// numbers or Python/JSON literals.
func kwargs(s string, key func(string) string, literalsOnly bool) (map[string]any, bool) {
	if !startsWithKey(s) {
		return nil, false
	}
	obj := map[string]any{}
	if strings.Contains(s, "\n") {
		for line := range strings.SplitSeq(s, "\n") {
			if !addKwarg(obj, line, key, literalsOnly) {
				return nil, false
			}
		}
		return obj, len(obj) > 0
	}
	if strings.IndexByte(s, ',') < 0 {
		return obj, addKwarg(obj, s, key, literalsOnly) && len(obj) > 0
	}
	for _, part := range splitTopLevel(s, ',') {
		if !addKwarg(obj, part, key, literalsOnly) {
			// One pair whose value holds commas: "query: Paris, France".
			clear(obj)
			return obj, addKwarg(obj, s, key, literalsOnly) && len(obj) > 0
		}
	}
	return obj, len(obj) > 0
}

// startsWithKey reports whether s starts with an identifier followed by
// "=" or ":", so that only such inputs are split into pairs.
func startsWithKey(s string) bool {
	s = trimBullet(strings.TrimLeft(s, " \t\n"))
	i := 0
	for i < len(s) && i < 64 && (isIdentifier(s[i:i+1]) || (i > 0 && s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	if i == 0 {
		return false
	}
	rest := strings.TrimLeft(s[i:], " \t")
	return rest != "" && (rest[0] == '=' || rest[0] == ':')
}

// trimBullet removes a list bullet before a "key: value" line.
func trimBullet(s string) string {
	if len(s) > 2 && (s[0] == '-' || s[0] == '*') && s[1] == ' ' {
		return strings.TrimLeft(s[2:], " ")
	}
	return s
}

// addKwarg adds one "key=value" or "key: value" pair to obj; a blank part
// adds nothing and is fine.
func addKwarg(obj map[string]any, part string, key func(string) string, literalsOnly bool) bool {
	part = trimBullet(strings.TrimSpace(part))
	if part == "" {
		return true
	}
	sep := strings.IndexAny(part, "=:")
	if sep <= 0 || strings.HasPrefix(part[sep:], "==") {
		return false
	}
	name := strings.TrimSpace(part[:sep])
	if !isIdentifier(name) {
		return false
	}
	if name = key(name); name == "" {
		return false
	}
	v, ok := kwValue(strings.TrimSpace(part[sep+1:]), literalsOnly)
	if ok {
		obj[name] = v
	}
	return ok
}

// kwValue decodes one keyword argument's value.
func kwValue(s string, literalsOnly bool) (any, bool) {
	if s == "" {
		return nil, false
	}
	switch s[0] {
	case '"', '\'':
		return unquote(s)
	case '{', '[':
		return decodeValue(s)
	}
	r := jsonReader{s: s}
	v, err := r.bare(&noStops)
	if _, text := v.(string); err != nil || (text && literalsOnly) {
		return nil, false
	}
	return v, true
}

// splitTopLevel splits s at sep where sep is outside quotes and brackets.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// isIdentifier reports whether s is an ASCII identifier, as keyword
// argument names are.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && (i == 0 || !(c >= '0' && c <= '9')) {
			return false
		}
	}
	return s != ""
}

// bracelessObject reads an object written without its braces, as in
// "query": "zig": a quoted key, a colon, and the rest of an object.
func bracelessObject(s string) (map[string]any, bool) {
	r := jsonReader{s: s}
	if _, err := r.str(); err != nil || !strings.HasPrefix(strings.TrimLeft(s[r.i:], " \t"), ":") {
		return nil, false
	}
	obj, n, ok := decodeObject("{" + s + "}")
	return obj, ok && n == len(s)+2
}
