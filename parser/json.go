package parser

import (
	"encoding/json"
	"strings"
)

// objectEnd returns the offset just past the balanced {...} or [...] that
// starts at s[0], skipping brackets inside double- or single-quoted
// strings. When the brackets never balance it returns -1 and the closers
// that would balance them, innermost first.
func objectEnd(s string, singleQuotes bool) (int, string) {
	var stack []byte
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"':
			quote = c
		case '\'':
			if singleQuotes {
				quote = c
			}
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1, ""
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, ""
			}
		}
	}
	if quote != 0 {
		return -1, ""
	}
	closers := make([]byte, len(stack))
	for i := range stack {
		closers[i] = stack[len(stack)-1-i]
	}
	return -1, string(closers)
}

// decodeObject decodes the JSON object at the start of s, ignoring
// whatever follows it. Sloppy objects are repaired first: single-quoted
// strings, Python literals (True, False, None), unquoted keys, trailing
// commas, comments, raw newlines in strings and missing closing braces.
// It returns the object and the offset just past it.
func decodeObject(s string) (map[string]any, int, bool) {
	if len(s) == 0 || s[0] != '{' {
		return nil, 0, false
	}
	for _, single := range []bool{true, false} {
		end, closers := objectEnd(s, single)
		candidate := s
		if end > 0 {
			candidate = s[:end]
		} else if closers != "" {
			candidate = s + closers
			end = len(s)
		} else {
			continue
		}
		if obj, ok := unmarshalObject(candidate); ok {
			return obj, end, true
		}
		if obj, ok := unmarshalObject(repairJSON(candidate)); ok {
			return obj, end, true
		}
	}
	return nil, 0, false
}

// unmarshalObject decodes s as one JSON object.
func unmarshalObject(s string) (map[string]any, bool) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// repairJSON rewrites the JavaScript- and Python-flavoured object notation
// models write into JSON, in one pass: single-quoted strings become
// double-quoted, bare keys are quoted, True/False/None become JSON
// literals, trailing commas and comments go, control characters and
// invalid escapes inside strings are escaped. What it cannot mend it
// leaves for the decoder to reject.
func repairJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			i = copyString(&b, s, i)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		case c == ',':
			j := i + 1
			for j < len(s) && isSpace(s[j]) {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				i = j
				continue
			}
			b.WriteByte(c)
			i++
		case c == ':':
			b.WriteByte(c)
			i = copyValue(&b, s, i+1)
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			word := s[i:j]
			k := j
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k < len(s) && s[k] == ':' {
				b.WriteByte('"')
				b.WriteString(word)
				b.WriteByte('"')
			} else {
				b.WriteString(literal(word))
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// copyValue writes the value that follows a colon at s[i:]. A string,
// object or array is left to the main loop; a bare value (a number, a
// Python or JavaScript literal, or unquoted text up to the next comma,
// brace or line end) is written as JSON. It returns where to go on.
func copyValue(b *strings.Builder, s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		b.WriteByte(s[i])
		i++
	}
	if i == len(s) || strings.IndexByte("\"'{[\n\r", s[i]) >= 0 {
		return i
	}
	j := i
	for j < len(s) && strings.IndexByte(",}]\n\r", s[j]) < 0 {
		j++
	}
	raw := strings.TrimSpace(s[i:j])
	switch v := literal(raw); {
	case v != raw, raw == "true", raw == "false", raw == "null", json.Valid([]byte(raw)) && raw[0] != '"':
		b.WriteString(v)
	default:
		q, _ := json.Marshal(raw)
		b.Write(q)
	}
	return j
}

// literal maps Python and JavaScript literals to JSON ones and returns
// any other word unchanged.
func literal(word string) string {
	switch word {
	case "True":
		return "true"
	case "False":
		return "false"
	case "None", "nil", "NULL", "undefined":
		return "null"
	}
	return word
}

// copyString writes the string literal starting at s[i] (quoted with " or
// ') to b as a JSON string and returns the offset after it.
func copyString(b *strings.Builder, s string, i int) int {
	quote := s[i]
	b.WriteByte('"')
	i++
	for i < len(s) {
		c := s[i]
		switch {
		case c == quote:
			b.WriteByte('"')
			return i + 1
		case c == '\\' && i+1 < len(s):
			next := s[i+1]
			switch {
			case next == '\'':
				b.WriteByte('\'')
			case strings.IndexByte(`"\/bfnrtu`, next) >= 0:
				b.WriteByte('\\')
				b.WriteByte(next)
			default:
				b.WriteString(`\\`)
				b.WriteByte(next)
			}
			i += 2
			continue
		case c == '"':
			b.WriteString(`\"`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&0xf])
		default:
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('"')
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c == '-' || (c >= '0' && c <= '9') }
