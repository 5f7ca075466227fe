package fuzz

import (
	"errors"
	"math"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/parser/parsertest"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
)

// seedFiles hold replies to seed the fuzzers with, one JSON object with a
// "text" field a line. The shared examples are used when present.
var seedFiles = []string{"../testdata/parser/replies.jsonl", "../testdata/parser/score.jsonl", "../testdata/parser/prose.jsonl",
	"../testdata/parser/readings.jsonl", "../../shared/parser/examples.jsonl"}

// addSeeds adds every reply in the seed files to f.
func addSeeds(f *testing.F) {
	f.Helper()
	paths := seedFiles
	if _, err := os.Stat(paths[len(paths)-1]); errors.Is(err, os.ErrNotExist) {
		paths = paths[:len(paths)-1]
	}
	seeds := parsertest.Texts(f, paths...)
	for _, s := range seeds {
		f.Add(s)
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
}

// maxGrowth bounds how many times longer than a reply of 8 KB one of 64
// KB, the same text repeated, may take to parse: linear parsing takes
// about 8 times as long, quadratic 64.
const maxGrowth = 24

// FuzzParse checks that no input panics the parser, that every result is
// well formed, also with the options the loop passes (a reply cut at the
// token limit, the step before it), and that the input repeated to 64 KB
// (the shape that exposes super-linear parsing) takes at most maxGrowth
// times as long to parse as repeated to 8 KB, or else that it does from
// 64 KB to 512 KB: ratios of CPU times, which a loaded machine does not
// upset, where an absolute bound on the time on the clock failed under
// load. The race detector, which slows every memory access
// many times over, makes any time meaningless: then it is not checked.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	p := parser.New(tools.Catalog())
	f.Fuzz(func(t *testing.T, text string) {
		st, err := p.Parse(text)
		checkStep(t, text)(st, err)
		o := parser.Options{Truncated: true}
		if err == nil && st.Kind == parser.KindAction {
			// The reply as the copy of the step before it.
			o.Previous = []parser.PastStep{{Step: st, Observation: clip(text)}}
		}
		checkStep(t, text)(p.ParseWith(text, o))
		o.Truncated = false
		checkStep(t, text)(p.ParseWith(text, o))
		if text == "" || raceDetector {
			return
		}
		small, big := repeatTo(text, 8<<10), repeatTo(text, 64<<10)
		ts, tb, ok := grows(p, small, big)
		if ok {
			return
		}
		// Faster than linear from 8 KB to 64 KB: the caches, which the
		// longer text outgrows, can do that once. Parsing that is not
		// linear does it again from 64 KB to 512 KB.
		if _, _, ok := grows(p, big, repeatTo(text, 512<<10)); ok {
			return
		}
		t.Errorf("parsing %q repeated to %d bytes took %v, %.0f times as long as repeated to %d bytes (%v), and it grew faster than linear again to 512 KB; want at most %d times",
			clip(text), len(big), tb, float64(tb)/float64(ts), len(small), ts, maxGrowth)
	})
}

// grows times Parse on small and on big, eight times as long, and
// reports whether big took at most maxGrowth times as long: the fastest
// of up to five runs of each, so that a moment when another process
// takes the caches is not taken for slow parsing.
func grows(p *parser.Parser, small, big string) (ts, tb time.Duration, ok bool) {
	ts, tb = time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range 5 {
		ts, tb = min(ts, parseTime(p, small)), min(tb, parseTime(p, big))
		if tb <= maxGrowth*ts {
			return ts, tb, true
		}
	}
	return ts, tb, false
}

// repeatTo repeats text to just under n bytes, or cuts it there.
func repeatTo(text string, n int) string {
	if s := strings.Repeat(text, (n-1)/len(text)); s != "" {
		return s
	}
	return text[:n-1]
}

// parseTime is how long Parse takes on text, in the CPU time of its
// thread, on average over as many parses as take a fifth of a
// millisecond, so that a fast parse is timed above the clock's grain.
func parseTime(p *parser.Parser, text string) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadTime()
	for n := 1; ; n++ {
		p.Parse(text)
		if d := threadTime() - start; d >= 200*time.Microsecond {
			return d / time.Duration(n)
		}
	}
}

// checkStep returns a check of what Parse gave for text.
func checkStep(t *testing.T, text string) func(parser.Step, error) {
	return func(st parser.Step, err error) {
		t.Helper()
		if err != nil {
			var perr *parser.Error
			if !errors.As(err, &perr) || perr.Message == "" || perr.Err == nil {
				t.Fatalf("Parse(%q): error %#v is not a *parser.Error with a message and a cause", clip(text), err)
			}
			return
		}
		switch st.Kind {
		case parser.KindAction:
			if st.Action == "" || st.Args == nil || st.FinalAnswer != "" {
				t.Fatalf("Parse(%q): malformed action %#v", clip(text), st)
			}
		case parser.KindFinal:
			if st.FinalAnswer == "" || st.Action != "" || st.Args != nil {
				t.Fatalf("Parse(%q): malformed final answer %#v", clip(text), st)
			}
		default:
			t.Fatalf("Parse(%q): unknown kind in %#v", clip(text), st)
		}
	}
}

// FuzzRoundTrip checks that a parsed step, rendered in the canonical
// protocol by the renderer the prompt uses, parses back to the same step.
func FuzzRoundTrip(f *testing.F) {
	addSeeds(f)
	p := parser.New(tools.Catalog())
	f.Fuzz(func(t *testing.T, text string) {
		st, err := p.Parse(text)
		if err != nil || !renderable(p, st) {
			return
		}
		roundTrip(t, p, st)
	})
}

// FuzzRenderParse checks the round trip for steps built from parts: a
// thought, a tool call with one argument, or a final answer.
func FuzzRenderParse(f *testing.F) {
	f.Add("I need to add.", "calculator", "expression", "2+2", "", false)
	f.Add("", "web_search", "query", "go 1.26\nrelease", "", false)
	f.Add("multi\nline", "my_tool", "city", "Oslo", "", false)
	f.Add("Known.", "", "", "", "It is 4.\n\nDone.", true)
	f.Add("思考", "", "", "", "二加二等于四", true)
	p := parser.New(tools.Catalog())
	f.Fuzz(func(t *testing.T, thought, tool, key, value, answer string, final bool) {
		st := parser.Step{Kind: parser.KindFinal, Thought: thought, FinalAnswer: answer}
		if !final {
			st = parser.Step{Kind: parser.KindAction, Thought: thought, Action: tool, Args: map[string]any{key: value}}
		}
		if !renderable(p, st) || !canonical(p, st) {
			return
		}
		roundTrip(t, p, st)
	})
}

func roundTrip(t *testing.T, p *parser.Parser, st parser.Step) {
	t.Helper()
	text := prompt.FormatStep(st)
	back, err := p.Parse(text)
	if err != nil {
		t.Fatalf("step %#v rendered as %q does not parse: %v", st, text, err)
	}
	if !reflect.DeepEqual(back, st) {
		t.Fatalf("step %#v\nrendered as %q\nparses as %#v", st, text, back)
	}
}

// renderable reports whether the free text of st can stand in the
// protocol unchanged: trimmed, and read back as itself where the
// renderer puts it, the thought before a label on the next line and the
// answer after its label.
func renderable(p *parser.Parser, st parser.Step) bool {
	if st.Thought != strings.TrimSpace(st.Thought) || st.FinalAnswer != strings.TrimSpace(st.FinalAnswer) {
		return false
	}
	if st.Thought != "" {
		back, err := p.Parse("Thought: " + st.Thought + "\nFinal Answer: Done.")
		if err != nil || back.Thought != st.Thought || back.FinalAnswer != "Done." {
			return false
		}
	}
	if st.Kind == parser.KindFinal {
		back, err := p.Parse("Final Answer: " + st.FinalAnswer)
		if err != nil || back.Kind != parser.KindFinal || back.FinalAnswer != st.FinalAnswer || back.Thought != "" {
			return false
		}
	}
	return true
}

// canonical reports whether st is in the form the parser gives: a known
// kind, a non-empty answer, and a tool name and arguments that the
// parser's own inference leaves as they are.
func canonical(p *parser.Parser, st parser.Step) bool {
	if st.Kind == parser.KindFinal {
		return st.FinalAnswer != ""
	}
	if named, err := p.Parse("Action: " + st.Action + "\nAction Input: {}"); err != nil || named.Action != st.Action {
		return false
	}
	name, args := p.Args(st.Action, prompt.FormatArgs(st.Args))
	return name == st.Action && reflect.DeepEqual(args, st.Args)
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
