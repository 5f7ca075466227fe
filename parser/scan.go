package parser

import "strings"

// A Scanner reads a reply as it streams, a piece at a time, and tells as
// soon as it is sure where the reply's first action is complete, so that
// the stream can be cut there: where a label that starts something else
// follows the action and its input (see StepEnd), or where an observation
// the model made up begins after an action (see ObservationAt), outside
// reasoning blocks. Fed a whole reply it finds what ActionEnd finds; fed
// a part, what ActionEnd finds in that part, but for a label at its very
// end that more text may yet make other words ("Observation" may be
// "Observations"): that one waits for its colon or for what follows it.
//
// It reads the labels with the parser's own reading of them, a line at a
// time: a line whose start is read for good is not read again, and the
// labels inside the last line, still coming, are looked for from where
// the last look stopped. Only a line's start that is not sure yet (a
// label still being written) is read again as pieces come, so that the
// cost of a stream is linear in its length, whatever the pieces' sizes.
//
// A Scanner is not safe for concurrent use.
type Scanner struct {
	p    *Parser
	text strings.Builder
	seen int // the length of the text when it was last scanned
	tail int // how far the text after seen is known to be blanks
	nl   int // the end of the text's last line break

	// The reasoning blocks, in the text's offsets.
	vis    int    // where the text after the last reasoning block starts
	inside string // the tag of a block still open, or ""
	tagAt  int    // where looking for reasoning tags goes on

	// The labels of the text after vis, in offsets from vis. lines has
	// read for good the lines before lines.pos, or, with inLine, the
	// start of the last line, which is still coming, and the labels
	// inside it as far as they are sure; sp and e follow those labels.
	lines    labelScanner
	inLine   bool
	labelled bool // with inLine: the line starts with a label
	lineAt   int  // with inLine: how long the text was when the line was last read
	held     bool // with inLine: a label inside the line, whose value has not begun, is read again
	sp       span
	e        actionEnd

	cut   int  // the answer: where to cut, or -1
	final bool // no later piece changes the answer (but a reasoning tag)

	// The lines after lines.pos, when not read for good, are read again
	// at each piece; past maxUnsure bytes, only as they grow by half or
	// end. unsureAt is where they start (lines.pos), unsureLen how long
	// they were when last read.
	unsureAt, unsureLen int
	// Parse's verdict on the reply before the made-up observation at
	// obsAt (in the text's offsets): whether it holds an action.
	obsAt  int
	obsCut bool

	// reread counts the bytes read again, to show that a stream costs
	// time in proportion to its length.
	reread int
}

// maxUnsure is how long the lines after those read for good may grow
// and still be read again at every piece: only a label-like line of
// runs of markup (a line of dashes, spaces, asterisks) grows so long
// without its start being sure. Past it, the lines are read again as
// they grow by half, and when they end, so that a label after thousands
// of bytes of markup may be found later than it could be.
const maxUnsure = 1 << 10

// NewScanner returns a Scanner for a reply to be parsed by p: the
// made-up observation after a call in another form than labels (a JSON
// object) ends an action when p parses the reply before it as one.
func (p *Parser) NewScanner() *Scanner {
	s := &Scanner{p: p, obsAt: -1}
	s.restart(0)
	return s
}

// Write adds the next piece of the reply. It never fails.
func (s *Scanner) Write(piece []byte) (int, error) {
	return s.text.Write(piece)
}

// WriteString adds the next piece of the reply. It never fails.
func (s *Scanner) WriteString(piece string) (int, error) {
	return s.text.WriteString(piece)
}

// Text returns the reply so far.
func (s *Scanner) Text() string {
	return s.text.String()
}

// Cut returns where the reply so far is to be cut, just past its first
// complete action, or -1 while it holds none or it is not sure yet.
func (s *Scanner) Cut() int {
	s.scan()
	if s.inside != "" {
		return -1
	}
	return s.cut
}

// Settled returns how much of the reply so far no cut can fall in: all
// of it inside a reasoning block, or once no cut can come; else the
// reply up to its last line, which is still coming, or up to the end of
// the last reasoning block.
func (s *Scanner) Settled() int {
	s.scan()
	if s.inside != "" || s.final && s.cut < 0 {
		return s.text.Len()
	}
	return max(s.vis, s.nl)
}

// restart reads the labels anew after a reasoning block that ends at vis.
func (s *Scanner) restart(vis int) {
	s.vis, s.cut, s.final = vis, -1, false
	s.lines = labelScanner{lt: labelTables(), partial: true, wide: 1}
	s.inLine, s.labelled, s.lineAt, s.held = false, false, 0, false
	s.sp, s.e = span{}, actionEnd{}
	s.unsureAt, s.unsureLen = -1, 0
}

// scan reads what came since it last did.
func (s *Scanner) scan() {
	text := s.text.String()
	if len(text) == s.seen {
		return
	}
	// Blanks added at the end change no reading: only where the value of
	// a label that has none yet would start.
	s.tail = max(s.tail, s.seen)
	for s.tail < len(text) && (text[s.tail] == ' ' || text[s.tail] == '\t') {
		s.tail++
	}
	if s.tail == len(text) {
		return
	}
	if i := strings.LastIndexByte(text[s.seen:], '\n'); i >= 0 {
		s.nl = s.seen + i + 1
	}
	s.seen = len(text)
	s.reasoning(text)
	if s.inside != "" || s.final {
		return
	}
	body := text[s.vis:]
	s.lines.text, s.sp.body = body, body
	s.advance(body)
	if !s.final {
		s.cut = s.guess(body)
	}
}

// reasoning follows the reasoning tags of text from where it stopped: a
// block that closes starts the labels anew after it. A '<' whose tag may
// not have come whole is read again next time.
func (s *Scanner) reasoning(text string) {
	for s.tagAt < len(text) {
		j := strings.IndexByte(text[s.tagAt:], '<')
		if j < 0 {
			s.tagAt = len(text)
			return
		}
		i := s.tagAt + j
		if len(text)-i < maxReasoningTag && strings.IndexByte(text[i+1:], '>') < 0 {
			s.tagAt = i
			return
		}
		n, role, acts := readTag(text[i:], &s.inside)
		if n == 0 {
			s.tagAt = i + 1
			continue
		}
		if acts && role != opens {
			s.restart(i + n)
		}
		s.tagAt = i + n
	}
}

// advance reads for good the lines of body whose reading is sure: whole
// lines, and the start of the last line once more text cannot change it,
// and the labels inside it as they come.
func (s *Scanner) advance(body string) {
	l := &s.lines
	for !s.final {
		if s.inLine {
			if !s.growLine(body) {
				return
			}
			continue
		}
		if s.putOff(body) {
			return
		}
		before := *l
		m, ok := l.lineStart()
		if l.need > len(body) {
			// The last line's start, or the line below a label alone
			// on its line, may yet read otherwise.
			s.reread += len(body) - l.line
			line := l.line
			*l = before
			l.pos = line
			s.unsureAt, s.unsureLen = line, len(body)-line
			return
		}
		partial := l.pos > len(body)
		if !ok {
			if partial {
				s.inLine, s.labelled, s.lineAt, s.held = true, false, len(body), false
			}
			return
		}
		s.take(body, m)
		s.insideLine(body)
		if partial {
			s.inLine, s.labelled, s.lineAt = true, true, len(body)
			return
		}
	}
}

// growLine reads on the last line, whose start was read for good, as far
// as body goes: the labels inside it, and its end. It reports whether the
// line has ended.
func (s *Scanner) growLine(body string) bool {
	l := &s.lines
	end := len(body)
	nl := strings.IndexByte(body[s.lineAt:], '\n')
	if nl >= 0 {
		end = s.lineAt + nl
	}
	s.lineAt = len(body)
	if s.labelled {
		l.colons.grow(l.lineEnd)
		l.lineEnd, l.open = end, true
		s.insideLine(body)
	}
	if nl < 0 {
		l.pos = len(body) + 1
		return false
	}
	l.pos, s.inLine = end+1, false
	return true
}

// insideLine reads the labels inside the open line, up to the first whose
// value has not begun at the end of body: that one may yet start later,
// and is read again next time.
func (s *Scanner) insideLine(body string) {
	l := &s.lines
	var buf [1]mark
	s.held = false
	for !s.final && l.open {
		before := *l
		marks := l.inline(buf[:0], 1)
		if len(marks) == 0 {
			return
		}
		m := marks[0]
		if m.value == len(body) {
			*l, s.held = before, true
			return
		}
		s.take(body, m)
	}
}

// take follows m, a label read for good, and settles the answer when it
// is known for good.
func (s *Scanner) take(body string, m mark) {
	if s.sp.take(m) {
		s.e.see(m)
	}
	switch {
	case s.e.state == followed:
		s.cut, s.final = s.vis+s.e.at(body, len(body)), true
	case s.sp.madeUp:
		s.cut, s.final = s.answer(body, &s.sp, &s.e), true
	}
}

// guess returns the answer for body while it is not known for good: the
// labels read for good, and those after them read again.
func (s *Scanner) guess(body string) int {
	if s.inLine && !s.held || !s.inLine && s.putOff(body) {
		return -1
	}
	t, sp, e := s.lines, s.sp, s.e
	if s.inLine {
		// A label inside the line whose value has not begun.
		var buf [1]mark
		for _, m := range t.inline(buf[:0], 1) {
			if sp.take(m) {
				e.see(m)
			}
		}
	} else {
		s.reread += len(body) - t.pos
		var buf [maxLineMarks + 1]mark
		for !sp.madeUp {
			marks, ok := t.next(buf[:0])
			if !ok {
				break
			}
			for _, m := range marks {
				if sp.take(m) {
					e.see(m)
				} else if sp.madeUp {
					break
				}
			}
		}
	}
	return s.answer(body, &sp, &e)
}

// putOff reports whether the lines after those read for good, whose
// start was not sure when last read, are not to be read again yet: they
// are longer than maxUnsure, have grown by less than half since, and have
// not ended.
func (s *Scanner) putOff(body string) bool {
	l := &s.lines
	n := len(body) - l.pos
	return l.pos == s.unsureAt && n > maxUnsure && n < s.unsureLen+s.unsureLen/2 && s.nl-s.vis <= l.pos+s.unsureLen
}

// answer returns where to cut, in the text's offsets, given what the
// labels of body come to, or -1, as ActionEnd does.
func (s *Scanner) answer(body string, sp *span, e *actionEnd) int {
	end := len(body)
	if sp.madeUp {
		end = sp.end
	}
	if c := e.at(body, end); c >= 0 {
		return s.vis + c
	}
	if !sp.madeUp {
		return -1
	}
	if obs := s.vis + sp.end; obs != s.obsAt {
		s.obsAt, s.obsCut = obs, s.p.actionBefore(body[:sp.end])
	}
	if s.obsCut {
		return s.obsAt
	}
	return -1
}
