package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
)

// replyLines are lines that replies are made of in the tests of the
// stream's scan: labels in the spellings the parser reads, alone on their
// lines and inline, observations made up and echoed, reasoning tags
// whole and cut, calls in other forms, and plain text.
var replyLines = []string{
	"Thought: I should add.", "Action: add", `Action Input: {"a": 1, "b": 2}`, "Observation: 3", "Final Answer: 3",
	"Action", "Action Input", "Input", "Input: x", "Thought", "Observation", "User", "Users can", "Human: hi", "PAUSE",
	"**Observation**： 3", "思考：好", "行动：add", "观察：3", "Action 1: add[1, 2]", "Observation 1: 3",
	"Thought: x Action: add Action Input: {}", "add[1, 2] Observation: 3", "search Observation: 5",
	`{"action": "add", "action_input": {}}`, "<think>", "</think>", "<think>Action: add</think>", "</thinking>",
	"Final Answer", "Answer: 4", "Question: q", "[INST] next", "   ", "", "a", "Action = add", "Thought - ok",
	"Action: add\r", "Finish[42]", "Tool: calc", "Tool Input: {}", "```json", "```", "- Action: add", "1. Thought: x",
	"## Action", "Action Input (JSON): {}", "Observation: 3 <think>", "foo</think>Action: add", "x Observation: o",
	"thought: lower", "action: add", "observation: 1", "<reasoning>", "</reasoning>", "<THINK>", "<thin", "k>",
	"Action Input: web_search, Input: zig", "Thought: 12:30 is late: yes", "Tool Output: 9", "Action Result: 1",
	"[ACTION] add", "[/INST] Thought: x", "💭 Thought: emoji", "Action\\_Input: {}", "Thought: Thought: again",
}

// replyCorpus returns replies to stream: those of the parser's test data
// and fuzz corpus, and replies made of replyLines at random.
func replyCorpus(t testing.TB) []string {
	var corpus []string
	for _, f := range []string{"../testdata/parser/replies.jsonl", "../testdata/parser/prose.jsonl"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			var v struct{ Text string }
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				corpus = append(corpus, v.Text)
			}
		}
	}
	files, _ := filepath.Glob("../fuzz/testdata/fuzz/*/*")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for line := range strings.Lines(string(data)) {
			if q, ok := strings.CutPrefix(strings.TrimSpace(line), "string("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					corpus = append(corpus, s)
				}
			}
		}
	}
	corpus = append(corpus,
		// An "Input" label alone after an action takes the next line as its
		// value, after a final answer too; a call in JSON first makes the
		// observation in that line the cut.
		`{"action": "add", "action_input": {}}`+"\nFinal Answer: 3\nAction: x\nInput\nfoo Observation: 3\nmore",
		`{"action": "add", "action_input": {}}`+"\nFinal Answer: 3\nThought: x\nInput\nfoo Observation: 3\nmore",
		// A closing tag with none open makes all before it reasoning.
		"I think</think>Action: add\nThought: x\n", "<think>a</think>b</think>Action: add\nObservation: 3",
		"<think>Action: add\nObservation: 1</think>\nAction: add\nAction Input: {}\nObservation: 3",
	)
	rng := rand.New(rand.NewPCG(1, 2))
	seps := []string{"\n", "\n", "\n", "\r\n", " ", "\n\n", ""}
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(replyLines[rng.IntN(len(replyLines))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		corpus = append(corpus, b.String())
	}
	return corpus
}

// chunkings cut text into pieces in several ways.
func chunkings(text string, rng *rand.Rand) [][]string {
	var out [][]string
	for _, n := range []int{1, 2, 3, 7} {
		out = append(out, pieces(text, n))
	}
	out = append(out, model.Chunks(text))
	var random []string
	for rest := text; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(9))
		random, rest = append(random, rest[:n]), rest[n:]
	}
	return append(out, random)
}

// TestScanAnswersAsCompleteActionDoes streams every reply of the corpus,
// in several chunkings, and checks that after every piece the stream's
// scan, which reads each piece about once, gives the answer of
// completeAction, which reads the whole reply so far.
func TestScanAnswersAsCompleteActionDoes(t *testing.T) {
	p := parser.New(registry(t))
	rng := rand.New(rand.NewPCG(3, 4))
	checked, stuck := 0, 0
	for _, text := range replyCorpus(t) {
		for _, chunks := range chunkings(text, rng) {
			s := newCutScan(p)
			end := 0
			for _, c := range chunks {
				end += len(c)
				got, want := s.at(text[:end]), completeAction(p, text[:end])
				checked++
				if got != want {
					t.Fatalf("after %q of %q (in pieces of %q):\nthe scan says %d, completeAction %d",
						text[:end], text, chunks, got, want)
				}
			}
			if s.stuck {
				stuck++
				t.Logf("no state explains %q", text)
			}
		}
	}
	t.Logf("%d prefixes checked; %d replies read whole for want of a state", checked, stuck)
}

// TestTheStreamShowsNothingItCuts streams every reply of the corpus, in
// several chunkings, through the cutter: what it passes on is always the
// start of the reply it keeps, and all of it once the stream ends.
func TestTheStreamShowsNothingItCuts(t *testing.T) {
	p := parser.New(registry(t))
	rng := rand.New(rand.NewPCG(5, 6))
	for _, text := range replyCorpus(t) {
		for _, chunks := range chunkings(text, rng) {
			var shown strings.Builder
			c := newStreamCutter(p, func(s string) { shown.WriteString(s) })
			for _, chunk := range chunks {
				if err := c.write(context.Background(), []byte(chunk)); errors.Is(err, errStreamCut) {
					break
				}
			}
			kept := c.text()
			if c.cut < 0 {
				if i := completeAction(p, kept); i >= 0 {
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

// TestLongLinesAreReadNowAndThen streams a line longer than longTail, in
// small pieces each with a colon: the scan reads it again only once it
// has grown by a quarter, and still finds a made-up observation at its
// end, a little later than completeAction.
func TestLongLinesAreReadNowAndThen(t *testing.T) {
	p := parser.New(registry(t))
	head := "Thought: t\nAction: add\nAction Input: " + strings.Repeat("a:", 8<<10)
	text := head + " Observation: 3" + strings.Repeat("b:", 4<<10)
	s := newCutScan(p)
	got := -1
	for end := 2; end <= len(text) && got < 0; end += 2 {
		got = s.at(text[:end])
	}
	if want := completeAction(p, text); got != want || want != len(head)+1 {
		t.Errorf("the scan cuts at %d, completeAction at %d; want %d", got, want, len(head)+1)
	}
}

// FuzzScan streams a reply in pieces of the sizes the fuzzer gives and
// checks the stream's scan against completeAction after every piece.
func FuzzScan(f *testing.F) {
	for i, text := range replyCorpus(f) {
		if i%7 == 0 {
			f.Add(text, uint64(i))
		}
	}
	p := parser.New(nil)
	f.Fuzz(func(t *testing.T, text string, sizes uint64) {
		s := newCutScan(p)
		for end := 0; end < len(text); {
			end = min(len(text), end+1+int(sizes%7))
			sizes = sizes/7 + sizes%7*1e15
			got, want := s.at(text[:end]), completeAction(p, text[:end])
			if got != want {
				t.Fatalf("after %q of %q: the scan says %d, completeAction %d", text[:end], text, got, want)
			}
			if got >= 0 {
				return
			}
		}
	})
}

// TestTheScanReadsEachPieceAboutOnce streams long replies in small pieces,
// the among them, and counts the bytes the scan gives the parser:
// a few times the reply, where reading the whole reply again at each
// piece would be about its square.
func TestTheScanReadsEachPieceAboutOnce(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		pieces int
	}{
		{"40,000 pieces of a and a line break", strings.Repeat("a\n", 40000), 2},
		{"4 MiB of short lines in pieces of 4 KiB", strings.Repeat("a\n", 2<<20), 4 << 10},
		{"40,000 lines of thought", strings.Repeat("Thought: a\n", 40000), 11},
		{"40,000 lines of reasoning", "<think>" + strings.Repeat("a\n", 40000), 2},
		{"an action, then 40,000 lines", "Thought: t\nAction: add\n" + strings.Repeat("a\n", 40000), 2},
		{"a final answer, then 40,000 lines", "Final Answer: 3\n" + strings.Repeat("a\n", 40000), 2},
		{"reasoning tags, closed and opened, 20,000 times", strings.Repeat("</think>a\n<think>b\n", 20000), 3},
		{"a line of 1 MiB with a colon in every piece", "Thought: " + strings.Repeat("a:", 1<<19), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newStreamCutter(parser.New(nil), nil)
			for _, piece := range pieces(tt.text, tt.pieces) {
				if err := c.write(context.Background(), []byte(piece)); err != nil {
					t.Fatal(err)
				}
			}
			// Each piece costs a few looks, each with a few lines added.
			n := len(pieces(tt.text, tt.pieces))
			if most := 8*len(tt.text) + 256*n; c.scan.read > most {
				t.Errorf("the scan gave the parser %d bytes for a reply of %d in %d pieces, more than %d",
					c.scan.read, len(tt.text), n, most)
			}
			t.Logf("%d bytes given to the parser for a reply of %d in %d pieces", c.scan.read, len(tt.text), n)
		})
	}
}
