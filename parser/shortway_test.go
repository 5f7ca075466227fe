package parser

import (
	"strconv"
	"strings"
	"testing"
)

// The parser takes short ways for the usual case: labels as the protocol
// spells them, plain strings, small whole numbers. Each must give what
// the general reading gives; these tests compare the two.

// shortWayLines are lines near the labels the short way knows.
var shortWayLines = []string{
	"Thought: a", "Thought:a", "Thought:", "Thought:   ", "Thought: \t x", "Thoughts: a", "Thought : a",
	"Action: web_search", "Action:", "Action Input: {}", "Action Input:", "Action  Input: x", "Action Inputs: x",
	"Action 1: x", "Action_Input: x", "Actions: x", "Final Answer: 42", "Final Answer:", "Final answer: 42",
	"Observation: ok", "Observation:", "Observations: ok", "Action Input: {\"a\": 1}", "Thought: Action: x",
	"Action", "Actio", "Final Answer", "Obs", "T", "", "Thought::", "Action:: x", "Thought:\tb",
}

func TestPlainLabelReadsAsTheGeneralReading(t *testing.T) {
	for _, line := range shortWayLines {
		checkPlainLabel(t, line)
	}
}

func FuzzPlainLabel(f *testing.F) {
	for _, line := range shortWayLines {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		checkPlainLabel(t, line)
	})
}

func checkPlainLabel(t *testing.T, line string) {
	t.Helper()
	text := line + "\nnext"
	short, ok := plainLabel(text, 0, len(line))
	if !ok {
		return // the general reading decides alone
	}
	general, gok := readLineLabel(labelTables(), text, 0, len(line))
	if !gok || short != general {
		t.Errorf("%q: short way %+v, general reading %+v (%v)", line, short, general, gok)
	}
}

// strings quoted in the ways the short way must leave to the general one.
var shortWayStrings = []string{
	`"query"`, `"a b c": 1`, `"x", "y"`, `"said "yes" to it"`, `"a\"b"`, `"a\\"`, `"""long"""`, `""`, `"" x`,
	`"open`, `'single'`, `'it\'s'`, `"tab\there"`, `"ends"}`, `"ends"]`, `"x" y "z"`, `"a" :`, `"é"`,
	`"` + strings.Repeat("a", shortString-1) + `" x"`, `"` + strings.Repeat("a", shortString) + `"`, `"` + strings.Repeat("b", 100) + `\n"`,
}

func TestPlainStringReadsAsTheGeneralReading(t *testing.T) {
	for _, s := range shortWayStrings {
		checkPlainString(t, s)
	}
}

func FuzzPlainString(f *testing.F) {
	for _, s := range shortWayStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || (s[0] != '"' && s[0] != '\'') {
			return
		}
		checkPlainString(t, s)
	})
}

func checkPlainString(t *testing.T, s string) {
	t.Helper()
	r := jsonReader{s: s}
	got, err := r.str()
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	// The general reading: the closing quote, then the escapes.
	quote := s[0]
	if strings.HasPrefix(s, strings.Repeat(string(quote), 3)) {
		return // long strings take their own way
	}
	g := jsonReader{s: s}
	end := g.closingQuote(1, quote)
	want, wantEnd := unescape(s[1:end]), min(end+1, len(s))
	if got != want || r.i != wantEnd {
		t.Errorf("%q: got %q ending at %d, want %q ending at %d", s, got, r.i, want, wantEnd)
	}
}

func TestSmallNumbersReadAsFloats(t *testing.T) {
	for _, tok := range []string{"0", "3", "255", "256", "-1", "-0", "007", "123456789012345", "1234567890123456",
		"-999", "1.5", "1e3", "-", "+3", "0x10", "1_000"} {
		r := jsonReader{s: tok}
		got, err := r.bare(&valueStops)
		if err != nil {
			t.Fatalf("%q: %v", tok, err)
		}
		f, perr := strconv.ParseFloat(tok, 64)
		if c := tok[0]; perr != nil || !isJSONNumber(tok) || (c != '-' && (c < '0' || c > '9')) {
			if _, isNum := got.(float64); isNum {
				t.Errorf("%q: read as the number %v, want text", tok, got)
			}
			continue
		}
		if g, isNum := got.(float64); !isNum || g != f || strconv.FormatFloat(g, 'g', -1, 64) != strconv.FormatFloat(f, 'g', -1, 64) {
			t.Errorf("%q: got %#v, want %v", tok, got, f)
		}
	}
}

func TestManyLabelsOutgrowTheFirstMarks(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		b.WriteString("Thought: step " + strconv.Itoa(i) + "\n")
	}
	b.WriteString("Action: calculator\nAction Input: {\"expression\": \"1+1\"}\n")
	p := New(nil)
	st, err := p.Parse(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if st.Action != "calculator" || st.Args["expression"] != "1+1" || !strings.Contains(st.Thought, "step 19") || !strings.HasPrefix(st.Thought, "step 0 ") {
		t.Errorf("got %+v", st)
	}
}
