package agent

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/parser/parsertest"
)

func TestStreamCutter(t *testing.T) {
	var passed string
	c := newStreamCutter(parser.New(nil), func(s string) { passed += s })
	text := "Thought: t\nAction: add\nAction Input: {}\nObserv"
	var err error
	for _, ch := range model.Chunks(text + "ation: 3\nThought: more") {
		if err = c.write(context.Background(), []byte(ch)); err != nil {
			break
		}
	}
	if !errors.Is(err, errStreamCut) {
		t.Fatalf("the cutter did not stop the stream: %v", err)
	}
	if got, want := c.text(), "Thought: t\nAction: add\nAction Input: {}\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if want := "Thought: t\nAction: add\nAction Input: {}"; passed != want {
		t.Errorf("passed on %q, want %q: the reply up to the cut, less the line break before it", passed, want)
	}
}

// streamedReplies returns replies to stream: those of the parser's test
// data, and replies made of their lines at random, with line breaks of
// both kinds and none.
func streamedReplies(t testing.TB) []string {
	replies := parsertest.Texts(t, "../testdata/parser/replies.jsonl", "../testdata/parser/prose.jsonl")
	var lines []string
	for _, r := range replies {
		lines = append(lines, strings.Split(r, "\n")...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seps := []string{"\n", "\n", "\n", "\r\n", " ", "\n\n", ""}
	for range 2000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(lines[rng.IntN(len(lines))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		replies = append(replies, b.String())
	}
	return replies
}

// TestTheStreamShowsNothingItCuts streams replies in pieces of several
// sizes through the cutter: what it passes on is always the start of the
// reply it keeps, and all of it once the stream ends.
func TestTheStreamShowsNothingItCuts(t *testing.T) {
	p := parser.New(registry(t))
	rng := rand.New(rand.NewPCG(5, 6))
	for _, text := range streamedReplies(t) {
		for _, n := range []int{1, 2, 3, 7, 1 + rng.IntN(16)} {
			chunks := pieces(text, n)
			var shown strings.Builder
			c := newStreamCutter(p, func(s string) { shown.WriteString(s) })
			for _, chunk := range chunks {
				if err := c.write(context.Background(), []byte(chunk)); errors.Is(err, errStreamCut) {
					break
				}
			}
			kept := c.text()
			if c.cut < 0 {
				if i := p.ActionEnd(kept); i >= 0 {
					kept = kept[:i]
				}
				c.finish(len(kept))
			} else {
				kept = strings.TrimSuffix(kept, "\n") // the line break before a cut is not shown
			}
			if shown.String() != kept {
				t.Fatalf("streaming %q in pieces %q: shown %q, kept %q", text, chunks, shown.String(), kept)
			}
		}
	}
}

// TestTheCutterCutsAsSoonAsItIsSure streams replies in given pieces and
// checks at which piece the cutter stops the stream and what it keeps:
// never at a word that only begins as a label, and as soon as a label
// is sure, in a line of any length.
func TestTheCutterCutsAsSoonAsItIsSure(t *testing.T) {
	act := "Thought: I will add.\nAction: add\nAction Input: {\"a\": 1, \"b\": 2}"
	long := strings.Repeat("a: ", 3000)
	tests := []struct {
		name   string
		pieces []string
		at     int    // the piece that makes the cut
		kept   string // the reply the cutter keeps
	}{
		{"a word that begins as an observation is the input below a label alone",
			[]string{"Thought: I will look.\nAction: web_search\nAction Input\n", "Observation", "s from the ISS\n", "Observation: none\n"},
			3, "Thought: I will look.\nAction: web_search\nAction Input\nObservations from the ISS\n"},
		{"a made-up observation in a long line, at its colon",
			append(append(pieces("Thought: t\nAction: add\nAction Input: "+long, 2), " Observation", ":", " 3"), pieces(long+"\n", 2)...),
			len(pieces("Thought: t\nAction: add\nAction Input: "+long, 2)) + 1, "Thought: t\nAction: add\nAction Input: " + long + " "},
		{"a thought after the action, as its value begins",
			[]string{act + "\n", "Thought:", strings.Repeat(" ", 20), "I", " know", "\n", "Final Answer: 3"},
			3, act + "\n"},
	}
	p := parser.New(registry(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newStreamCutter(p, nil)
			at := -1
			for i, piece := range tt.pieces {
				if err := c.write(context.Background(), []byte(piece)); errors.Is(err, errStreamCut) {
					at = i
					break
				}
			}
			if at != tt.at || c.text() != tt.kept {
				t.Errorf("cut at piece %d, keeping %.80q; want piece %d, keeping %.80q", at, c.text(), tt.at, tt.kept)
			}
		})
	}
}
