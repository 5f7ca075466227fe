package parser

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Calls written in words, as small models write them when they echo a
// prompt's wording instead of its labels: "I will use the tool `get_rate`
// with input `EUR to JPY`.", "so I'll use the calculator tool with the
// input `9 ** 3`.". A call in words is a clause that says, definitely and
// in the first person, that the writer uses a tool it names, with an
// input it writes out in quotes: a registered tool's name, or one marked
// as a tool's ("the tool `get_rate`", "the `get_rate` tool"), then "with"
// and the input, perhaps after words that say what it is ("with the
// input", "with the query"). "I could use the search tool later" names
// no input, "You can use ..." is no plan of the writer's, "If needed,
// I will use ..." holds on a condition: none is a call. The call is the
// last thing the model says, but for words of waiting or of what it will
// do next: a reply that goes on to say more is no call in words.

// maxWordCallTail bounds the end of a reply that wordCall reads: the call
// is the last thing said.
const maxWordCallTail = 1024

// wordCall reads a call written in words at the end of the reply. The
// thought is the text up to the end of the call's sentence.
func (r *reply) wordCall() (reading, bool) {
	s := r.body[r.start:r.end]
	c, ok := r.p.callInWords(s, max(0, len(s)-maxWordCallTail))
	if !ok || !idle(s[c.end:]) {
		return reading{}, false
	}
	st, err := r.p.wordCallStep(r.thought(r.start+c.end), c)
	return reading{st, err}, true
}

// wordCall is a call written in words: the tool's name, its input, and
// where the sentence that holds it ends.
type wordCall struct {
	name string
	in   wordInput
	end  int
}

// callInWords finds the first call written in words in s, from offset
// from on.
func (p *Parser) callInWords(s string, from int) (wordCall, bool) {
	for i := from; ; {
		k := indexWith(s, i)
		if k < 0 {
			return wordCall{}, false
		}
		i = k + len("with")
		clause, sentence := clauseStart(s, from, k)
		if hasCondition(s[sentence:k]) {
			continue
		}
		name, info, ok := p.wordCallName(s[clause:k])
		if !ok {
			continue
		}
		in, ok := wordCallInput(info, s, i)
		if !ok {
			continue
		}
		return wordCall{name: name, in: in, end: sentenceEnd(s, in.end)}, true
	}
}

// wordCallStep builds the step for the call in words c.
func (p *Parser) wordCallStep(thought string, c wordCall) (Step, error) {
	if c.in.key != "" {
		return p.objectCallStep(thought, call{name: c.name, args: map[string]any{c.in.key: c.in.text}, hasArgs: true})
	}
	form := jsonString // the whole of a quoted input, blank lines and all
	if c.in.object {
		form = asWritten
	}
	return p.call(thought, c.name, c.in.text, form)
}

// indexWith returns the offset of the first word "with" (or "With") in
// s at or after from, or -1.
func indexWith(s string, from int) int {
	for i := from; i < len(s); {
		k := strings.Index(s[i:], "ith")
		if k < 0 {
			return -1
		}
		at := i + k - 1
		i += k + len("ith")
		if at < from || s[at]|0x20 != 'w' || at > 0 && isWordByte(s[at-1]) || i < len(s) && isWordByte(s[i]) {
			continue
		}
		return at
	}
	return -1
}

// clauseStart returns where the clause and the sentence that hold
// s[at] start, no earlier than from: the clause after the last comma,
// semicolon, colon or line break, the sentence after the last full stop,
// question or exclamation mark that ends one.
func clauseStart(s string, from, at int) (clause, sentence int) {
	clause, sentence = -1, from
	for i := at - 1; i >= from; i-- {
		switch c := s[i]; {
		case c == '\n':
			if clause < 0 {
				clause = i + 1
			}
			return clause, i + 1
		case c == ',' || c == ';' || c == ':':
			if clause < 0 {
				clause = i + 1
			}
		case (c == '.' || c == '!' || c == '?') && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t'):
			if clause < 0 {
				clause = i + 1
			}
			return clause, i + 1
		}
	}
	if clause < 0 {
		clause = from
	}
	return clause, sentence
}

// wordCallName reads a clause that says the writer uses a tool ("so I'll
// use the calculator tool ", "I will use the tool `get_rate` ") and
// returns the tool's name as written and the registered tool, if it is
// one: ok is false for a clause that is no such plan, or names no tool.
func (p *Parser) wordCallName(clause string) (string, *toolInfo, bool) {
	var buf [16]string
	words := clauseWordsAll(buf[:0], clause)
	i := 0
	for i < len(words) && (sequenceWord(words[i]) || wordIs(words[i], "thus") || wordIs(words[i], "therefore")) {
		i++
	}
	// The subject, or the participle, opens with one of few letters: most
	// clauses are known to be no such plan at one look.
	if i == len(words) || strings.IndexByte("iIwWlLuUcC", words[i][0]) < 0 {
		return "", nil, false
	}
	next := func(w ...string) bool {
		for k, x := range w {
			if i+k >= len(words) || !wordIs(words[i+k], x) {
				return false
			}
		}
		i += len(w)
		return true
	}
	if !next("using") && !next("calling") && !next("invoking") {
		switch {
		case next("i'll"), next("i", "will"), next("i", "shall"), next("i", "should"), next("i", "must"), next("i", "need", "to"),
			next("i", "have", "to"), next("i", "am", "going", "to"), next("i'm", "going", "to"), next("i", "want", "to"),
			next("we'll"), next("we", "will"), next("we", "should"), next("we", "must"), next("we", "need", "to"),
			next("let", "me"), next("let's"), next("let", "us"):
			for i < len(words) && (planAdverb(words[i]) || wordIs(words[i], "go") || wordIs(words[i], "ahead") || wordIs(words[i], "and") ||
				wordIs(words[i], "try") || wordIs(words[i], "to") || wordIs(words[i], "proceed")) {
				i++
			}
		default:
			return "", nil, false
		}
		if i >= len(words) || !useVerbs()[strings.ToLower(words[i])] {
			return "", nil, false
		}
		i++
	}
	// What names the tool: a word or a few, once the articles and the
	// words that say "tool" go.
	var nameBuf [maxNameWords]string
	names, marked, generic := nameBuf[:0], false, false
	for _, w := range words[i:] {
		switch low := strings.ToLower(strings.Trim(w, "`'\"*")); {
		case low == "the" || low == "a" || low == "an" || low == "my" || low == "our" || low == "this" || low == "named" || low == "called":
		case genericTail()[low]:
			generic = true
		case len(names) == maxNameWords:
			return "", nil, false // more words: no name
		default:
			names = append(names, w)
			marked = len(w) > 2 && strings.ContainsRune("`'\"", rune(w[0])) && w[len(w)-1] == w[0]
		}
	}
	if len(names) == 0 {
		return "", nil, false
	}
	clean := cleanName(strings.Join(names, " "))
	if info := p.tools.lookup(clean); info != nil {
		return info.name, info, true
	}
	// A name the parser does not know counts only when it is one word
	// marked as a tool's: in quotes, beside the word "tool".
	if len(names) == 1 && marked && generic && isASCIIWord(clean) && p.naming(clean) == namesTool {
		return clean, nil, true
	}
	return "", nil, false
}

// maxNameWords bounds the words of a tool's name in a call in words:
// "web search" has two.
const maxNameWords = 3

// clauseWordsAll appends the words of clause, split at white space, to
// words, or none when they do not all fit in its room: a clause of more
// words is no plan with a tool's name in it.
func clauseWordsAll(words []string, clause string) []string {
	for clause != "" {
		clause = strings.TrimLeft(clause, " \t\n")
		if clause == "" {
			break
		}
		end := strings.IndexAny(clause, " \t\n")
		if end < 0 {
			end = len(clause)
		}
		if len(words) == cap(words) {
			return words[:0]
		}
		words = append(words, clause[:end])
		clause = clause[end:]
	}
	return words
}

// useVerbs are the verbs of a call in words.
var useVerbs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"use": true, "call": true, "invoke": true, "run": true, "execute": true, "try": true,
		"query": true, "employ": true, "utilize": true, "utilise": true, "apply": true, "consult": true}
})

// inputWords are the words that may stand between "with" and the input
// of a call in words: "with the input", "with the following query:".
var inputWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"the": true, "a": true, "an": true, "following": true, "input": true, "inputs": true,
		"argument": true, "arguments": true, "arg": true, "args": true, "parameter": true, "parameters": true,
		"param": true, "params": true, "query": true, "expression": true, "value": true, "text": true, "string": true,
		"of": true, "as": true, "being": true, "set": true, "to": true, "equal": true, "equals": true, "is": true}
})

// wordInput is the input of a call in words: its text, whether it was
// written as an object, the tool's own argument it was named as (""
// for the input itself), and where it ends.
type wordInput struct {
	text   string
	object bool
	key    string
	end    int
}

// maxInputWords bounds the words between "with" and the input.
const maxInputWords = 4

// wordCallInput reads the input written after "with", which ends at
// s[from]: a few words that say what it is, perhaps the name of one of
// the tool's own arguments ("with the query"), then the input in
// backticks or quotes, or an object; or, after such words and a colon,
// the rest of the line ("with the input: 9 ** 3").
func wordCallInput(info *toolInfo, s string, from int) (wordInput, bool) {
	var in wordInput
	i := from
	for words := 0; ; {
		labelled := false // a word that says what the input is, then a colon: "with the input: 9 ** 3"
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ':' || s[i] == '=') {
			labelled = labelled || words > 0 && s[i] == ':'
			i++
		}
		if i == len(s) {
			return in, false
		}
		if text, end, ok := quoted(s, i); ok {
			in.text, in.end = text, end
			return in, strings.TrimSpace(text) != ""
		}
		if s[i] == '{' {
			obj, n, ok := decodeObject(s[i:])
			if !ok || len(obj) == 0 {
				return in, false
			}
			in.text, in.object, in.end = s[i:i+n], true, i+n
			return in, true
		}
		if labelled {
			// The rest of the line, but for the full stop that ends
			// the sentence.
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s)
			} else {
				end += i
			}
			in.text, in.end = strings.TrimSuffix(strings.TrimSpace(s[i:end]), "."), end
			return in, strings.TrimSpace(in.text) != ""
		}
		n := 0
		for i+n < len(s) && isIdentByte(s[i+n]) {
			n++
		}
		if words++; n == 0 || words > maxInputWords {
			return in, false
		}
		w := strings.ToLower(s[i : i+n])
		own := ""
		if info != nil {
			own = info.ownKey(w)
		}
		switch {
		case own != "":
			in.key = own
			if own == info.primary {
				in.key = "" // the input itself
			}
		case !inputWords()[w]:
			return in, false
		}
		i += n
	}
}

// quoted reads the text quoted at s[i], on its line: in backticks (one
// or two), in straight or curly double quotes, or in single quotes that
// are no apostrophe. It returns the text and where the quote ends.
func quoted(s string, i int) (string, int, bool) {
	line := s[i:]
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	var open, closer string
	switch {
	case strings.HasPrefix(line, "``") && !strings.HasPrefix(line, "```"):
		open, closer = "``", "``"
	case strings.HasPrefix(line, "`"):
		open, closer = "`", "`"
	case strings.HasPrefix(line, `"`):
		open, closer = `"`, `"`
	case strings.HasPrefix(line, "“"):
		open, closer = "“", "”"
	case strings.HasPrefix(line, "'"):
		open, closer = "'", "'"
	default:
		return "", 0, false
	}
	for from := len(open); ; {
		k := strings.Index(line[from:], closer)
		if k < 0 {
			return "", 0, false
		}
		end := from + k
		from = end + len(closer)
		if closer == "'" && from < len(line) {
			if r, _ := utf8.DecodeRuneInString(line[from:]); isLetter(r) {
				continue // an apostrophe: "Ada's"
			}
		}
		return line[len(open):end], i + from, true
	}
}

// sentenceEnd returns where the sentence that goes on at s[from] ends:
// past its full stop, question or exclamation mark, or at its line's end.
func sentenceEnd(s string, from int) int {
	for i := from; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			return i
		case c == '.' || c == '!' || c == '?':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t' {
				return i + 1
			}
		}
	}
	return len(s)
}

// maxIdle bounds the words after a call in words that idle reads.
const maxIdle = 320

// idle reports whether s, what follows a call in words, says nothing
// more: it is blank, or its sentences only acknowledge, wait, or say
// what the writer will do next.
func idle(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	if len(s) > maxIdle {
		return false
	}
	for _, sentence := range splitSentences(s) {
		if !isAck(sentence) && !planStart().MatchString(sentence) && !isProgress(sentence) && !strings.Contains(strings.ToLower(sentence), "wait") {
			return false
		}
	}
	return true
}
