package agent

import (
	"strings"

	"github.com/react-agent/react-agent/parser"
)

// cutScan answers, as a streamed reply grows, what completeAction would
// answer for the reply so far, reading each new piece about once instead
// of the whole reply again: the cost of a stream is linear in its length,
// not in its length times its pieces.
//
// It keeps two things. The reasoning blocks are followed tag by tag (each
// '<' is read once). The labels of the text after the last block are read
// a line at a time, once the line is complete: the parser's label scan
// reads lines in order and carries little from one line to the next, so
// the lines read so far come down to one of a few states, each written as
// a short text (a "canonical" prefix) that leaves the scan as those lines
// do. The state is read with parser.StepEnd and parser.ObservationAt on
// that prefix, the new lines and a sentinel line after them; the last
// line, which may still grow, is read with the prefix each time.
//
// One exception keeps the cost linear for a single line of megabytes: once
// the lines not yet summed up pass longTail bytes, they are read again
// only when they have grown by a quarter (and whenever a line ends). A cut
// inside such a line may then come a little later than completeAction
// would have made it.
type cutScan struct {
	p *parser.Parser

	// Reasoning blocks, in the reply's offsets.
	visible int    // where the text after the last reasoning block starts
	inside  string // the tag that opened a block still open, or ""
	tagPos  int    // where looking for reasoning tags goes on

	// The labels of reply[visible:], in the reply's offsets.
	settled  int        // the start of the first line not summed up in state
	state    labelState // what the lines before settled leave the scan in
	stuck    bool       // a probe answered what no state explains: no more lines are summed up
	done     bool       // the answer is known for good: cut
	cut      int        // with done: where to cut, or -1 for nowhere
	lastTail int        // the bytes after settled when they were last read
	lastLen  int        // the length of the reply then
	obsAt    int        // the observation Parse last read the reply before
	obsCut   bool       // and whether the reply before it holds an action
	read     int        // the bytes given to the parser so far, to show the cost is linear
	pending  int        // the end of the lines last found to end in a label waiting for its value

	// The lines of the reply, in its offsets.
	nlSeen int // where looking for line ends goes on
	nlEnd  int // the end of the last complete line, just past its '\n'
}

// labelState is what the complete lines of a reply leave the parser's
// label scan in, as far as a cut depends on it.
type labelState int

const (
	blankState        labelState = iota // white space only
	echoedState                         // an observation echoed first, being skipped
	textState                           // text, labels maybe, but no action or answer yet
	actionState                         // an action whose end is not known yet
	actionInputState                    // an action and its input, whose end is not known yet
	answerState                         // a final answer came first
	answerActionState                   // a final answer came first, and an action last
)

// canonical is the short text that leaves the label scan in each state.
var canonical = [...]string{
	blankState:        "",
	echoedState:       "Observation: o\n",
	textState:         "x\n",
	actionState:       "Action: a\n",
	actionInputState:  "Action: a\nAction Input: i\n",
	answerState:       "Final Answer: f\n",
	answerActionState: "Final Answer: f\nAction: a\n",
}

// Limits of the scan.
const (
	// maxTag is longer than any reasoning tag, with room to spare.
	maxTag = 32
	// longTail is how long the lines not summed up may grow before they
	// are read again only now and then (see cutScan).
	longTail = 4 << 10
)

func newCutScan(p *parser.Parser) *cutScan {
	return &cutScan{p: p, obsAt: -1, cut: -1}
}

// at returns completeAction(c.p, text) for text, the reply so far: text
// only ever grows between calls.
func (c *cutScan) at(text string) int {
	if c.reasoning(text) {
		return -1
	}
	if c.settle(text); c.done {
		return c.cut
	}
	tail := len(text) - c.settled
	if tail > longTail && tail < c.lastTail+c.lastTail/4 {
		return -1
	}
	c.lastTail, c.lastLen = tail, len(text)
	prefix := canonical[c.state]
	x := prefix + text[c.settled:]
	if end := c.stepEnd(x); end >= 0 {
		return c.settled + end - len(prefix)
	}
	obs := c.observationAt(x)
	if obs < 0 {
		return -1
	}
	return c.afterObservation(text, c.settled+obs-len(prefix))
}

// safe returns how much of text, the reply so far, may be shown: what no
// later cut can take back. That is all of it inside a reasoning block or
// once no cut can come; else the lines summed up, and of the rest all but
// the last hold bytes of what was last read.
func (c *cutScan) safe(text string, hold int) int {
	if c.inside != "" || (c.done && c.cut < 0) {
		return len(text)
	}
	// A line waiting for its value is no cut point: the next one may be.
	partial := max(c.settled, c.lineEnd(text))
	read := len(text) // every piece that may cut is read, while the tail is short
	if len(text)-c.settled > longTail {
		read = c.lastLen
	}
	return max(partial, read-hold)
}

// afterObservation returns where to cut text at the observation the model
// made up at obs, when what comes before it is an action (in a form
// without labels, such as JSON), or -1, as completeAction does. Parse's
// verdict is kept for the next call with the same observation.
func (c *cutScan) afterObservation(text string, obs int) int {
	if obs != c.obsAt {
		c.read += obs - c.visible
		st, err := c.p.Parse(text[c.visible:obs])
		c.obsAt, c.obsCut = obs, err == nil && st.Kind == parser.KindAction
	}
	if c.obsCut {
		return obs
	}
	return -1
}

// reasoning follows the reasoning blocks of text from where it stopped,
// and reports whether text ends inside one. A tag whose end may not have
// arrived yet is read again next time. Each tag is read with
// parser.ReasoningEnd alone, or after the tag that opened its block, so
// that the tags are those of SplitReasoning.
func (c *cutScan) reasoning(text string) (open bool) {
	for c.tagPos < len(text) {
		j := strings.IndexByte(text[c.tagPos:], '<')
		if j < 0 {
			c.tagPos = len(text)
			break
		}
		i := c.tagPos + j
		w := text[i:min(len(text), i+maxTag)]
		if k := strings.IndexByte(w[1:], '<'); k >= 0 {
			w = w[:k+1]
		}
		if k := strings.IndexByte(w, '>'); k >= 0 {
			w = w[:k+1]
		} else if i+len(w) == len(text) && len(w) < maxTag {
			c.tagPos = i // the tag may go on in the next piece
			break
		}
		if c.inside != "" {
			if _, open := c.reasoningEnd(c.inside + w); !open {
				c.inside = ""
				c.see(i + len(w))
			}
			c.tagPos = i + 1
			continue
		}
		switch end, open := c.reasoningEnd(w); {
		case open:
			c.inside = w
		case end > 0:
			c.see(i + end)
		}
		c.tagPos = i + 1
	}
	return c.inside != ""
}

// see starts reading the labels again after a reasoning tag that ends at
// visible.
func (c *cutScan) see(visible int) {
	*c = cutScan{p: c.p, visible: visible, inside: c.inside, tagPos: c.tagPos,
		settled: visible, obsAt: -1, cut: -1, read: c.read, nlSeen: c.nlSeen, nlEnd: c.nlEnd}
}

// settle sums up the complete lines after c.settled into c.state, all at
// once, until the answer is known. A last line that is a label alone on
// its line waits for the next, which it takes as its value unless that is
// a label line: it is summed up with it.
func (c *cutScan) settle(text string) {
	for !c.done && !c.stuck {
		end := c.lineEnd(text)
		if end <= c.settled || end == c.pending {
			return
		}
		prefix := canonical[c.state]
		unit := text[c.settled:end]
		if c.takesNextLine(prefix + unit) {
			// The last line waits; the one before it does not take it,
			// since a label alone on its line is a label line.
			c.pending = end
			unit = unit[:strings.LastIndexByte(unit[:len(unit)-1], '\n')+1]
			if unit == "" {
				return
			}
		}
		x := prefix + unit
		if end := c.stepEnd(x); end >= 0 {
			c.done, c.cut = true, c.settled+end-len(prefix)
			return
		}
		if obs := c.observationAt(x); obs >= 0 {
			c.done, c.cut = true, c.afterObservation(text, c.settled+obs-len(prefix))
			return
		}
		state, ok := c.stateOf(x)
		if !ok {
			c.stuck = true
			return
		}
		c.state, c.settled, c.lastTail = state, c.settled+len(unit), 0
	}
}

// lineEnd returns where the last complete line of text ends, just past
// its line break, or 0, looking only at what came since it last looked.
func (c *cutScan) lineEnd(text string) int {
	if i := strings.LastIndexByte(text[c.nlSeen:], '\n'); i >= 0 {
		c.nlEnd = c.nlSeen + i + 1
	}
	c.nlSeen = len(text)
	return c.nlEnd
}

// Sentinel lines that the probes of the scan state add after a text.
const (
	actionLine  = "Action: a\n"
	inputLine   = "Action Input: i\n"
	thoughtLine = "Thought: t\n"
	obsLine     = "Observation: o\n"
)

// stateOf reads the state the scan of x is left in, x being complete
// lines that hold no cut: it has no complete action, and no observation
// that ends it. It reports false when the parser answers what no state
// explains.
func (c *cutScan) stateOf(x string) (labelState, bool) {
	switch c.stepEnd(x + actionLine + thoughtLine) {
	case -1: // the action added is not the first: a final answer came first
		// An "Input" label alone would take the next line as its value
		// only after an action: then an observation in that line counts.
		probe := x + "Input\nz " + obsLine
		if c.observationAt(probe) == len(x)+len("Input\nz ") {
			return answerActionState, true
		}
		return answerState, true
	case len(x): // the action added ends the action before
		if c.stepEnd(x+inputLine+thoughtLine) == len(x) {
			return actionInputState, true
		}
		return actionState, true
	case len(x) + len(actionLine): // the action added is the first
		switch {
		case c.observationAt(x+obsLine) == len(x):
			return textState, true
		case c.observationAt(x+"y\n"+obsLine) == len(x)+2:
			return blankState, true
		}
		return echoedState, true
	}
	return 0, false
}

// takesNextLine reports whether the last line of x, complete lines, is a
// label alone on its line that takes the next line as its value when that
// is no label line: then an observation written in that line counts.
func (c *cutScan) takesNextLine(x string) bool {
	return c.observationAt(x+"x "+obsLine) == len(x)+len("x ")
}

// stepEnd is parser.StepEnd, counted.
func (c *cutScan) stepEnd(x string) int {
	c.read += len(x)
	return parser.StepEnd(x)
}

// observationAt is parser.ObservationAt, counted.
func (c *cutScan) observationAt(x string) int {
	c.read += len(x)
	return parser.ObservationAt(x)
}

// reasoningEnd is parser.ReasoningEnd, counted.
func (c *cutScan) reasoningEnd(x string) (int, bool) {
	c.read += len(x)
	return parser.ReasoningEnd(x)
}
