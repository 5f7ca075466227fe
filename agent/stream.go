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
// otherwise send the rest of a made-up conversation). The parser's
// scanner finds the action as the reply streams, reading each piece
// about once; text inside a reasoning block never stops it.
//
// What it passes on never holds what it cuts: the text that may yet
// become the place of the cut (the line still streaming, up to holdBack
// bytes of it) is held back until it is known not to be, or up to the cut.
type streamCutter struct {
	scan     *parser.Scanner
	onToken  func(string)
	cut      int  // length of the reply to keep once cut, or -1
	shown    int  // the bytes of the reply passed on
	streamed bool // the model streamed its reply
}

func newStreamCutter(p *parser.Parser, onToken func(string)) *streamCutter {
	return &streamCutter{scan: p.NewScanner(), onToken: onToken, cut: -1}
}

// write is the streaming function of the reply's text (model.Request's
// OnText).
func (s *streamCutter) write(_ context.Context, chunk []byte) error {
	if len(chunk) == 0 || s.cut >= 0 {
		return nil
	}
	s.streamed = true
	s.scan.Write(chunk)
	text := s.scan.Text()
	if i := s.scan.Cut(); i >= 0 {
		s.cut = i
		s.show(text, len(strings.TrimSuffix(text[:i], "\n")))
		return errStreamCut
	}
	// A line break waits for what follows it: the line it ends may be
	// the last before the cut, and what the agent writes next ends it.
	end := max(s.scan.Settled(), len(text)-holdBack)
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
func (s *streamCutter) finish(end int) { s.show(s.scan.Text(), min(end, len(s.scan.Text()))) }

// text returns the reply, cut before a made-up observation.
func (s *streamCutter) text() string {
	t := s.scan.Text()
	if s.cut >= 0 {
		return t[:s.cut]
	}
	return t
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
