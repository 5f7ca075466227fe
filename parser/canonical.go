package parser

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// Most replies are written as the protocol asks: a thought, an action
// named by a registered name or one plain word and its input, or a
// thought and a final answer, each label as the protocol spells it.
// canonical reads those at once, with the same pieces the tolerant
// reading uses, and leaves every other reply to it: the short way gives
// what the tolerant reading gives, or nothing.

// maxCanonical bounds the replies canonical reads: a usual step is a few
// hundred bytes, and a longer reply gains nothing from the short way.
const maxCanonical = 1 << 10

// canonicalStops are the bytes that send a reply to the tolerant reading
// at once: a carriage return, and the markup of reasoning tags,
// chat-template tokens, calls written as tags and code fences.
const canonicalStops = "\r<`"

// canonical reads text when it is a step written in the protocol's own
// labels: "Thought:" (optional), then "Action:" with a tool's name (see
// canonicalTool) and "Action Input:" with the input up to the end, or
// "Final Answer:" with the answer up to the end. ok is false for any
// other reply.
//
// It reads the labels it expects where it expects them, each line once,
// and asks its questions of the whole text only once the labels show a
// canonical step: most replies that are no canonical step show it
// sooner. Nothing is allocated before the step is known.
//
// The step and its error are written to rd, which is left as it was when
// ok is false: a reading passed in, not returned, is not copied on its
// way out.
func (p *Parser) canonical(text string, rd *reading) (ok bool) {
	if len(text) > maxCanonical {
		return false
	}
	c := canonicalReply{text: text, body: trimSpace(text)}
	start := 0
	if strings.HasPrefix(c.body, "Thought:") {
		v, end, ok := c.value(0, len("Thought:"), labelThought)
		if !ok || end == len(c.body) {
			return false // one line: perhaps with its breaks escaped ("\n")
		}
		c.thought, c.thoughtEnd = v, end
		start = end + 1
	}
	switch rest := c.body[start:]; {
	case strings.HasPrefix(rest, "Action:"):
		return p.canonicalCall(&c, start, rd)
	case len(rest) >= len("Final Answer:") && rest[:8] == "Final An" && rest[8:13] == "swer:":
		return p.canonicalAnswer(&c, start, rd)
	}
	return false
}

// canonicalAnswer is canonical from the Final Answer label at start.
func (p *Parser) canonicalAnswer(c *canonicalReply, start int, rd *reading) bool {
	v, end, ok := c.value(start, len("Final Answer:"), labelFinal)
	if !ok || c.thoughtEnd == 0 && end == len(c.body) || !noLabelFrom(c.body, end) || !c.plain() {
		return false
	}
	// plain has ruled out fences: cleanText would only trim.
	answer := trimSpace(c.body[v:])
	if answer == "" {
		rd.err = p.errEmptyAnswer()
		return true
	}
	rd.step, rd.err = p.answer(c.thoughtText(), answer)
	return true
}

// canonicalCall is canonical from the Action label at start.
func (p *Parser) canonicalCall(c *canonicalReply, start int, rd *reading) bool {
	body := c.body
	v, end, ok := c.value(start, len("Action:"), labelAction)
	if !ok || end == len(body) {
		return false
	}
	name := trimBlankRight(body[v:end])
	info, ok := p.canonicalTool(name)
	// The line is the name and blanks: it holds a colon only when a
	// registered name does.
	if !ok || p.tools.hasPunctuatedNames && !c.noInlineLabel(mark{kind: labelAction, line: start, value: v}, end, false) {
		return false
	}
	if start = end + 1; len(body)-start < len("Action Input:") || body[start:start+8] != "Action I" || body[start+8:start+13] != "nput:" {
		return false
	}
	if v, end, ok = c.value(start, len("Action Input:"), labelInput); !ok {
		return false
	}
	input := body[v:]
	var buf [maxFlatOnStack]flatPair
	pairs, keyColons, flat := readFlat(input, buf[:0])
	// A flat object that is the whole of its line shows at once that the
	// line holds no label when its only colons are those right after its
	// keys (see noInlineLabel).
	if !flat || end < len(body) || !keyColons {
		if !c.noInlineLabel(mark{kind: labelInput, line: start, value: v}, end, true) || !noLabelFrom(body, end) {
			return false
		}
	}
	if !c.plain() {
		return false
	}
	if !flat {
		rd.step, rd.err = p.call(c.thoughtText(), name, input, asWritten)
		return true
	}
	// A flat JSON object, the usual input: read as call reads it,
	// without looking for the forms it is not.
	args := flatMap(pairs)
	if info == nil {
		// A tool the parser does not know takes the object as written.
		rd.step = Step{Kind: KindAction, Thought: c.thoughtText(), Action: name, Args: args}
		return true
	}
	if !info.ownFlatKeys(pairs) {
		args = info.adaptArgs(args)
	}
	rd.step = Step{Kind: KindAction, Thought: c.thoughtText(), Action: info.name, Args: args}
	return true
}

// canonicalTool returns the tool that name, an Action's value, calls as
// the tolerant reading reads it: a registered tool by its own name, or,
// for a name that is one plain word (see isPlainWord), the registered
// tool a forgiving match finds, or none (info is nil: a tool the parser
// was not told of, called by name). ok is false when name may read as
// something else, which the tolerant reading decides: markup, several
// words, a namespace, the final answer, a refusal, a placeholder, or a
// registered name with generic words around it.
func (p *Parser) canonicalTool(name string) (info *toolInfo, ok bool) {
	if info = p.registered(name); info != nil {
		return info, true
	}
	if !isPlainWord(name) {
		return nil, false
	}
	return p.tools.plainWordTool(name)
}

// isPlainWord reports whether name is one word of ASCII letters, digits,
// '_' and '-' with no junk at its ends, as most tools' names are: the
// tolerant reading finds no inline input in it, keeps it as written for
// a tool it does not know (no namespace, no bracket), and splits it into
// no words but at '_' and '-'.
func isPlainWord(name string) bool {
	if !isASCIIWord(name) || asciiNameJunk[name[0]] || asciiNameJunk[name[len(name)-1]] {
		return false
	}
	return strings.IndexByte(name, '.') < 0
}

// canonicalReply is a reply as canonical reads it: the text, its body
// without the white space around it, and its Thought label's line, if it
// has one.
type canonicalReply struct {
	text, body string
	// thought and thoughtEnd are where the thought's value starts and
	// its line ends, when there is one (thoughtEnd > 0).
	thought, thoughtEnd int
	lt                  *labelSet // fetched once a line needs the general reading
}

// value reads the value of the label of kind, n bytes long, that opens
// the line at start, as plainLabel and skipRepeatedLabel read it: where
// the value starts and the line ends. ok is false when the value is on
// the lines below, or opens with the label written again.
func (c *canonicalReply) value(start, n int, kind label) (v, end int, ok bool) {
	body := c.body
	v = start + n
	for v < len(body) && (body[v] == ' ' || body[v] == '\t') {
		v++
	}
	if v == len(body) || body[v] == '\n' {
		return 0, 0, false
	}
	if end = strings.IndexByte(body[v:], '\n'); end < 0 {
		end = len(body)
	} else {
		end += v
	}
	// The label written again ("Thought: Thought: x") is skipped by the
	// tolerant reading, and leaves the reply to it. A value whose first
	// letter is not the label's is no such label.
	if body[v]|0x20 == body[start]|0x20 {
		if again, _ := skipRepeatedLabel(c.tables(), body, mark{kind: kind, line: start, value: v}, end); again != v {
			return 0, 0, false
		}
	}
	return v, end, true
}

// tables returns the label tables, fetched on the first call.
func (c *canonicalReply) tables() *labelSet {
	if c.lt == nil {
		c.lt = labelTables()
	}
	return c.lt
}

// plain reports whether the thought's line holds no other label and the
// text nothing the tolerant reading changes before it reads labels. The
// thought's line, and the whole text, are read last.
func (c *canonicalReply) plain() bool {
	return (c.thoughtEnd == 0 || c.noInlineLabel(mark{kind: labelThought, value: c.thought}, c.thoughtEnd, false)) && plainText(c.text)
}

// thoughtText returns the thought, once plain has ruled out fences.
func (c *canonicalReply) thoughtText() string {
	if c.thoughtEnd == 0 {
		return ""
	}
	return trimSpace(c.body[c.thought:c.thoughtEnd])
}

// trimSpace is strings.TrimSpace, with a short way for a text whose ends
// are ASCII.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' && asciiSpace[s[i]] {
		i++
	}
	for j > i && s[j-1] <= ' ' && asciiSpace[s[j-1]] {
		j--
	}
	if i < j && (s[i] >= utf8.RuneSelf || s[j-1] >= utf8.RuneSelf) {
		return strings.TrimSpace(s[i:j])
	}
	return s[i:j]
}

// asciiSpace are the ASCII bytes unicode.IsSpace reports.
var asciiSpace = newByteSet("\t\n\v\f\r ")

// ownFlatKeys reports what allOwn would of the map of pairs: that its
// keys are all the tool's own, as the tool writes them. A key written
// twice leaves the answer to allOwn.
func (info *toolInfo) ownFlatKeys(pairs []flatPair) bool {
	if len(pairs) > len(info.args) {
		return false
	}
	for i := range pairs {
		for j := range i {
			if pairs[j].key == pairs[i].key {
				return false
			}
		}
	}
	n := 0
	for _, a := range info.args {
		for i := range pairs {
			if pairs[i].key == a {
				n++
				break
			}
		}
	}
	return n == len(pairs)
}

// trimBlankRight returns s without the spaces and tabs at its end.
func trimBlankRight(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}

// plainText reports whether text holds nothing that the tolerant reading
// changes before it reads labels (see normalize and SplitReasoning):
// none of canonicalStops, no invalid UTF-8, no full-width colon. It is
// asked last, once the labels have shown a canonical step: each is
// looked for in the whole text, at memchr speed.
func plainText(text string) bool {
	for i := 0; i < len(canonicalStops); i++ {
		if strings.IndexByte(text, canonicalStops[i]) >= 0 {
			return false
		}
	}
	return isASCII(text) || utf8.ValidString(text) && !strings.Contains(text, "：")
}

// noInlineLabel reports whether the line of label m, which ends at end,
// holds no other label after it, as the label scanner reads them. A colon
// right after a quote, as in a JSON object's keys (json), ends no label:
// the line is read whole only when another colon stands in it.
func (c *canonicalReply) noInlineLabel(m mark, end int, json bool) bool {
	body := c.body
	for i := m.value; i < end; i++ {
		k := strings.IndexByte(body[i:end], ':')
		if k < 0 {
			return true
		}
		i += k
		if !json || i == m.value || body[i-1] != '"' {
			cs := newColons(body, false)
			_, found := nextInlineLabel(c.tables(), body, m, end, &cs)
			return !found
		}
	}
	return true
}

// noLabelFrom reports whether no line of body after offset end (the end
// of a line) holds a label.
func noLabelFrom(body string, end int) bool {
	if end == len(body) {
		return true
	}
	s := labelScanner{text: body, pos: end + 1}
	var buf [maxLineMarks + 1]mark
	_, found := s.next(buf[:0])
	return !found
}

// registered returns the registered tool that name names as the tool
// index holds it, when name reads as nothing else: not a blob, markup or
// a name with junk at its ends. It returns nil otherwise.
func (p *Parser) registered(name string) *toolInfo {
	if name == "" || startsBlob(name) || name[0] == '<' {
		return nil
	}
	// cleanName trims only the ends: a name whose first and last letters
	// are no junk is its own clean name.
	if first, last := name[0], name[len(name)-1]; first < utf8.RuneSelf && last < utf8.RuneSelf {
		if asciiNameJunk[first] || asciiNameJunk[last] {
			return nil
		}
	} else {
		first, _ := utf8.DecodeRuneInString(name)
		last, _ := utf8.DecodeLastRuneInString(name)
		if isNameJunk(first) || isNameJunk(last) {
			return nil
		}
	}
	return p.tools.byName[name]
}

// isASCII reports whether s is all ASCII, 32 bytes at a time.
func isASCII(s string) bool {
	const high = 0x8080808080808080
	for len(s) >= 32 {
		if (le64(s[0:8])|le64(s[8:16])|le64(s[16:24])|le64(s[24:32]))&high != 0 {
			return false
		}
		s = s[32:]
	}
	for len(s) >= 8 {
		if le64(s[:8])&high != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// le64 returns the first eight bytes of s as a little-endian word.
func le64(s string) uint64 {
	return binary.LittleEndian.Uint64([]byte(s[:8]))
}
