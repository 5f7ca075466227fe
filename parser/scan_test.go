package parser

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser/parsertest"
)

// scanTools are the tools of the scan's tests: a call of one of them in
// JSON before a made-up observation is an action.
var scanTools = toolsOf{"add": {"a", "b"}, "calculator": {"expression"}, "web_search": {"query"}, "search": {"query"}}

// replyLines are lines that replies are made of in the tests of the
// scan: labels in the spellings the parser reads, alone on their lines
// and inline, observations made up and echoed, reasoning tags whole and
// cut, calls in other forms, and plain text.
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
	"Observations show", "Action -", "Action =", "Action ==", "Observation (raw): 3", "Thought (a Observation: 3",
	"**Observation:**", "> Observation: 3", "Acción: add", "Observación: 3", "Beobachtung: 3", "관찰: 3",
	"Action Input: Action Input: {\"q\": \"a Observation: b\"}", "\tObservation:\t", "Observation\u00a0: 3",
}

// replyCorpus returns replies to stream: those of the parser's test data
// and fuzz corpus, and replies made of replyLines at random.
func replyCorpus(t testing.TB) []string {
	corpus := parsertest.Texts(t, "../testdata/parser/replies.jsonl", "../testdata/parser/prose.jsonl")
	files, _ := filepath.Glob("../fuzz/testdata/fuzz/*/*")
	more, _ := filepath.Glob("testdata/fuzz/FuzzScan/*")
	for _, f := range append(files, more...) {
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

// pieces returns text cut into pieces of n bytes.
func pieces(text string, n int) []string {
	var out []string
	for len(text) > n {
		out = append(out, text[:n])
		text = text[n:]
	}
	return append(out, text)
}

// chunkings cut text into pieces in several ways: of 1, 2, 3 and 7
// bytes, at random, and as a tokenizer would, a word and its space apart.
func chunkings(text string, rng *rand.Rand) [][]string {
	var out [][]string
	for _, n := range []int{1, 2, 3, 7} {
		out = append(out, pieces(text, n))
	}
	var random, words []string
	for rest := text; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(9))
		random, rest = append(random, rest[:n]), rest[n:]
	}
	for rest := text; len(rest) > 0; {
		n := strings.IndexAny(rest[1:], " \n:") + 1
		if n == 0 {
			n = len(rest)
		}
		words, rest = append(words, rest[:n]), rest[n:]
	}
	return append(out, random, words)
}

// TestTheScanCutsAsActionEndDoes streams every reply of the corpus, in
// several chunkings, and checks that after every piece the scan, which
// reads each piece about once, gives the answer of ActionEnd for a text
// that may go on, which reads the whole reply so far.
func TestTheScanCutsAsActionEndDoes(t *testing.T) {
	p := New(scanTools)
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for _, text := range replyCorpus(t) {
		for _, chunks := range chunkings(text, rng) {
			s := p.NewScanner()
			end := 0
			for _, c := range chunks {
				s.WriteString(c)
				end += len(c)
				got, want := s.Cut(), p.actionEnd(text[:end], true)
				checked++
				if got != want {
					t.Fatalf("after %q of %q (in pieces of %q):\nthe scan cuts at %d, ActionEnd at %d",
						text[:end], text, chunks, got, want)
				}
			}
		}
	}
	t.Logf("%d prefixes checked", checked)
}

// FuzzScan streams a reply in pieces of the sizes the fuzzer gives and
// checks, after every piece, that the stream's scan finds the cut that
// ActionEnd finds in the reply so far, as a text that may go on.
func FuzzScan(f *testing.F) {
	for i, text := range replyCorpus(f) {
		if i%7 == 0 {
			f.Add(text, uint64(i))
		}
	}
	p := New(scanTools)
	f.Fuzz(func(t *testing.T, text string, sizes uint64) {
		s := p.NewScanner()
		for end := 0; end < len(text); {
			n := 1 + int(sizes%7)
			sizes = sizes/7 + sizes%7*1e15
			s.WriteString(text[end:min(len(text), end+n)])
			end = min(len(text), end+n)
			if got, want := s.Cut(), p.actionEnd(text[:end], true); got != want {
				t.Fatalf("after %q of %q: the scan cuts at %d, ActionEnd at %d", text[:end], text, got, want)
			}
		}
	})
}

// TestTheScanCutsAsSoonAsItIsSure streams replies a byte at a time, so
// that every label is split across pieces in every way, and checks where
// the scan cuts (the reply it keeps) and after which byte it first does:
// a made-up observation as soon as its label is sure, a label after the
// action as soon as its value begins, and never a label that more text
// may yet make other words.
func TestTheScanCutsAsSoonAsItIsSure(t *testing.T) {
	act := "Thought: t\nAction: add\nAction Input: {}"
	tests := []struct {
		name  string
		reply string
		kept  string // the reply before the cut; "" for none
		sure  string // the reply when the cut is first made
	}{
		{"a made-up observation, at its colon", act + "\nObservation: 3", act + "\n", act + "\nObservation:"},
		{"a numbered observation, at its colon", act + "\nObservation 2: 3", act + "\n", act + "\nObservation 2:"},
		{"an observation in markdown", act + "\n**Observation:** 3", act + "\n", act + "\n**Observation:"},
		{"an observation quoted", act + "\n> Observation: 3", act + "\n", act + "\n> Observation:"},
		{"an observation in Chinese, at its full-width colon", "行动：add\n行动输入：{}\n观察：3", "行动：add\n行动输入：{}\n", "行动：add\n行动输入：{}\n观察："},
		{"an observation in Spanish", "Acción: add\nEntrada de acción: {}\nObservación: 3", "Acción: add\nEntrada de acción: {}\n", "Acción: add\nEntrada de acción: {}\nObservación:"},
		{"an observation on the action's line", "Action 1: add[1, 2] Observation 1: 3", "Action 1: add[1, 2] ", "Action 1: add[1, 2] Observation 1:"},
		{"a user turn's token", act + "\n[INST] next", act + "\n", act + "\n[INST]"},
		{"an observation after a call in JSON", `{"action": "add", "action_input": {}}` + "\nObservation: 3", `{"action": "add", "action_input": {}}` + "\n", `{"action": "add", "action_input": {}}` + "\nObservation:"},
		{"lines that end in CRLF", "Action: add\r\nAction Input: {}\r\nObservation: 3", "Action: add\r\nAction Input: {}\r\n", "Action: add\r\nAction Input: {}\r\nObservation:"},
		{"a thought after the action, once its value begins", act + "\nThought: ok", act + "\n", act + "\nThought: o"},
		{"a thought alone on its line, once the line ends", act + "\nThought\nok", act + "\n", act + "\nThought\n"},
		{"another action after an action in brackets", "Action: add[1, 2]\nAction: add[3, 4]", "Action: add[1, 2]\n", "Action: add[1, 2]\nAction: a"},
		{"a word that begins as the label is no observation", act + "\nObservations are made", "", ""},
		{"an observation in code is code", "Action: python\nAction Input: ```python\nprint(\"Observation: x\")\n```\nObservation: 1",
			"Action: python\nAction Input: ```python\nprint(\"Observation: x\")\n```\n", "Action: python\nAction Input: ```python\nprint(\"Observation: x\")\n```\nObservation:"},
		{"an observation in a JSON input's string is text", act[:len(act)-2] + `{"a": "Observation: 3"}` + "\nObservation: 3",
			act[:len(act)-2] + `{"a": "Observation: 3"}` + "\n", act[:len(act)-2] + `{"a": "Observation: 3"}` + "\nObservation:"},
		{"an observation in reasoning is reasoning", "<think>" + act + "\nObservation: 1</think>\n" + act + "\nObservation: 3",
			"<think>" + act + "\nObservation: 1</think>\n" + act + "\n", "<think>" + act + "\nObservation: 1</think>\n" + act + "\nObservation:"},
		{"an observation in reasoning never closed", "<think>" + act + "\nObservation: 1", "", ""},
		{"a final answer first", "Final Answer: 3\nObservation: 3", "", ""},
		{"a label at the end that may yet be the input's", "Action: add\nAction", "", ""},
	}
	p := New(scanTools)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := p.NewScanner()
			for i := range len(tt.reply) {
				s.WriteString(tt.reply[i : i+1])
				got, want := s.Cut(), -1
				if tt.sure != "" && i+1 >= len(tt.sure) {
					want = len(tt.kept)
				}
				if got != want {
					t.Fatalf("after %q: the scan cuts at %d, want %d", tt.reply[:i+1], got, want)
				}
			}
			if got := p.ActionEnd(tt.reply); tt.sure != "" && got != len(tt.kept) {
				t.Errorf("ActionEnd of the whole reply cuts at %d, want %d", got, len(tt.kept))
			}
		})
	}
}

// TestASureReadingStaysAsMoreComes reads the start of a reply's last
// line, cut at every byte, and whenever the reading says it is sure (its
// need is met), checks that the line, continued in many ways, reads the
// same: the scan reads such a line's start once and for all.
func TestASureReadingStaysAsMoreComes(t *testing.T) {
	continuations := []string{"", "s", "x", ":", "：", " x", "\t", "\n", "\nObservation: 3", "=", "==", "=>x", "-", "- x",
		"(", ")", "(JSON): x", "]", "] x", "_", "\\_Input: x", "\x00", "1", "1.", ". x", "*", "**: x", "Input: x", " Input: x",
		"ation: x", "tion Input: x", "é", "\xe8", "\xe8\xa1", "行", "动：x", "思考：x", "[", "INST]", "/INST] Thought: x"}
	lt := labelTables()
	read := func(text string, start int, last label) (mark, bool, labelScanner) {
		l := labelScanner{lt: lt, text: text, pos: start, last: last, partial: true, wide: 1}
		m, ok := l.lineStart()
		return m, ok, l
	}
	checked := 0
	for i, reply := range replyCorpus(t) {
		if i%8 != 0 {
			continue
		}
		for start := 0; start < len(reply); {
			lineEnd := strings.IndexByte(reply[start:], '\n')
			if lineEnd < 0 {
				lineEnd = len(reply)
			} else {
				lineEnd += start
			}
			// The line, cut at every byte, and the line below it cut at
			// every byte, for a label alone on its line.
			limit := min(len(reply), lineEnd+1+24)
			for k := start + 1; k <= limit; k++ {
				text := reply[:k]
				for _, last := range []label{labelNone, labelAction} {
					m, ok, l := read(text, start, last)
					if l.need > len(text) {
						continue
					}
					for _, c := range append(continuations, reply[k:]) {
						m2, ok2, _ := read(text+c, start, last)
						checked++
						if !ok && ok2 && m2.line >= len(text) {
							continue // a label on a line that came after
						}
						if ok != ok2 || ok && (m.kind != m2.kind || m.line != m2.line || m.value != m2.value) {
							t.Fatalf("%q (after %v) reads %+v, %v for good, but %q reads %+v, %v", text[start:], last, m, ok, text[start:]+c, m2, ok2)
						}
					}
				}
			}
			start = lineEnd + 1
		}
	}
	t.Logf("%d readings checked", checked)
}

// TestTheScanReadsEachByteABoundedNumberOfTimes streams long replies, the
// hostile among them, in small pieces, and counts the bytes the scan
// reads again: a few times the reply at most, where reading the reply
// so far at each piece would be about its square. Once the reply has
// come, the scan cuts where ActionEnd does.
func TestTheScanReadsEachByteABoundedNumberOfTimes(t *testing.T) {
	act := "Thought: t\nAction: add\nAction Input: {}\n"
	const mib = 1 << 20
	tests := []struct {
		name  string
		text  string
		piece int
	}{
		{"40,000 lines of a and a line break", strings.Repeat("a\n", 40000), 2},
		{"4 MiB of short lines in pieces of 4 KiB", strings.Repeat("a\n", 2<<20), 4 << 10},
		{"40,000 lines of thought", strings.Repeat("Thought: a\n", 40000), 11},
		{"40,000 lines of reasoning", "<think>" + strings.Repeat("a\n", 40000), 2},
		{"an action, then 40,000 lines", "Thought: t\nAction: add\n" + strings.Repeat("a\n", 40000), 2},
		{"a final answer, then 40,000 lines", "Final Answer: 3\n" + strings.Repeat("a\n", 40000), 2},
		{"reasoning tags, closed and opened, 20,000 times", strings.Repeat("</think>a\n<think>b\n", 20000), 3},
		{"a line of 1 MiB with a colon in every piece", "Thought: " + strings.Repeat("a:", mib/2), 2},
		{"1 MiB with no line break", strings.Repeat("a", mib), 1},
		{"an input of 1 MiB with no line break", act[:len(act)-3] + strings.Repeat("x", mib), 1},
		{"an observation label 100,000 times on a line", strings.Repeat("Observation: ", 100000), 1},
		{"a thought label 100,000 times on a line", strings.Repeat("Thought: ", 100000), 1},
		{"inputs and thoughts, 30,000 of each on a line", "Thought: a " + strings.Repeat("Action Input: b Thought: c ", 30000), 1},
		{"an action label 100,000 times, one a line", strings.Repeat("Action:\n", 100000), 1},
		{"an input label alone on its line 100,000 times", "Action: a\n" + strings.Repeat("Input\n", 100000), 1},
		{"1 MiB of NUL bytes", strings.Repeat("\x00", mib), 1},
		{"labels between escape sequences", strings.Repeat("\x1b[31mObservation\x1b[0m: 3 ", 50000), 1},
		{"1 MiB of accented words and colons", strings.Repeat("Thé wéather: 3 Obsérvation ", mib/27), 1},
		{"a line of 256 KiB of dashes", strings.Repeat("-", 256<<10), 1},
		{"a line of 256 KiB of asterisks and spaces", strings.Repeat("* ", 128<<10), 1},
		{"a label then 256 KiB of digits", "Action " + strings.Repeat("1", 256<<10), 1},
		{"a thought whose value starts after 1 MiB of spaces", act + "Thought:" + strings.Repeat(" ", mib) + "x", 1},
		{"a label written again after 256 KiB of spaces", "Thought: Thought" + strings.Repeat(" ", 256<<10) + ": x", 1},
	}
	p := New(scanTools)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := p.NewScanner()
			ps := pieces(tt.text, tt.piece)
			for _, piece := range ps {
				s.WriteString(piece)
				s.Cut()
			}
			if most := 8 * len(tt.text); s.reread > most {
				t.Errorf("the scan read %d bytes again for a reply of %d in %d pieces, more than %d", s.reread, len(tt.text), len(ps), most)
			}
			if got, want := s.Cut(), p.actionEnd(tt.text, true); got != want {
				t.Errorf("the scan cuts at %d, ActionEnd at %d", got, want)
			}
			t.Logf("%d bytes read again for a reply of %d in %d pieces", s.reread, len(tt.text), len(ps))
		})
	}
}

// TestALabelAfterLongMarkupIsFoundAsItsLineGrows streams a line of more
// than maxUnsure bytes of dashes that ends in a made-up observation: the
// scan reads the line's start again only as the line grows by half, so
// it finds the observation later than it could, never earlier, and at
// the latest when the line ends.
func TestALabelAfterLongMarkupIsFoundAsItsLineGrows(t *testing.T) {
	head := "Action: add[1, 2]\n"
	text := head + strings.Repeat("-", 3*maxUnsure) + "Observation: 3\nmore"
	p := New(nil)
	s := p.NewScanner()
	for i := range len(text) {
		s.WriteString(text[i : i+1])
		got, want := s.Cut(), p.actionEnd(text[:i+1], true)
		if got >= 0 && got != want {
			t.Fatalf("after %q: the scan cuts at %d, ActionEnd at %d", text[:i+1], got, want)
		}
		if text[i] == '\n' && got != want {
			t.Fatalf("after %q, a whole line: the scan cuts at %d, ActionEnd at %d", text[:i+1], got, want)
		}
	}
	if got := s.Cut(); got != len(head) {
		t.Errorf("the scan cuts at %d, want %d", got, len(head))
	}
}

func TestActionEnd(t *testing.T) {
	act := "Thought: t\nAction: add\nAction Input: {}"
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"a complete action and a made-up observation", act + "\nObservation: 3", len(act) + 1},
		{"markdown and full-width colons", act + "\n**Observation**： 3", len(act) + 1},
		{"no action yet", "Thought: the Observation: is later", -1},
		{"an observation inside reasoning", "<think>" + act + "\nObservation: 3", -1},
		{"an observation after closed reasoning", "<think>Observation: x</think>" + act + "\nObservation: 3", len("<think>Observation: x</think>") + len(act) + 1},
		{"a final answer", "Final Answer: Observation: none", -1},
		{"an inline call and a numbered observation", "Action 1: add[1, 2]\nObservation 1: 3", len("Action 1: add[1, 2]\n")},
		{"a JSON-protocol action", `{"action": "add", "action_input": {}}` + "\nObservation: 3", len(`{"action": "add", "action_input": {}}`) + 1},
		{"a final answer then an observation", "Final Answer: 3\nObservation: 3", -1},
		{"a new thought after the action", act + "\nThought: and more", len(act) + 1},
		{"another action after the action", "Action: add[1, 2]\nAction: add[3, 4]", len("Action: add[1, 2]\n")},
		{"an action whose input may go on", act, -1},
		{"an observation label alone at the end of the whole reply", act + "\nObservation", len(act) + 1},
	}
	p := New(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.ActionEnd(tt.in); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestMaxReasoningTagHoldsEveryTag(t *testing.T) {
	for _, tag := range reasoningTags {
		if n := len("</" + tag + ">"); n > maxReasoningTag {
			t.Errorf("</%s> is %d bytes, more than maxReasoningTag, %d", tag, n, maxReasoningTag)
		}
	}
}
