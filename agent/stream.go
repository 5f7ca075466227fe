package agent

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/react-agent/react-agent/parser"
)

// errStreamCut is what the streaming callback returns to make the client
// stop generating, once the reply holds a complete action: one followed by
// an observation the model made up, or by the start of another step.
var errStreamCut = errors.New("agent: generation cut after a complete action")

// holdBack is how many bytes of a line still streaming are held back
// from the screen, at most: enough for a label and its colon, which may
// make the line the place where the reply is cut.
const holdBack = 256

// streamCutter collects a streamed reply, passes it on as it comes, and
// stops the generation as soon as the reply holds a complete action, so
// that nothing past it is read (servers that ignore stop sequences would
// otherwise send the rest of a made-up conversation). Text inside a
// reasoning block never stops it. Looking for the action costs time in
// proportion to the reply, not to the reply times its pieces (see
// cutScan).
//
// What it passes on never holds what it cuts: the text that may yet
// become the place of the cut (the line still streaming, up to holdBack
// bytes of it) is held back until it is known not to be, or up to the cut.
type streamCutter struct {
	b        strings.Builder
	scan     *cutScan
	onToken  func(string)
	cut      int  // length of the reply to keep once cut, or -1
	shown    int  // the bytes of the reply passed on
	streamed bool // the model streamed its reply
}

func newStreamCutter(p *parser.Parser, onToken func(string)) *streamCutter {
	return &streamCutter{scan: newCutScan(p), onToken: onToken, cut: -1}
}

// write is the langchaingo streaming function.
func (s *streamCutter) write(_ context.Context, chunk []byte) error {
	if len(chunk) == 0 || s.cut >= 0 {
		return nil
	}
	s.streamed = true
	from := max(0, s.b.Len()-16) // a label may straddle two chunks
	s.b.Write(chunk)
	text := s.b.String()
	// A label that ends an action has a colon (or a full-width one, or a
	// bracket) or stands alone on a line: look only when one came.
	if tail := text[from:]; strings.ContainsAny(tail, ":：]\n") {
		if i := s.scan.at(text); i >= 0 {
			s.cut = i
			s.show(text, len(strings.TrimSuffix(text[:i], "\n")))
			return errStreamCut
		}
	} else {
		s.scan.reasoning(text) // to know what is inside a reasoning block
	}
	// A line break waits for what follows it: the line it ends may be
	// the last before the cut, and what the agent writes next ends it.
	end := s.scan.safe(text, holdBack)
	if end > 0 && text[end-1] == '\n' {
		end--
	}
	s.show(text, end)
	return nil
}

// show passes on the reply up to end, from where it stopped, on a
// character boundary.
func (s *streamCutter) show(text string, end int) {
	for end < len(text) && end > s.shown && !utf8.RuneStart(text[end]) {
		end--
	}
	if s.onToken == nil || end <= s.shown {
		return
	}
	piece := text[s.shown:end]
	s.shown = end
	s.onToken(piece)
}

// finish passes on what was held back of a reply whose stream ended, up to
// end, the length of the reply as kept.
func (s *streamCutter) finish(end int) { s.show(s.b.String(), min(end, s.b.Len())) }

// text returns the reply, cut before a made-up observation.
func (s *streamCutter) text() string {
	t := s.b.String()
	if s.cut >= 0 {
		return t[:s.cut]
	}
	return t
}

// completeAction returns where the first action of a reply is complete,
// outside any reasoning block, or -1: where a label that starts something
// else follows the action and its input (see parser.StepEnd), or, for a
// call in another form (a JSON object), where a made-up observation
// follows it.
func completeAction(p *parser.Parser, text string) int {
	visible, open := parser.ReasoningEnd(text)
	if open {
		return -1
	}
	rest := text[visible:]
	if end := parser.StepEnd(rest); end >= 0 {
		return visible + end
	}
	obs := parser.ObservationAt(rest)
	if obs < 0 {
		return -1
	}
	if st, err := p.Parse(rest[:obs]); err != nil || st.Kind != parser.KindAction {
		return -1
	}
	return visible + obs
}

// thinking collects the reasoning a server sends apart from the reply
// (Ollama's "thinking", "reasoning_content"), and shows it as it arrives,
// in the tags a reasoning model writes it in, as the reply would hold it.
type thinking struct {
	text  strings.Builder
	show  func(string) // nil when nothing is shown
	shown bool         // a <think> tag was shown and not closed
}

// write is the streaming function of reasoning (model.Request's
// OnReasoning).
func (t *thinking) write(_ context.Context, reasoning []byte) error {
	t.text.Write(reasoning)
	if t.show != nil && len(reasoning) > 0 {
		if !t.shown {
			t.shown = true
			t.show("<think>")
		}
		t.show(string(reasoning))
	}
	return nil
}

// end closes the reasoning shown, before the reply or when the call ends.
func (t *thinking) end() {
	if t.shown {
		t.shown = false
		t.show("</think>\n")
	}
}
