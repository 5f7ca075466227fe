package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/react-agent/react-agent/parser"
)

// errStreamCut is what the streaming callback returns to make the client
// stop generating, once the reply holds a complete action: one followed by
// an observation the model made up, or by the start of another step.
var errStreamCut = errors.New("agent: generation cut after a complete action")

// streamCutter collects a streamed reply, passes each chunk on, and stops
// the generation as soon as the reply holds a complete action, so that
// nothing past it is read (servers that ignore stop sequences would
// otherwise send the rest of a made-up conversation). Text inside a
// reasoning block never stops it. Looking for the action costs time in
// proportion to the reply, not to the reply times its pieces (see
// cutScan).
type streamCutter struct {
	b        strings.Builder
	scan     *cutScan
	onToken  func(string)
	cut      int  // length of the reply to keep once cut, or -1
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
	if s.onToken != nil {
		s.onToken(string(chunk))
	}
	text := s.b.String()
	// A label that ends an action has a colon (or a full-width one, or a
	// bracket) or stands alone on a line: look only when one came.
	if tail := text[from:]; !strings.ContainsAny(tail, ":：]\n") {
		return nil
	}
	if i := s.scan.at(text); i >= 0 {
		s.cut = i
		return errStreamCut
	}
	return nil
}

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
