package parser

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitActionLine reads the value of an Action label: a tool name, or an
// inline call carrying its input, as in "calculator(2+2)",
// "web_search[Go 1.26]", "web_search: Go 1.26", "calculator 2+2" (for a
// registered tool) and "calculator Action Input: 2+2". form says how an
// inline input was written: inParens inside a call's parentheses, inline
// otherwise, and asWritten when there is none. The name is returned as
// written, for lookup.
func (p *Parser) splitActionLine(line string) (name, input string, form inputForm) {
	if _, ok := p.tools.byName[strings.TrimSpace(line)]; ok {
		return strings.TrimSpace(line), "", asWritten // the usual case: a registered name alone
	}
	line = unescapeName(line)
	if p.tools.hasPunctuatedNames {
		if p.tools.lookup(line) != nil {
			// A registered name with a colon, brackets or a comma in it
			// ("Gmail: Find Email"), written alone: not a name and an
			// input.
			return strings.TrimSpace(line), "", asWritten
		}
		if name, input, form := p.registeredPrefix(line); form != asWritten {
			return name, input, form // "Gmail: Find Email: from:bob"
		}
	}
	// Markup and punctuation before the name go first, so that the name
	// returned reads back the same ("::web_search" is "web_search").
	s := strings.TrimLeftFunc(line, isNameJunk)
	if t := strings.TrimSpace(line); strings.HasPrefix(t, "`") && strings.HasSuffix(t, "`") {
		// A call in backticks: `web_search[zig]`.
		s = strings.TrimRight(strings.TrimSpace(s), "`")
	}
	if i, j := inlineInputLabel(s); i > 0 {
		name, _, _ = p.splitActionLine(s[:i])
		return name, s[j:], inline
	}
	// The name before an inline input is short: look for the separators
	// near the start only.
	head := s[:min(len(s), maxNameLen)]
	// "tool: input".
	if i := indexColon(head); i > 0 {
		if prefix := cleanName(s[:i]); p.isName(prefix) {
			_, size := utf8.DecodeRuneInString(s[i:])
			return prefix, s[i+size:], inline
		}
	}
	// "tool(input)" and "tool[input]", perhaps with a full stop after.
	if t := strings.TrimRight(s, ".!?;, \t"); t != s && (strings.HasSuffix(t, ")") || strings.HasSuffix(t, "]")) {
		s, head = t, head[:min(len(head), len(t))]
	}
	for _, pair := range [...][2]byte{{'(', ')'}, {'[', ']'}} {
		form := inline
		if pair[0] == '(' {
			form = inParens
		}
		i := strings.IndexByte(head, pair[0])
		if i <= 0 {
			continue
		}
		if j := strings.IndexAny(head[:i], "(["); j >= 0 {
			continue // the other bracket opens first: "calculator[(3+4)*5]"
		}
		if !strings.HasSuffix(s, string(pair[1])) {
			// A call cut off before its closing bracket ("Search[what
			// is it?"), or with something after it: the name is what
			// stands before the bracket, as a name written so always
			// reads back, and the input all that follows the bracket,
			// its last word's punctuation too.
			if prefix := cleanName(s[:i]); p.isName(prefix) {
				return prefix, cutCallInput(s[i+1:], pair[1]), form
			}
			continue
		}
		prefix := cleanName(s[:i])
		if !p.isName(prefix) {
			// "I will call calculator(2+2)": the last word may be the tool.
			last := prefix[strings.LastIndexFunc(prefix, unicode.IsSpace)+1:]
			if p.tools.lookup(cleanName(last)) == nil {
				continue
			}
			prefix = cleanName(last)
		}
		return prefix, s[i+1 : len(s)-1], form
	}
	// "get_weather, 'Oslo'": a name, a comma, then a quoted input.
	if i := strings.IndexByte(head, ','); i > 0 {
		rest := strings.TrimSpace(s[i+1:])
		if prefix := cleanName(s[:i]); p.isName(prefix) && rest != "" && strings.ContainsRune("\"'`{", rune(rest[0])) {
			return prefix, rest, inline
		}
	}
	// "get_weather {"city": "Oslo"}": a name, then a JSON object.
	if strings.HasSuffix(s, "}") {
		if i := strings.IndexByte(head, '{'); i > 0 {
			if prefix := cleanName(s[:i]); p.isName(prefix) {
				return prefix, s[i:], inline
			}
		}
	}
	// "calculator 2+2": a registered tool's name, then its input (not
	// "Calculator Tool": generic words make another name).
	if i := indexSpace(head); i > 0 && p.tools.lookup(cleanName(s)) == nil && p.tools.loose(s) == nil {
		if first := cleanName(s[:i]); p.tools.lookup(first) != nil {
			return first, strings.TrimSpace(s[i+1:]), inline
		}
	}
	return s, "", asWritten
}

// cutCallInput is the input of an inline call whose closing bracket is
// missing, or followed by more text: what follows the opening bracket,
// without the closing one when it ends the text (perhaps after markup
// or white space), and without the markup a model puts around the whole
// call ("**search[zig**"). A question's mark stays: it is the input's.
func cutCallInput(s string, closer byte) string {
	s = strings.TrimRight(s, " \t*`_")
	s = strings.TrimSuffix(s, string(closer))
	return strings.TrimSpace(s)
}

// registeredPrefix reads an inline call of a registered name that holds
// one of the characters that part a name from an inline input ("Gmail:
// Find Email: from:bob", "Search (beta)[zig]"): the longest registered
// name that the line opens with, before a colon, a bracket, a comma or a
// brace, and the input after it, with the form it is written in
// (asWritten when there is none).
func (p *Parser) registeredPrefix(line string) (name, input string, form inputForm) {
	s := strings.TrimLeftFunc(line, isNameJunk)
	// A registered name is no longer than the longest, but for markup
	// and a few more spaces around it.
	head := s[:min(len(s), maxNameLen, p.tools.longest+8)]
	best := -1
	for i := 1; i < len(head); i++ {
		if c := head[i]; c != ':' && c != '(' && c != '[' && c != '{' && c != ',' && !strings.HasPrefix(head[i:], "：") {
			continue
		}
		if prefix := cleanName(s[:i]); strings.ContainsAny(prefix, ":：([{, ") && p.tools.lookup(prefix) != nil {
			best = i
		}
	}
	if best < 0 {
		return "", "", asWritten
	}
	name, rest := cleanName(s[:best]), s[best:]
	form = inline
	switch {
	case rest[0] == ':', rest[0] == ',':
		rest = rest[1:]
	case strings.HasPrefix(rest, "："):
		rest = rest[len("："):]
	case rest[0] == '(':
		rest, form = strings.TrimSuffix(strings.TrimRight(rest[1:], ".!?;, \t"), ")"), inParens
	case rest[0] == '[':
		rest = strings.TrimSuffix(strings.TrimRight(rest[1:], ".!?;, \t"), "]")
	}
	return name, strings.TrimSpace(rest), form
}

// unescapeName removes the backslashes markdown puts before the
// punctuation of a name ("web\_search" is "web_search"), in the words
// before the first space, colon or bracket: what follows may be an inline
// input, whose backslashes are its own.
func unescapeName(line string) string {
	k := strings.IndexByte(line[:min(len(line), maxNameLen)], '\\')
	if k < 0 {
		return line
	}
	if rest := strings.TrimLeftFunc(line, isNameJunk); len(rest) < len(line) {
		// The words start after the markup before them ("(\\_x"), as the
		// name read from the line does.
		return line[:len(line)-len(rest)] + unescapeName(rest)
	}
	end := strings.IndexAny(line[:min(len(line), maxNameLen)], ":：([{, \t")
	if end < 0 {
		end = len(line)
	}
	if k > end {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < end; i++ {
		if line[i] == '\\' {
			// A run of backslashes before the punctuation goes whole
			// ("\\_" as well as "\_"), so that the name reads back the
			// same once written again.
			j := i
			for j < end && line[j] == '\\' {
				j++
			}
			if j < end && strings.IndexByte("_*-.`#!", line[j]) >= 0 {
				i = j - 1
				continue
			}
		}
		b.WriteByte(line[i])
	}
	b.WriteString(line[end:])
	return b.String()
}

// indexColon returns the offset of the first colon in s, half- or
// full-width, or -1.
func indexColon(s string) int {
	i := strings.IndexByte(s, ':')
	if j := strings.Index(s, "："); j >= 0 && (i < 0 || j < i) {
		return j
	}
	return i
}

// indexSpace returns the offset of the first space or tab in s, or -1.
func indexSpace(s string) int {
	i := strings.IndexByte(s, ' ')
	if j := strings.IndexByte(s, '\t'); j >= 0 && (i < 0 || j < i) {
		return j
	}
	return i
}

// maxNameLen bounds where an inline call's name may end, words before it
// included ("I will use calculator(2+2)").
const maxNameLen = 256

// isName reports whether s can be a tool name standing before an inline
// input: a registered name, or one word of letters, digits, '_', '-' and
// '.' of at most 64 bytes.
func (p *Parser) isName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	if p.tools.lookup(s) != nil {
		return true
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' && r != '.' {
			return false
		}
	}
	return true
}

// inlineInputLabel finds "Action Input:" written on the Action line itself,
// after the tool's name, so near the line's start. It returns where the
// label starts and where its value starts, or 0, 0.
func inlineInputLabel(s string) (int, int) {
	head := s[:min(len(s), maxNameLen)]
	for off := 0; ; {
		k := strings.Index(head[off:], "nput")
		if k < 0 {
			return 0, 0
		}
		k += off
		off = k + 4
		if k < 1 || (s[k-1] != 'i' && s[k-1] != 'I') {
			continue
		}
		i := k - 1
		for i > 0 && (s[i-1] == ' ' || s[i-1] == '_' || s[i-1] == '-') {
			i--
		}
		if i < 6 || !strings.EqualFold(s[i-6:i], "action") {
			continue
		}
		j := off
		for j < len(s) && (s[j] == ' ' || s[j] == '*' || s[j] == '\t') {
			j++
		}
		if strings.HasPrefix(s[j:], ":") {
			j++
		} else if strings.HasPrefix(s[j:], "：") {
			j += len("：")
		} else {
			continue
		}
		start := i - 6
		for start > 0 && strings.IndexByte(" \t*_`", s[start-1]) >= 0 {
			start--
		}
		for j < len(s) && (s[j] == '*' || s[j] == ' ') {
			j++
		}
		return start, j
	}
}
