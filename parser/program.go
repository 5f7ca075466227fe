package parser

import (
	"strings"
	"sync"
)

// A program written as an Action Input. Raw input ends at a blank line,
// after which models write commentary ("I will wait for the results."),
// but LangChain's Python agent writes a program of many lines with blank
// lines between its parts, its comments and its indented blocks, and
// half a program fails when the tool runs it. A raw input whose text
// before the first blank line is code runs on across blank lines for as
// long as the paragraphs after them are code too. Lines are told apart
// by what they are: keywords, assignments, calls, comments, brackets and
// indentation, never by the tool they are written for.

// rawInput returns the part of s, a raw input trimmed of white space,
// that is the input: up to its first blank line, or, when that part is
// code, up to the last paragraph of code that follows it across blank
// lines.
func rawInput(s string) string {
	i := strings.Index(s, "\n\n")
	if i < 0 {
		return s
	}
	var c codeReader
	if c.paragraph(s[:i]) != codeParagraph {
		return strings.TrimSpace(s[:i])
	}
	end := i // the end of the last paragraph of code
	for pos := i; pos < len(s); {
		for pos < len(s) && s[pos] == '\n' {
			pos++
		}
		next := strings.Index(s[pos:], "\n\n")
		if next < 0 {
			next = len(s)
		} else {
			next += pos
		}
		switch c.paragraph(s[pos:next]) {
		case codeParagraph:
			end = next
		case commentParagraph:
			// Comments belong to the program when code follows them.
		default:
			return strings.TrimSpace(s[:end])
		}
		pos = next
	}
	return strings.TrimSpace(s[:end])
}

// paragraphKind is what the lines of a paragraph are.
type paragraphKind int

const (
	proseParagraph   paragraphKind = iota // a line of it is no code
	codeParagraph                         // code, perhaps with comments
	commentParagraph                      // comments alone
)

// codeReader reads the paragraphs of a text one after another, keeping
// what a paragraph leaves open for the next: a triple-quoted string.
type codeReader struct {
	docstring string // the quotes of an open triple-quoted string, or ""
}

// paragraph says what the lines of p are: code when each is code or a
// comment (inside brackets, a string or an indented block, lines are
// code more freely) and one at least is code.
func (c *codeReader) paragraph(p string) paragraphKind {
	code, depth := false, 0
	for len(p) > 0 {
		line := p
		if nl := strings.IndexByte(p, '\n'); nl >= 0 {
			line, p = p[:nl], p[nl+1:]
		} else {
			p = ""
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			continue
		case c.docstring != "":
			// Inside a triple-quoted string: text, up to its end.
			if strings.Contains(t, c.docstring) {
				c.docstring = ""
			}
			code = true
			continue
		case isComment(t):
			continue
		case depth > 0 || isCodeLine(t) || line[0] != t[0] && isIndentedCode(t):
			code = true
		default:
			return proseParagraph
		}
		d, quotes := bracketDepth(t)
		depth = max(0, depth+d)
		if quotes {
			c.docstring = openDocstring(t)
		}
	}
	if !code {
		return commentParagraph
	}
	return codeParagraph
}

// isComment reports whether t, a trimmed line, is a comment: "# ..." or
// "// ...".
func isComment(t string) bool {
	return t[0] == '#' || strings.HasPrefix(t, "//")
}

// openDocstring returns the quotes of a triple-quoted string that t, a
// line of code, leaves open, or "".
func openDocstring(t string) string {
	for _, q := range [...]string{`"""`, `'''`} {
		if strings.Count(t, q)%2 == 1 {
			return q
		}
	}
	return ""
}

// codeBytes sorts the bytes bracketDepth looks at: 1 opens a bracket,
// 2 closes one, 3 opens a string, 4 a comment; 0 is any other byte.
var codeBytes = func() (t [256]uint8) {
	for _, c := range "([{" {
		t[c] = 1
	}
	for _, c := range ")]}" {
		t[c] = 2
	}
	for _, c := range "\"'`" {
		t[c] = 3
	}
	t['#'] = 4
	return t
}()

// bracketDepth returns how many more brackets t opens than it closes,
// outside its strings and comments, and whether t has a quote.
func bracketDepth(t string) (depth int, quotes bool) {
	for i := 0; i < len(t); i++ {
		switch codeBytes[t[i]] {
		case 0:
		case 1:
			depth++
		case 2:
			depth--
		case 3:
			quotes = true
			// The string, to its closing quote.
			q := t[i]
			for i++; i < len(t) && t[i] != q; i++ {
				if t[i] == '\\' {
					i++
				}
			}
		case 4:
			return depth, quotes
		}
	}
	return depth, quotes
}

// codeKeywords are the words that open a statement of Python (in lower
// case, as no sentence opens), JavaScript or SQL (in upper case, as
// queries are written), each with what must follow it for the line to be
// code: a space and more, a colon at the end (a block), or nothing.
var codeKeywords = sync.OnceValue(func() map[string]keywordUse {
	return map[string]keywordUse{
		"import": spaced, "from": fromImport, "def": spaced, "class": spaced, "return": bare, "yield": bare,
		"raise": bare, "assert": spaced, "del": spaced, "global": spaced, "nonlocal": spaced, "await": spaced,
		"async": spaced, "lambda": spaced, "pass": alone, "break": alone, "continue": alone,
		"if": block, "elif": block, "else": block, "for": block, "while": block, "with": block, "try": block,
		"except": block, "finally": block, "match": block, "case": block,
		"const": spaced, "let": spaced, "var": spaced, "function": spaced, "export": spaced,
		"SELECT": spaced, "FROM": spaced, "WHERE": spaced, "JOIN": spaced, "INNER": spaced, "LEFT": spaced,
		"RIGHT": spaced, "OUTER": spaced, "GROUP": spaced, "ORDER": spaced, "LIMIT": spaced, "HAVING": spaced,
		"UNION": spaced, "INSERT": spaced, "UPDATE": spaced, "DELETE": spaced, "CREATE": spaced, "DROP": spaced,
		"ALTER": spaced, "WITH": spaced, "VALUES": spaced, "SET": spaced, "AND": spaced, "OR": spaced, "ON": spaced,
	}
})

// keywordUse is what must follow a keyword for its line to be code.
type keywordUse int

const (
	spaced     keywordUse = iota // a space and more: "import pandas as pd"
	bare                         // anything or nothing: "return", "return x"
	alone                        // nothing but a comment or ";": "pass"
	block                        // a colon at the end: "for x in y:", "else:"
	fromImport                   // "from x import y"
)

// isCodeLine reports whether t, a trimmed line, is a statement of code:
// it opens with a keyword used as code uses it, assigns, calls, closes a
// bracket, or is a decorator.
func isCodeLine(t string) bool {
	word := t
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			word = t[:i]
			break
		}
	}
	rest := t[len(word):]
	if use, ok := codeKeywords()[word]; ok && keywordFits(use, rest, t) {
		return true
	}
	switch t[0] {
	case ')', ']', '}':
		return true // a bracket closed on a line of its own: "),", "}"
	case '@':
		return len(word) == 0 && len(t) > 1 && isIdentStart(t[1]) // a decorator
	}
	if word == "" || !isIdentStart(word[0]) {
		return false
	}
	// The target or callee: a name, then attributes and subscripts.
	i, subscripted := len(word), false
	for i < len(t) {
		switch {
		case t[i] == '.' && i+1 < len(t) && isIdentStart(t[i+1]):
			i += 2
			for i < len(t) && isIdentByte(t[i]) {
				i++
			}
		case t[i] == '[':
			k := strings.IndexByte(t[i:], ']')
			if k < 0 {
				return true // a subscript left open: the next line goes on
			}
			i, subscripted = i+k+1, true
		default:
			return afterTarget(t[i:])
		}
	}
	// A subscript alone is code ("df['Age']"); a name alone, or a
	// dotted one, is not: "example.com" is no code.
	return subscripted
}

// afterTarget reports whether s, what follows a name and its attributes
// and subscripts at the start of a line, makes the line code: a call
// ("print(x)", "df.groupby('a').mean()") or an assignment ("x = 1", "x
// += 1", "a, b = b, a").
func afterTarget(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '(' {
		return true
	}
	s = strings.TrimLeft(s, " \t")
	// More targets: "a, b = 1, 2".
	for len(s) > 0 && s[0] == ',' {
		s = strings.TrimLeft(s[1:], " \t")
		n := 0
		for n < len(s) && isIdentByte(s[n]) {
			n++
		}
		if n == 0 {
			return false
		}
		s = strings.TrimLeft(s[n:], " \t")
	}
	// An augmented assignment's operator, then "=" but not "==".
	for len(s) > 0 && operatorBytes[s[0]] {
		s = s[1:]
	}
	return len(s) > 1 && s[0] == '=' && s[1] != '=' && strings.TrimSpace(s[1:]) != ""
}

// operatorBytes are the bytes of an augmented assignment's operator
// ("+=", "//=", "**=", ">>=", ":=").
var operatorBytes = newByteSet("+-*/%&|^@<>:")

// keywordFits reports whether rest, what follows a keyword in the line t,
// is as code writes it.
func keywordFits(use keywordUse, rest, t string) bool {
	switch use {
	case spaced:
		return len(rest) > 1 && (rest[0] == ' ' || rest[0] == '\t') && strings.TrimSpace(rest) != ""
	case bare:
		return rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '(' || rest[0] == ';'
	case alone:
		rest = strings.TrimSpace(rest)
		return rest == "" || rest == ";" || rest[0] == '#'
	case block:
		if rest != "" && rest[0] != ' ' && rest[0] != ':' && rest[0] != '(' {
			return false
		}
		if i := strings.Index(t, " #"); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		return strings.HasSuffix(t, ":") || strings.HasSuffix(t, "{")
	case fromImport:
		return strings.Contains(rest, " import ")
	}
	return false
}

// isIndentedCode reports whether t, a trimmed line that was indented, is
// code: an indented line is the body of a block, unless it reads as a
// sentence (words and no code's marks, ending as sentences end).
func isIndentedCode(t string) bool {
	if t[0] == '"' || t[0] == '\'' || isCodeLine(t) || strings.ContainsAny(t, "()[]{}=") {
		return true
	}
	if strings.IndexAny(t, " \t") < 0 {
		return true // one word: a name, a value
	}
	last := t[len(t)-1]
	return last == ':' || last == ','
}

// isIdentStart reports whether c may open an identifier.
func isIdentStart(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_'
}

// isIdentByte reports whether c may stand in an identifier.
func isIdentByte(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}
