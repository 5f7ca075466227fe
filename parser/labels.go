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

// labelWords maps a label's words, lower-cased with spaces, underscores and
// hyphens removed, to its kind.
var labelWords = sync.OnceValue(func() map[string]label {
	return map[string]label{
		"thought":         labelThought,
		"thoughts":        labelThought,
		"thinking":        labelThought,
		"though":          labelThought, // "Thought" with its last letter lost
		"reasoning":       labelThought,
		"思考":              labelThought,
		"想法":              labelThought,
		"action":          labelAction,
		"tool":            labelAction,
		"toolname":        labelAction,
		"actionname":      labelAction,
		"toolcall":        labelAction,
		"functioncall":    labelAction,
		"functionname":    labelAction,
		"行动":              labelAction,
		"动作":              labelAction,
		"actioninput":     labelInput,
		"actioninputs":    labelInput,
		"actionargs":      labelInput,
		"actionargument":  labelInput,
		"actionarguments": labelInput,
		"toolinput":       labelInput,
		"toolargs":        labelInput,
		"toolarguments":   labelInput,
		"行动输入":            labelInput,
		"动作输入":            labelInput,
		"finalanswer":     labelFinal,
		"answer":          labelFinal,
		"最终答案":            labelFinal,
		"最终回答":            labelFinal,
		"答案":              labelFinal,
		"observation":     labelObservation,
		"observations":    labelObservation,
		"观察":              labelObservation,
		"观察结果":            labelObservation,
		"question":        labelQuestion,
		"问题":              labelQuestion,
		"actionoutput":    labelObservation,
		"actionresult":    labelObservation,
		"tooloutput":      labelObservation,
		"toolresult":      labelObservation,
		// A made-up next turn of the conversation ends the reply as a made-up
		// observation does.
		"human": labelObservation, "user": labelObservation,
		// So does the PAUSE with which some ReAct prompts have the model wait
		// for the observation after its action.
		"pause": labelObservation,
		// The labels as models write them when they answer in another
		// language, keyed as above (accents kept, apostrophes dropped).
		"pensamiento": labelThought, "pensamento": labelThought, "pensée": labelThought, "réflexion": labelThought,
		"gedanke": labelThought, "gedanken": labelThought, "überlegung": labelThought, "pensiero": labelThought,
		"мысль": labelThought, "мысли": labelThought, "размышление": labelThought, "考え": labelThought, "생각": labelThought,
		"acción": labelAction, "accion": labelAction, "ação": labelAction, "acao": labelAction, "aktion": labelAction,
		"azione": labelAction, "действие": labelAction, "行動": labelAction, "アクション": labelAction, "행동": labelAction, "액션": labelAction,
		"entradadeacción": labelInput, "entradadelaacción": labelInput, "entradadeaccion": labelInput, "entradadaação": labelInput,
		"entradadeação": labelInput, "entréedelaction": labelInput, "entréedaction": labelInput, "aktionseingabe": labelInput,
		"aktioneingabe": labelInput, "inputdellazione": labelInput, "вводдействия": labelInput, "行動入力": labelInput,
		"アクション入力": labelInput, "行動輸入": labelInput, "행동입력": labelInput, "액션입력": labelInput,
		"respuestafinal": labelFinal, "respostafinal": labelFinal, "réponsefinale": labelFinal, "endgültigeantwort": labelFinal,
		"finaleantwort": labelFinal, "rispostafinale": labelFinal, "окончательныйответ": labelFinal, "итоговыйответ": labelFinal,
		"финальныйответ": labelFinal, "最終回答": labelFinal, "最終答案": labelFinal, "最终答复": labelFinal, "最终回复": labelFinal,
		"최종답변": labelFinal, "최종답": labelFinal,
		"observación": labelObservation, "observacion": labelObservation, "observação": labelObservation,
		"beobachtung": labelObservation, "osservazione": labelObservation, "наблюдение": labelObservation,
		"観察": labelObservation, "観測": labelObservation, "觀察": labelObservation, "관찰": labelObservation,
		"input":      labelArgs,
		"inputs":     labelArgs,
		"args":       labelArgs,
		"arguments":  labelArgs,
		"parameters": labelArgs,
		"params":     labelArgs,
		"输入":         labelArgs,
		"参数":         labelArgs,
	}
})

// labelTables spells the keys of labelWords (and "finish") letter by
// letter, as far as they are ASCII, so that a line whose first words begin
// no label is left at the first letter that begins none ("I should ..."
// at the "s"), with one array index a letter, and a label's kind is found
// without hashing. A key with letters beyond ASCII ("acción") is spelled
// up to the first of them, and found in labelWords. Node 0 is the dead
// end; node 1 the root.
var labelTables = sync.OnceValue(func() *labelSet {
	t := &labelSet{next: make([][26]uint16, 2), kind: make([]label, 2), words: labelWords(), prose: proseWords()}
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
}

// maxLineMarks bounds the labels one call of next returns from a line,
// so that a line of many labels is read a few at a time, as the parse
// asks for them, not gathered whole.
const maxLineMarks = 4

// next appends the labels of the next line that has any to marks, and
// reports whether it found one before the end of the text.
func (s *labelScanner) next(marks []mark) ([]mark, bool) {
	text := s.text
	if s.lt == nil {
		s.lt = labelTables()
	}
	lt := s.lt
	if s.open {
		// The labels after the last one read on its line.
		n := len(marks)
		if marks = s.inline(marks); len(marks) > n {
			s.last = marks[len(marks)-1].kind
			return marks, true
		}
	}
	for s.pos < len(text) {
		start := s.pos
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		s.pos = end + 1
		if proseStart(lt, text, start, end) {
			continue
		}
		// lineLabel, by hand: this loop runs once a line.
		var m mark
		ok := false
		if plainStarts[text[start]] {
			m, ok = plainLabel(text, start, end)
		}
		if !ok {
			if m, ok = readLineLabel(lt, text, start, end); !ok {
				continue
			}
		}
		if m.value < end {
			m.value = skipRepeatedLabel(lt, text, m, end)
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
			if _, isLabel := lineLabel(text, end+1, next); !isLabel {
				end, s.pos = next, next+1
			}
		}
		s.open, s.prev, s.lineEnd, s.colons = true, m, end, newColons(text, s.wide > 0)
		marks = s.inline(append(marks, m))
		s.last = marks[len(marks)-1].kind
		return marks, true
	}
	return marks, false
}

// inline appends up to maxLineMarks labels that follow the last one read
// on its line: a whole step written on one line ("Thought: x Action: y
// Action Input: z"), or a made-up observation after a call ("Action 2:
// Search[x] Observation 2: ..."). A label inside a line is a label only
// when it reads as one: capitalised (or as the line's own label is
// written), after a space or punctuation, and of a kind that may follow
// the label before it. A final answer's and an observation's text are
// never searched. The line is done (s.open is false) once no label
// follows.
func (s *labelScanner) inline(marks []mark) []mark {
	for range maxLineMarks {
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
		s.prev = m
	}
	return marks
}

// skipRepeatedLabel returns where the value of m starts once the label
// written again at its start is skipped ("Thought: Thought: x", "Final
// Answer: Final Answer: 42").
func skipRepeatedLabel(lt *labelSet, text string, m mark, end int) int {
	first := m.line // the label's first letter, past its markup
	for first < m.value && (text[first]|0x20 < 'a' || text[first]|0x20 > 'z') && text[first] < utf8.RuneSelf {
		first++
	}
	if first == m.value || text[m.value]|0x20 != text[first]|0x20 || proseStart(lt, text, m.value, end) {
		return m.value // the usual case: the value starts otherwise, or as prose does ("T hough:")
	}
	if again, ok := readLineLabel(lt, text, m.value, end); ok && again.kind == m.kind && again.value < end {
		return again.value
	}
	return m.value
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

// nextInlineLabel finds the first label after prev's value starts, before
// end, that may follow prev on its line. c keeps where the line's colons
// are from one call to the next.
func nextInlineLabel(lt *labelSet, text string, prev mark, end int, c *colons) (mark, bool) {
	// The next half-width and full-width colons, each found at memchr
	// speed and looked for again only once passed, also by the calls for
	// the next labels of the line.
	half, full := &c.half, &c.full
	rejected := 0
	// An input written as JSON: a label inside one of its strings
	// ("{"input": "0 Thought: 0"}") is text. The JSON is read only as far
	// as the labels found in it, so that a line of many inputs is read
	// once.
	var js jsonScan
	isJSON := prev.kind == labelInput && prev.value < end && (text[prev.value] == '{' || text[prev.value] == '[')
	js.pos = prev.value
	for from := prev.value; from < end; {
		if *half < from {
			*half = indexByteFrom(text[:end], ':', from)
		}
		if *full < from {
			*full = indexFrom(text[:end], "：", from)
		}
		colon, size := *half, 1
		if *full < colon {
			colon, size = *full, len("：")
		}
		if colon >= end {
			return mark{}, false
		}
		from = colon + size
		m, ok := labelBefore(lt, text, prev.value, colon)
		if !ok {
			continue
		}
		if isJSON && js.inString(text, m.line) {
			continue
		}
		if !followsInline(prev, m, text, m.line) {
			// Label words that are no label here: a line of many is
			// not a step written on one line.
			if rejected++; rejected == maxRejectedInline {
				return mark{}, false
			}
			continue
		}
		m.value = from
		for m.value < end && (text[m.value] == '*' || text[m.value] == '_') {
			m.value++
		}
		for m.value < end && (text[m.value] == ' ' || text[m.value] == '\t') {
			m.value++
		}
		return m, true
	}
	return mark{}, false
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

// colons are where the next colons of a line stand, as far as they were
// looked for: a label inside the line ends at one.
type colons struct {
	half, full int // -1 when not looked for yet
}

// newColons returns colons not looked for yet in text; wide says whether
// text has full-width colons at all.
func newColons(text string, wide bool) colons {
	c := colons{half: -1, full: -1}
	if !wide {
		c.full = len(text)
	}
	return c
}

// indexFrom returns the offset of the first sep in s at or after from, or
// len(s) when there is none (so that it is not looked for again).
func indexFrom(s, sep string, from int) int {
	if k := strings.Index(s[from:], sep); k >= 0 {
		return from + k
	}
	return len(s)
}

// indexByteFrom is indexFrom for a single byte.
func indexByteFrom(s string, c byte, from int) int {
	if k := strings.IndexByte(s[from:], c); k >= 0 {
		return from + k
	}
	return len(s)
}

// proseWords are label words that count at the start of a line but not
// inside one, where prose uses them ("The Answer: is 42", "the Tool: a
// hammer", "Reasoning: below"): inside a line only the protocol's own
// labels count.
var proseWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"answer": true, "tool": true, "thoughts": true, "thinking": true, "reasoning": true, "though": true,
		"question": true, "答案": true, "human": true, "user": true}
})

// maxRejectedInline is how many label words a line may hold that cannot
// follow its label before the rest of the line is taken as text.
const maxRejectedInline = 4

// labelBefore reads the label whose colon is at text[colon], with its
// words starting no earlier than from: up to three words (and a number,
// and closing markup) before the colon, the longest that is a label.
func labelBefore(lt *labelSet, text string, from, colon int) (mark, bool) {
	i := colon
	// Closing markup and a number between the words and the colon.
	for i > from && strings.IndexByte(" \t*_`", text[i-1]) >= 0 {
		i--
	}
	for i > from && text[i-1] >= '0' && text[i-1] <= '9' {
		i--
	}
	for i > from && strings.IndexByte(" \t*_`#", text[i-1]) >= 0 {
		i--
	}
	wordsEnd := i
	var found mark
	ok := false
	for words := 0; words < 3 && i > from; words++ {
		j := i
		for j > from && wordsEnd-j <= maxLabelRunes*4 {
			if c := text[j-1]; c < utf8.RuneSelf {
				if (c|0x20) < 'a' || (c|0x20) > 'z' {
					break
				}
				j--
				continue
			}
			r, size := utf8.DecodeLastRuneInString(text[from:j])
			if !isLetter(r) {
				break
			}
			j -= size
		}
		if j == i || wordsEnd-j > maxLabelRunes*4 {
			break
		}
		var buf [maxLabelRunes * 4]byte
		key := labelKey(buf[:0], text[j:wordsEnd])
		if kind, isLabel := lt.words[string(key)]; isLabel && !lt.prose[string(key)] {
			found, ok = mark{kind: kind, line: j}, true
		}
		// The next word back, past the spaces or the underscore or hyphen
		// between them.
		i = j
		if i > from && strings.IndexByte(" \t_-'", text[i-1]) >= 0 {
			i--
		} else {
			break
		}
	}
	if !ok {
		return mark{}, false
	}
	r, _ := utf8.DecodeRuneInString(text[found.line:])
	found.lower = unicode.IsLower(r)
	// The label stands after a space or punctuation, not inside a word.
	if found.line > from {
		b, _ := utf8.DecodeLastRuneInString(text[from:found.line])
		if isLetter(b) || unicode.IsDigit(b) {
			return mark{}, false
		}
	}
	// Opening markup before the label belongs to it.
	for found.line > from && strings.IndexByte("*_`", text[found.line-1]) >= 0 {
		found.line--
	}
	return found, true
}

// labelKey appends the lookup key of a label's words to buf: lower case,
// with no spaces, underscores or hyphens. The caller's buffer keeps the
// lookup free of allocations.
func labelKey(buf []byte, words string) []byte {
	for i := 0; i < len(words); i++ {
		if c := words[i]; c >= utf8.RuneSelf {
			return labelKeySlow(buf, words[i:])
		} else if (c|0x20) >= 'a' && (c|0x20) <= 'z' {
			buf = append(buf, c|0x20)
		}
	}
	return buf
}

// labelKeySlow is labelKey for words beyond ASCII.
func labelKeySlow(buf []byte, words string) []byte {
	for _, r := range words {
		if isWideLetter(r) {
			buf = utf8.AppendRune(buf, r)
		} else if isLetter(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		}
	}
	return buf
}

// followsInline reports whether label m, found inside a line after prev,
// is one: of a kind that may follow prev on one line, and capitalised
// unless prev was written in lower case too. A lower-case final answer
// must also open a sentence, so that "I will give the final answer: soon"
// stays prose.
func followsInline(prev, m mark, text string, at int) bool {
	switch m.kind {
	case labelArgs:
		// A generic word ("Input:") is a label inline only after the
		// tool's name and a space or comma: "web_search, Input: zig",
		// not "#Args:0".
		if prev.kind != labelAction || at == 0 || strings.IndexByte(" \t,;", text[at-1]) < 0 {
			return false
		}
	case labelInput:
		if prev.kind != labelAction && prev.kind != labelThought {
			return false
		}
	case labelAction, labelFinal:
		if prev.kind != labelThought {
			return false
		}
	case labelThought:
		if prev.kind != labelInput {
			return false
		}
	case labelObservation:
	default:
		return false
	}
	if !m.lower {
		return true
	}
	if !prev.lower {
		return false
	}
	if m.kind == labelFinal || m.kind == labelThought {
		before := strings.TrimRight(text[:at], " \t*_`")
		r, _ := utf8.DecodeLastRuneInString(before)
		return strings.ContainsRune(".!?。！？", r)
	}
	return true
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

// readLineLabel is lineLabel's general reading.
func readLineLabel(lt *labelSet, text string, start, end int) (mark, bool) {
	i := start
	opened, bracket, listed := false, false, false
	if i < end && text[i] == '[' {
		// Llama 2's chat-template tokens: the one that ends the user's
		// turn stands before the label ("[/INST] Thought:"); the one that
		// starts a user turn begins a made-up next turn, which ends the
		// reply as an Observation does.
		if strings.HasPrefix(text[i:end], userTurn) {
			return mark{kind: labelObservation, line: start, value: i + len(userTurn)}, true
		}
		if strings.HasPrefix(text[i:end], userTurnEnd) {
			i += len(userTurnEnd)
		}
	}
	// Leading white space, markup and list numbering.
	for i < end {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '#' || c == '>':
			i++
		case c == '*' || c == '_' || c == '`' || c == '~':
			opened = true
			i++
		case c == '[' && !bracket:
			opened, bracket = true, true
			i++
		case (c == '-' || c == '+') && i+1 < end && (text[i+1] == ' ' || text[i+1] == '\t'):
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < end && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			if j < end && (text[j] == '.' || text[j] == ')') && j-i <= 3 {
				i, listed = j+1, true
				continue
			}
			return mark{}, false
		case c >= utf8.RuneSelf:
			// An emoji before the label ("💭 Thought:").
			r, size := utf8.DecodeRuneInString(text[i:end])
			if !unicode.Is(unicode.So, r) && r != '\uFE0F' && r != '\u200D' {
				goto words
			}
			i += size
		default:
			goto words
		}
	}
	return mark{}, false

words:
	wordStart := i
	node := 1 // in lt's trie, while the words are ASCII
	var key [maxLabelRunes * 4]byte
	n, runes := 0, 0
	for i < end {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:end])
		}
		switch {
		case r < utf8.RuneSelf && (r|0x20) >= 'a' && (r|0x20) <= 'z', r >= utf8.RuneSelf && unicode.IsLetter(r):
			if runes == maxLabelRunes {
				return mark{}, false
			}
			runes++
			if r < utf8.RuneSelf {
				key[n] = byte(r) | 0x20
				n++
				if node != 0 {
					if node = int(lt.next[node][key[n-1]-'a']); node == 0 && n == runes {
						return mark{}, false // no label is spelled so
					}
				}
			} else {
				n += utf8.EncodeRune(key[n:], unicode.ToLower(r))
			}
			i += size
		case r == '-' && i > wordStart && (text[i-1] == ' ' || text[i-1] == '\t'):
			goto afterWords // "Action - x": a dash after a space parts the label from its value
		case r == ' ' || r == '\t' || r == '_' || r == '-' || r == '\'' || r == '’':
			i += size // between words, and elided as in "l'action"
		case r == '\\' && i+1 < end && text[i+1] == '_':
			i += 2 // a markdown-escaped underscore
		default:
			goto afterWords
		}
	}
afterWords:
	if runes == 0 {
		return mark{}, false
	}
	var kind label
	var ok bool
	if n == runes {
		kind = lt.kind[node] // node is 0, the dead end, when no label is so spelled
		ok = kind != labelNone
	} else {
		kind, ok = lt.words[string(key[:n])]
	}
	if !ok {
		// The ReAct paper's "Finish[answer]" on a line of its own.
		if string(key[:n]) == "finish" && i < end && text[i] == '[' && !bracket {
			return mark{kind: labelAction, line: start, value: wordStart}, true
		}
		return mark{}, false
	}
	lower := text[wordStart] >= 'a' && text[wordStart] <= 'z'
	// Optional number, a short qualifier and closing markup before the
	// colon: "Action 1:", "**Action**:", "Thought #2:", "[ACTION]",
	// "Action Input (JSON):".
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
		if c == ']' && bracket {
			closed = true
			i++
		}
		break
	}
	if bracket && !closed {
		return mark{}, false
	}
	switch {
	case i < end && text[i] == ':':
		i++
	case strings.HasPrefix(text[i:end], "："):
		i += len("：")
	case !bracket && !lower && separator(text[i:end]) > 0:
		// "Action = x", "Action - x", "Action -> x", "Action => x";
		// capitalized, which "action = next(plan)" in code is not.
		i += separator(text[i:end])
	case i == end && !qualified:
		// A label alone on its line ("Final Answer", "[THOUGHT]",
		// "## Action"): the value is on the lines below.
		return mark{kind: kind, line: start, value: end, lower: lower, listed: listed}, true
	case closed:
		// "[ACTION] {...}": the bracket ends the label.
	default:
		return mark{}, false
	}
	// Markup closing a bold label ("**Action:** x"), then white space.
	if opened {
		for i < end && (text[i] == '*' || text[i] == '_') {
			i++
		}
	}
	for i < end && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return mark{kind: kind, line: start, value: i, lower: lower, listed: listed}, true
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
	if len(line) < len("Action:") {
		return mark{}, false
	}
	var l string
	var kind label
	switch line[0] {
	case 'T':
		l, kind = "Thought:", labelThought
	case 'A':
		l, kind = "Action:", labelAction
		if line[len("Action")] == ' ' {
			l, kind = "Action Input:", labelInput
		}
	case 'F':
		l, kind = "Final Answer:", labelFinal
	case 'O':
		l, kind = "Observation:", labelObservation
	default:
		return mark{}, false
	}
	if !strings.HasPrefix(line, l) {
		return mark{}, false
	}
	i := start + len(l)
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
