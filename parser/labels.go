package parser

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// label is the kind of a protocol label found at the start of a line.
type label int

const (
	labelNone label = iota
	labelThought
	labelAction
	labelInput
	labelFinal
	labelObservation
	// labelQuestion is the question a model echoes back; it is left out of
	// the thought.
	labelQuestion
	// labelArgs is a generic word ("Input:", "Arguments:") that is an
	// Action Input label only right after an Action label; anywhere else
	// it is text.
	labelArgs
)

// labelTables spells the keys of labelWords (and "finish") letter by
// letter, as far as they are ASCII, so that a line whose first words begin
// no label is left at the first letter that begins none ("I should ..."
// at the "s"), with one array index a letter, and a label's kind is found
// without hashing. A key with letters beyond ASCII ("acción") is spelled
// up to the first of them, and found in labelWords. Node 0 is the dead
// end; node 1 the root.
var labelTables = sync.OnceValue(func() *labelSet {
	t := &labelSet{next: make([][26]uint16, 2), kind: make([]label, 2), words: labelWords(), prose: proseWords(), finalEnds: map[rune]bool{}}
	add := func(k string, kind label) {
		node := 1
		for i := 0; i < len(k); i++ {
			if k[i] >= utf8.RuneSelf {
				return // the rest is looked up in labelWords
			}
			c := k[i] - 'a'
			if t.next[node][c] == 0 {
				t.next = append(t.next, [26]uint16{})
				t.kind = append(t.kind, labelNone)
				t.next[node][c] = uint16(len(t.next) - 1)
			}
			node = int(t.next[node][c])
		}
		t.kind[node] = kind
	}
	for k, kind := range labelWords() {
		add(k, kind)
		if kind == labelFinal {
			last, _ := utf8.DecodeLastRuneInString(k)
			t.finalEnds[last] = true
		}
	}
	add("finish", labelNone)
	return t
})

// labelSet is what labelTables builds: the trie (the node each letter
// leads to from each node, and the kind of label each node ends), and
// labelWords and proseWords. The scanners fetch it once and pass it
// down, so that the loops that run on every line and every colon look
// it up directly.
type labelSet struct {
	next  [][26]uint16
	kind  []label
	words map[string]label
	prose map[string]bool
	// finalEnds are the last letters of the Final Answer labels' keys:
	// a word ending in another ends no such label.
	finalEnds map[rune]bool
}

// maxLabelRunes bounds how many letters a label's words may have; a line
// whose first words run longer is prose, not a label.
const maxLabelRunes = 24

// mark is one label found in a text: the kind, where it starts and where
// its value starts. A label starts a line, or follows another label on the
// same line ("Thought: x Action: y"); line is where the label itself
// begins, so the value before it ends there.
type mark struct {
	kind   label
	line   int  // offset of the start of the label (its line, or its markup)
	value  int  // offset of the first byte of the value
	lower  bool // the label was written in lower case
	listed bool // the label opens an item of a numbered list ("2. Action:")
	aside  bool // the label is words of a thought, not a label (see reply.inThought)
}

// scanLabels returns the labels of text, in order: those at the starts of
// lines, and those that follow a label on its line. It looks at each byte
// a bounded number of times.
func scanLabels(text string) []mark {
	s := labelScanner{text: text}
	var marks []mark
	for ok := true; ok; {
		marks, ok = s.next(marks)
	}
	return marks
}

// hasLabel reports whether text has a protocol label, reading no further
// than the first one.
func hasLabel(text string) bool {
	s := labelScanner{text: text}
	var buf [maxLineMarks + 1]mark
	_, ok := s.next(buf[:0])
	return ok
}

// labelScanner reads the labels of a text one line at a time, so that a
// parse reads no further than the step it returns needs.
type labelScanner struct {
	lt   *labelSet // fetched on the first line
	text string
	pos  int   // where the next line starts
	last label // the kind of the last label found, or labelNone
	wide int8  // whether text has full-width colons: 0 not known yet, 1 yes, -1 no
	// A line that holds more labels than one call returns: the last
	// label read on it, where it ends, and where its colons are.
	open    bool
	prev    mark
	lineEnd int
	colons  colons

	// For a text that may go on (a reply still streaming, see Scanner):
	// partial leaves out a label at its very end that more text may yet
	// make other words (see awaitsMore); line is where the last line read
	// starts, and need how long the text must be for the reading of that
	// line's start to stay as it is whatever comes after (0 when it
	// stays: the line and any line below it it looked at are whole).
	partial bool
	line    int
	need    int
}

// maxLineMarks bounds the labels one call of next returns from a line,
// so that a line of many labels is read a few at a time, as the parse
// asks for them, not gathered whole.
const maxLineMarks = 4

// next appends the labels of the next line that has any to marks, and
// reports whether it found one before the end of the text.
func (s *labelScanner) next(marks []mark) ([]mark, bool) {
	if s.lt == nil {
		s.lt = labelTables()
	}
	if s.open {
		// The labels after the last one read on its line.
		n := len(marks)
		if marks = s.inline(marks, maxLineMarks); len(marks) > n {
			return marks, true
		}
	}
	m, ok := s.lineStart()
	if !ok {
		return marks, false
	}
	return s.inline(append(marks, m), maxLineMarks), true
}

// lineStart reads the lines from s.pos on until one starts with a label,
// and returns that label, leaving its line open for the labels inside
// it. It reports false when no line before the end of the text does.
func (s *labelScanner) lineStart() (mark, bool) {
	text, lt := s.text, s.lt
	for s.pos < len(text) {
		start := s.pos
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		s.pos, s.line, s.need = end+1, start, 0
		if proseStart(lt, text, start, end) {
			continue // for good: it read the bytes that decide it
		}
		// lineLabel, by hand: this loop runs once a line.
		var m mark
		ok := false
		if plainStarts[text[start]] {
			m, ok = plainLabel(text, start, end)
		}
		if !ok {
			if m, ok = readLineLabel(lt, text, start, end); !ok {
				s.needs(end, m.value)
				continue
			}
		}
		if m.value < end {
			var need int
			m.value, need = skipRepeatedLabel(lt, text, m, end)
			s.needs(end, need)
		} else {
			s.needs(end, end+1) // the value has not begun
			if s.partial && end == len(text) && awaitsMore(text, m, end) {
				continue
			}
		}
		if m.kind == labelArgs {
			// "Input:" is the action's input only right after it.
			if s.last != labelAction {
				continue
			}
			m.kind = labelInput
		}
		if s.wide == 0 {
			s.wide = -1
			if strings.Contains(text, "：") {
				s.wide = 1
			}
		}
		if m.value == end && end < len(text) {
			// A label alone on its line: its value is the next line,
			// read as if it stood after the label, unless it is a label
			// line itself.
			next := strings.IndexByte(text[end+1:], '\n')
			if next < 0 {
				next = len(text)
			} else {
				next += end + 1
			}
			n, isLabel := lineLabel(text, end+1, next)
			if next == len(text) {
				s.need = max(s.need, readingNeed(n, isLabel, next))
			}
			if !isLabel {
				end, s.pos = next, next+1
			}
		}
		s.open, s.prev, s.lineEnd, s.colons = true, m, end, newColons(text, s.wide > 0)
		s.last = m.kind
		return m, true
	}
	return mark{}, false
}

// needs records that the reading of the line that ends at end, which
// started at s.line, stays as it is only once the text is n bytes long,
// when that line is the text's last.
func (s *labelScanner) needs(end, n int) {
	if end == len(s.text) {
		s.need = max(s.need, n)
	}
}

// readingNeed is how long the text must be for a reading of the line that
// ends at end as a label, (m, ok), to stay as it is whatever comes after
// it: a label whose value has begun stays one; a label whose value has
// not may yet be other words ("Action" and "Action Input"); a line that
// is no label says how far the reading needed it (see readLineLabel).
func readingNeed(m mark, ok bool, end int) int {
	switch {
	case ok && m.value < end:
		return 0
	case ok:
		return end + 1
	}
	return m.value
}

// labelSlack bounds how far past where it stopped the reading of what
// closes a label may have looked: the closing parenthesis of a
// qualifier, a character of several bytes.
const labelSlack = maxQualifier + utf8.UTFMax

// awaitsMore reports whether label m, at the end of text with nothing
// after it (its line ends at end), may yet be other words or no label
// when more text comes: "Observation" may be "Observations", "Action -"
// "Action -x". A label whose colon has come is one whatever follows,
// though its value may start later, and so is a user turn's token.
func awaitsMore(text string, m mark, end int) bool {
	if strings.HasPrefix(text[m.line:end], userTurn) {
		return false
	}
	i := end
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '*' || text[i-1] == '_') {
		i--
	}
	return !strings.HasSuffix(text[:i], ":") && !strings.HasSuffix(text[:i], "：")
}

// inline appends up to n labels that follow the last one read on its
// line: a whole step written on one line ("Thought: x Action: y Action
// Input: z"), or a made-up observation after a call ("Action 2:
// Search[x] Observation 2: ..."). A label inside a line is a label only
// when it reads as one: capitalised (or as the line's own label is
// written), after a space or punctuation, and of a kind that may follow
// the label before it. A final answer's and an observation's text are
// never searched. The line is done (s.open is false) once no label
// follows.
func (s *labelScanner) inline(marks []mark, n int) []mark {
	for range n {
		if k := s.prev.kind; k == labelFinal || k == labelObservation || k == labelQuestion {
			s.open = false
			return marks
		}
		m, ok := nextInlineLabel(s.lt, s.text, s.prev, s.lineEnd, &s.colons)
		if !ok {
			s.open = false
			return marks
		}
		if m.kind == labelArgs {
			m.kind = labelInput // "Action: x, Input: y"
		}
		marks = append(marks, m)
		s.prev, s.last = m, m.kind
	}
	return marks
}

// skipRepeatedLabel returns where the value of m starts once the label
// written again at its start is skipped ("Thought: Thought: x", "Final
// Answer: Final Answer: 42"), and how long the text must be for that to
// stay so whatever comes after end, the end of the line (see
// readingNeed).
func skipRepeatedLabel(lt *labelSet, text string, m mark, end int) (value, need int) {
	first := m.line // the label's first letter, past its markup
	for first < m.value && (text[first]|0x20 < 'a' || text[first]|0x20 > 'z') && text[first] < utf8.RuneSelf {
		first++
	}
	if first == m.value || text[m.value]|0x20 != text[first]|0x20 || proseStart(lt, text, m.value, end) {
		return m.value, 0 // the usual case: the value starts otherwise, or as prose does ("T hough:")
	}
	again, ok := readLineLabel(lt, text, m.value, end)
	if ok && again.kind == m.kind && again.value < end {
		return again.value, 0
	}
	return m.value, readingNeed(again, ok, end)
}

// proseStart reports whether the line text[start:end] is prose by its
// first two bytes: no label starts with them.
func proseStart(lt *labelSet, text string, start, end int) bool {
	c := text[start] | 0x20
	if start == end || c < 'a' || c > 'z' {
		return false
	}
	node := lt.next[1][c-'a']
	if node == 0 {
		return true
	}
	if start+1 < end {
		if c := text[start+1]; c == ' ' || c == '\t' {
			return true // a word of one letter ("I should ..."): no label's first word
		} else if c |= 0x20; c >= 'a' && c <= 'z' {
			return lt.next[node][c-'a'] == 0
		}
	}
	return false
}

// lineLabel reports whether the line text[start:end] starts with a label.
// A label is optional markdown (#, >, list bullets, **, __, `, or [ as in
// "[ACTION]"), words from labelWords (an underscore may be escaped, as
// "Action\_Input"), an optional number ("Action 1"), optional closing
// markup, and a colon, half- or full-width, or "]" after an opening
// bracket. A label alone on its line has its value on the lines below
// ("Action Input" then the input), and "Finish[" starts the ReAct paper's
// final action.
func lineLabel(text string, start, end int) (mark, bool) {
	if start < end && plainStarts[text[start]] {
		if m, ok := plainLabel(text, start, end); ok {
			return m, true
		}
	}
	return readLineLabel(labelTables(), text, start, end)
}

// readLineLabel is lineLabel's general reading, in three parts: the
// markup that opens the label, its words, and what closes it.
//
// When it reports false, m.value is how long the text must be for that
// to stay so whatever comes after: one past the last byte the reading
// needed, or past end when it needed to know what follows end.
func readLineLabel(lt *labelSet, text string, start, end int) (mark, bool) {
	if strings.HasPrefix(text[start:end], userTurn) {
		// Llama 2's token that starts a user turn begins a made-up next
		// turn, which ends the reply as an Observation does.
		return mark{kind: labelObservation, line: start, value: start + len(userTurn)}, true
	}
	open, ok := labelOpening(text, start, end)
	if !ok {
		return mark{value: max(open.words, turnNeed(text, start, end))}, false
	}
	kind, i, finish := labelName(lt, text, open.words, end)
	if kind == labelNone {
		// The ReAct paper's "Finish[answer]" on a line of its own.
		if finish && i < end && text[i] == '[' && !open.bracket {
			return mark{kind: labelAction, line: start, value: open.words}, true
		}
		// The words stopped at the character at i: a letter no label
		// goes on with, or no letter.
		switch {
		case i == end:
			i = end + 1
		case text[i] < utf8.RuneSelf && text[i] != '\\':
			i++
		default:
			i += utf8.UTFMax // a character of several bytes, an escape
		}
		return mark{value: max(i, turnNeed(text, start, end))}, false
	}
	m := mark{kind: kind, line: start, lower: text[open.words] >= 'a' && text[open.words] <= 'z', listed: open.listed}
	if m.value, ok = labelClosing(text, i, end, open, m.lower); !ok {
		return mark{value: max(m.value+labelSlack, turnNeed(text, start, end))}, false
	}
	return m, true
}

// turnNeed is how long the text must be to tell whether the line text[start:end]
// opens with one of Llama 2's tokens around the user's turn: 0 when it
// is too long to be the start of one and is not.
func turnNeed(text string, start, end int) int {
	need, line := 0, text[start:end]
	for _, token := range [...]string{userTurn, userTurnEnd} {
		if len(line) < len(token) && strings.HasPrefix(token, line) {
			need = max(need, start+len(token))
		}
	}
	return need
}

// opening is the markup that opens a label on its line.
type opening struct {
	words   int  // where the label's words start
	opened  bool // markup that a bold label closes ("**Action:**")
	bracket bool // an opening bracket ("[ACTION]"), which "]" must close
	listed  bool // list numbering ("2. Action:")
}

// labelOpening reads the white space, markup and list numbering before a
// label's words on the line text[start:end]: "## ", "> ", "- ", "**",
// "[", "1. ", an emoji ("💭 Thought:"), and Llama 2's token that ends the
// user's turn ("[/INST] Thought:"). ok is false when the line holds
// nothing else, or opens with a number that numbers no list; o.words is
// then one past the last byte the reading needed.
func labelOpening(text string, start, end int) (opening, bool) {
	var o opening
	i := start
	if strings.HasPrefix(text[i:end], userTurnEnd) {
		i += len(userTurnEnd)
	}
	for i < end {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '#' || c == '>':
			i++
		case c == '*' || c == '_' || c == '`' || c == '~':
			o.opened = true
			i++
		case c == '[' && !o.bracket:
			o.opened, o.bracket = true, true
			i++
		case (c == '-' || c == '+') && i+1 < end && (text[i+1] == ' ' || text[i+1] == '\t'):
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < end && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			if j < end && (text[j] == '.' || text[j] == ')') && j-i <= 3 {
				i, o.listed = j+1, true
				continue
			}
			return opening{words: j + 1}, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(text[i:end])
			if !unicode.Is(unicode.So, r) && r != '\uFE0F' && r != '\u200D' {
				o.words = i
				return o, true
			}
			i += size
		default:
			o.words = i
			return o, true
		}
	}
	return opening{words: end + 1}, false
}

// labelName reads the words of a label that start at text[i], up to end,
// and returns its kind (labelNone for words that are no label) and where
// the words end, and whether the words are "finish", which is no label
// but may open the ReAct paper's final action. Words are parted by
// spaces, underscores, hyphens and apostrophes (elided as in "l'action"),
// an underscore may be escaped ("Action\_Input"), and a dash after a
// space parts the label from its value ("Action - x"). ASCII words are
// followed in the trie of labelTables letter by letter, so that a line
// whose words begin no label is left at the first letter that begins
// none; other words are looked up in labelWords.
func labelName(lt *labelSet, text string, i, end int) (kind label, at int, finish bool) {
	start := i
	node := 1 // in lt's trie, while the words are ASCII
	var key [maxLabelRunes * 4]byte
	n, runes := 0, 0
words:
	for i < end {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:end])
		}
		switch {
		case r < utf8.RuneSelf && (r|0x20) >= 'a' && (r|0x20) <= 'z', r >= utf8.RuneSelf && unicode.IsLetter(r):
			if runes == maxLabelRunes {
				return labelNone, i, false
			}
			runes++
			if r < utf8.RuneSelf {
				key[n] = byte(r) | 0x20
				n++
				if node != 0 {
					if node = int(lt.next[node][key[n-1]-'a']); node == 0 && n == runes {
						return labelNone, i, false // no label is spelled so
					}
				}
			} else {
				n += utf8.EncodeRune(key[n:], unicode.ToLower(r))
			}
			i += size
		case r == '-' && i > start && (text[i-1] == ' ' || text[i-1] == '\t'):
			break words // "Action - x": a dash after a space parts the label from its value
		case r == ' ' || r == '\t' || r == '_' || r == '-' || r == '\'' || r == '’':
			i += size // between words, and elided as in "l'action"
		case r == '\\' && i+1 < end && text[i+1] == '_':
			i += 2 // a markdown-escaped underscore
		default:
			break words
		}
	}
	if runes == 0 {
		return labelNone, i, false
	}
	if n == runes {
		// node is 0, the dead end, when no label is so spelled.
		return lt.kind[node], i, string(key[:n]) == "finish"
	}
	return lt.words[string(key[:n])], i, false
}

// labelClosing reads what closes a label whose words end at text[i]: an
// optional number, a short qualifier and closing markup ("Action 1:",
// "**Action**:", "Thought #2:", "Action Input (JSON):"), then a colon,
// half- or full-width, the "]" of a bracketed label ("[ACTION] {...}"),
// another separator ("Action = x", "Action -> x"; capitalised, as
// "action = next(plan)" in code is not), or the end of a label alone on
// its line ("Final Answer", "## Action"), whose value is on the lines
// below. It returns where the value starts; ok is false when the words
// are not closed as a label's are, and the offset where the reading
// stopped.
func labelClosing(text string, i, end int, o opening, lower bool) (int, bool) {
	closed, qualified := false, false
	for i < end {
		c := text[i]
		if c == ' ' || c == '\t' || c == '#' || c == '*' || c == '_' || c == '`' || c == '\r' || (c >= '0' && c <= '9') {
			i++
			continue
		}
		if c == '(' && !qualified {
			if k := strings.IndexByte(text[i:min(end, i+maxQualifier)], ')'); k > 0 {
				i, qualified = i+k+1, true
				continue
			}
		}
		if c == ']' && o.bracket {
			closed = true
			i++
		}
		break
	}
	if o.bracket && !closed {
		return i, false
	}
	switch {
	case i < end && text[i] == ':':
		i++
	case strings.HasPrefix(text[i:end], "："):
		i += len("：")
	case !o.bracket && !lower && separator(text[i:end]) > 0:
		i += separator(text[i:end])
	case i == end && !qualified:
		return end, true // alone on its line: the value is below
	case closed:
		// "[ACTION] {...}": the bracket ends the label.
	default:
		return i, false
	}
	// Markup closing a bold label ("**Action:** x"), then white space.
	if o.opened {
		for i < end && (text[i] == '*' || text[i] == '_') {
			i++
		}
	}
	for i < end && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i, true
}

// separator returns the length of the separator other than a colon
// that s starts with, or 0: "=", "=>", "->", or a dash ("-", "–", "—")
// followed by a space. A separator stands after white space ("Action =
// x", "Action - x") or right after the label ("Action=x"), never in
// "Action==x" or "Action-packed".
func separator(s string) int {
	switch {
	case strings.HasPrefix(s, "=>"), strings.HasPrefix(s, "->"):
		return 2
	case strings.HasPrefix(s, "=="):
		return 0
	case strings.HasPrefix(s, "="):
		return 1
	}
	for _, dash := range [...]string{"-", "–", "—"} {
		if rest, ok := strings.CutPrefix(s, dash); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return len(dash)
		}
	}
	return 0
}

// Llama 2's chat-template tokens around the user's turn.
const (
	userTurn    = "[INST]"
	userTurnEnd = "[/INST]"
)

// maxQualifier bounds the qualifier in parentheses a label may carry
// before its colon ("Action Input (JSON):"), parentheses included.
const maxQualifier = 24

// plainStarts are the first letters of the labels plainLabel reads.
var plainStarts = newByteSet("TAFO")

// plainLabel is lineLabel's short way for a line that starts with a label
// as the protocol spells it ("Action Input:") and has its value on the
// same line: it gives the mark lineLabel's general reading gives.
func plainLabel(text string, start, end int) (mark, bool) {
	line := text[start:end]
	// Each label is compared with constants of up to eight bytes, which
	// the compiler does a word at a time.
	var n int
	var kind label
	switch {
	case strings.HasPrefix(line, "Thought:"):
		n, kind = len("Thought:"), labelThought
	case strings.HasPrefix(line, "Action:"):
		n, kind = len("Action:"), labelAction
	case len(line) >= len("Action Input:") && line[:8] == "Action I" && line[8:13] == "nput:":
		n, kind = len("Action Input:"), labelInput
	case len(line) >= len("Final Answer:") && line[:8] == "Final An" && line[8:13] == "swer:":
		n, kind = len("Final Answer:"), labelFinal
	case len(line) >= len("Observation:") && line[:8] == "Observat" && line[8:12] == "ion:":
		n, kind = len("Observation:"), labelObservation
	default:
		return mark{}, false
	}
	i := start + n
	for i < end && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i == end {
		return mark{}, false // the value is on the lines below
	}
	return mark{kind: kind, line: start, value: i}, true
}

// isLetter is unicode.IsLetter with fast paths for ASCII, the CJK
// ideographs and the Hangul syllables, which labels in Chinese, Japanese
// and Korean are written in.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	return isWideLetter(r) || unicode.IsLetter(r)
}

// isWideLetter reports whether r is a CJK unified ideograph or a Hangul
// syllable: a letter with no case.
func isWideLetter(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7A3
}
