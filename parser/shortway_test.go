package parser

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/react-agent/react-agent/parser/parsertest"
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

// canonicalReplies are replies near the canonical shapes, each of which
// canonical must read as the tolerant reading does, or leave to it.
var canonicalReplies = []string{
	"Thought: I need the population of Tokyo.\nAction: web_search\nAction Input: {\"query\": \"Tokyo population 2026\", \"max_results\": 3}\n",
	"Action: web_search\nAction Input: {\"query\": \"zig\"}",
	"Thought: add\nAction: calculator\nAction Input: 2+2",
	"Thought: add\nAction: calculator\nAction Input: {}",
	"Thought: I know it.\nFinal Answer: 42",
	"Final Answer: Paris is the capital of France.\nIt has been since 987.",
	"Thought: I know it.\nFinal Answer: The largest cities are Tokyo, Delhi,",
	"Thought: x Action: web_search\nAction Input: {\"query\": \"zig\"}",
	"Thought: x\nAction: web_search Final Answer: y\nAction Input: {\"query\": \"zig\"}",
	"Thought: Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\"}",
	"Thought: x\nAction: Action: web_search\nAction Input: {\"query\": \"zig\"}",
	"Thought: x\nAction: web_search\nAction Input: {Thought: \"zig\"}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"a\", Observation: 1}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"https://a.example\"}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\"}\nObservation: found",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\"}\nThought: more",
	"Thought: x\nAction: web_search\nAction Input: {{\"query\": \"zig\"}}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\",}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"\"}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"a\\\"b\"}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\", \"max_results\": 007}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\", \"max_results\": 1000000000000000000}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": null, \"max_results\": true}",
	"Thought: x\nAction: web_search\nAction Input: {\"Query\": \"zig\"}",
	"Thought: x\nAction: web_search\nAction Input: {\"q\": \"zig\"}",
	"Thought: x\nAction: get_time\nAction Input: {}",
	"Thought: x\nAction: web_search\nAction Input: None",
	"Thought: x\nAction: web_search\nAction Input: web_search(query=\"zig\")",
	"Thought: x\nAction: http_request\nAction Input: {\"url\": \"https://a.example\", \"method\": \"GET\"}",
	"Thought: x\nAction: search\nAction Input: {\"query\": \"zig\"}",
	"Thought: x\nAction: web_search\n\nAction Input: {\"query\": \"zig\"}",
	"Thought: x\nAction: web_search\nAction Input:\n{\"query\": \"zig\"}",
	"Thought: x\nAction: web_search\nAction Input: {\"query\":\n\"zig\"}",
	"Thought: \nAction: web_search\nAction Input: {\"query\": \"zig\"}",
	"Thought: x\nFinal Answer:",
	"Thought: x\nFinal Answer: {\"action\": \"web_search\", \"action_input\": \"zig\"}",
	"Thought: x\\nFinal Answer: 4",
	"Thought: 思考\nFinal Answer: 四",
	"Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\"}\r\n",
	"  Thought: x\nAction: web_search\nAction Input: {\"query\": \"zig\"}  ",
	"Thought: I should reflect. Action: reflect\nAction: web_search\nAction Input: {\"query\": \"zig\"}",
	// Names no tool set registers, and words near them.
	"Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"San Francisco\", \"unit\": \"celsius\"}",
	"Thought: x\nAction: get_weather\nAction Input: Oslo",
	"Thought: x\nAction: get_weather\nAction Input: get_weather(city=\"Oslo\")",
	"Thought: x\nAction: get_weather\nAction Input: {\"input\": {\"city\": \"Oslo\"}}",
	"Thought: x\nAction: get_weather\nAction Input: {\"city\": \"Oslo\"}\nObservation: 12 °C",
	"Thought: x\nAction: get_weather\nAction Input: None",
	"Thought: x\nAction: GetWeather\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: get-weather-2\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: 42\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: Web_Search\nAction Input: {\"query\": \"zig\"}",
	"Thought: x\nAction: web-search\nAction Input: {\"Query\": \"zig\"}",
	"Thought: x\nAction: websearch\nAction Input: zig",
	"Thought: x\nAction: calculator_tool\nAction Input: {\"expression\": \"2+2\"}",
	"Thought: x\nAction: the_calculator\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: tool_api\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: tool\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: tool_name\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: None\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: no-action\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: Final_Answer\nAction Input: {\"answer\": \"4\"}",
	"Thought: x\nAction: finish\nAction Input: 4",
	"Thought: x\nAction: respond-directly\nAction Input: {\"text\": \"hi\"}",
	"Thought: x\nAction: functions.get_weather\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: get_weather.\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: _get_weather\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: get weather\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: get_weather(Oslo)\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: Action_Input\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: Thought\nAction Input: {\"city\": \"Oslo\"}",
	"Thought: x\nAction: get_weather\nAction Input: {\"city\": \"Oslo\", \"city\": \"Bergen\"}",
}

func TestTheShortWayServesAnyPlainName(t *testing.T) {
	// The short way reads a canonical reply whatever tool it names, when
	// the name is one plain word that names nothing else; the tolerant
	// reading decides the rest.
	p := New(testTools)
	for _, c := range []struct {
		name  string
		text  string
		short bool
	}{
		{"a registered name", "Action: web_search\nAction Input: {\"query\": \"zig\"}", true},
		{"a name the parser was not told of", "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"San Francisco\", \"unit\": \"celsius\"}", true},
		{"an unknown name with a text input", "Action: get_weather\nAction Input: Oslo", true},
		{"an unknown name in camel case", "Action: GetWeather\nAction Input: {\"city\": \"Oslo\"}", true},
		{"an unknown name with hyphens and digits", "Action: get-weather-2\nAction Input: {\"city\": \"Oslo\"}", true},
		{"a registered name in other case", "Action: Web_Search\nAction Input: {\"query\": \"zig\"}", true},
		{"a registered name's key", "Action: websearch\nAction Input: {\"query\": \"zig\"}", true},
		{"a registered name with a generic word", "Action: calculator_tool\nAction Input: {\"expression\": \"2+2\"}", false},
		{"a name that answers", "Action: Final_Answer\nAction Input: {\"answer\": \"4\"}", false},
		{"a refusal", "Action: None\nAction Input: {\"city\": \"Oslo\"}", false},
		{"a placeholder that calls with an input", "Action: tool\nAction Input: {\"city\": \"Oslo\"}", false},
		{"a placeholder", "Action: tool_name\nAction Input: {\"city\": \"Oslo\"}", false},
		{"a name in a namespace", "Action: functions.get_weather\nAction Input: {\"city\": \"Oslo\"}", false},
		{"a name of two words", "Action: get weather\nAction Input: {\"city\": \"Oslo\"}", false},
		{"a name with a full stop after it", "Action: get_weather.\nAction Input: {\"city\": \"Oslo\"}", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rd reading
			if got := p.canonical(c.text, &rd); got != c.short {
				t.Errorf("%q: read by the short way %v, want %v", c.text, got, c.short)
			}
			checkCanonical(t, c.text)
		})
	}
}

// canonicalToolSets are the tool sets the short way is checked with:
// the built-in tools, none, and names with punctuation in them.
var canonicalToolSets = []Tools{testTools, nil,
	toolsOf{"Gmail: Find Email": {"query"}, "Search (beta)": {"q"}, "get_weather": {"city", "unit"}, "weather": {"city"}}}

func TestTheShortWayReadsAsTheTolerantReading(t *testing.T) {
	for _, text := range canonicalReplies {
		checkCanonical(t, text)
	}
	// And every reply of the corpora in testdata.
	for _, text := range parsertest.Texts(t, "../testdata/parser/readings.jsonl", "../testdata/parser/replies.jsonl",
		"../testdata/parser/score.jsonl", "../testdata/parser/prose.jsonl") {
		checkCanonical(t, text)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, text := range canonicalReplies {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkCanonical(t, text)
	})
}

func checkCanonical(t *testing.T, text string) {
	t.Helper()
	for _, tools := range canonicalToolSets {
		p := New(tools)
		var rd reading
		if !p.canonical(text, &rd) {
			continue // the tolerant reading decides alone
		}
		st, err := p.tolerant(text, nil)
		if !reflect.DeepEqual(rd.step, st) || (rd.err == nil) != (err == nil) || rd.err != nil && rd.err.Error() != err.Error() {
			t.Errorf("%q, tools %v: short way %#v, %v; tolerant reading %#v, %v", text, tools, rd.step, rd.err, st, err)
		}
	}
}

// testTools are the built-in tools, as the tests of package parser_test
// know them.
var testTools = toolsOf{"calculator": {"expression"}, "web_search": {"query", "max_results"},
	"http_request": {"url", "method", "headers", "body"}, "shell": {"command"}, "get_time": {}}

type toolsOf map[string][]string

func (f toolsOf) ToolNames() []string {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	return names
}

func (f toolsOf) ToolArgs(name string) ([]string, string) {
	if args := f[name]; len(args) > 0 {
		return args, args[0]
	}
	return nil, ""
}

func (f toolsOf) RequiredArgs(name string) []string {
	if args := f[name]; len(args) > 0 {
		return args[:1]
	}
	return nil
}

// flatObjects are objects near the ones decodeFlat reads.
var flatObjects = []string{
	`{"query": "zig", "max_results": 3}`, `{"a":1}`, `{ "a" : "b" , "c" : null }`, `{"a": true, "b": false}`,
	`{"a": 255, "b": 256, "c": 0, "d": 00}`, `{"a": "x"}  `, `{"a": "x"} tail`, `{"a": "x",}`, `{}`, `{{"a": "x"}}`,
	`{"a": "x\"y"}`, `{"a": "x" "b"}`, `{"a": "x"y", "b": 1}`, `{"a" "x"}`, `{'a': 'x'}`, `{a: "x"}`, `{"a": -1}`,
	`{"a": 1.5}`, `{"a": 1e3}`, `{"a": [1]}`, `{"a": {"b": 1}}`, `{"a": "x", "a": "y"}`, `{"a": "x"}}`, `{"a": "x"` + "\n}",
	`{"a": 123456789012345678}`, `{"a": truex}`, `{"a": "x" /* c */}`, `{"a": "x"  # c` + "\n}", `{"": 1}`, `{"a": ""}`,
	`{"query and more": "a value past eight bytes\"", "b": 1}`, `{"abcdefgh": "ijklmnop\nq"}`, `{"abcdefg\u0068": 1}`,
	`{"ключ": "значение", "é": "naïve"}`, `{"abcdefghijklmnop": "qrstuvwxyz0123456789"}`,
	`{"url": "https://example.com/a:b", "n": 2}`, `{"k:ey": 1}`, `{"ab": "cd", "e": ":"}`, `{"abcdefgh" : "x"}`,
	`{"a": "x"}:`, `{"abcdefghijklmnopq": "Thought: x"}`,
}

func TestFlatObjectsReadAsTheGeneralReading(t *testing.T) {
	for _, s := range flatObjects {
		checkFlat(t, s)
	}
}

func FuzzFlatObject(f *testing.F) {
	for _, s := range flatObjects {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFlat(t, s)
	})
}

func checkFlat(t *testing.T, s string) {
	t.Helper()
	flat, ok := decodeFlat(s)
	if !ok {
		return
	}
	general, n, gok := decodeObject(s)
	if !gok || n != len(s) || !reflect.DeepEqual(flat, general) {
		t.Errorf("%q: short way %#v, general reading %#v (%v, %d of %d bytes)", s, flat, general, gok, n, len(s))
	}
	// Its only colons are its keys' when there are as many colons as
	// keys, each right after a quote.
	pairs, keyColons, _ := readFlat(s, nil)
	if want := strings.Count(s, ":") == len(pairs) && strings.Count(s, `":`) == len(pairs); keyColons != want {
		t.Errorf("%q: only the keys' colons %v, want %v", s, keyColons, want)
	}
}

// fencedTexts are values near the stray fence lines cleanText drops.
var fencedTexts = []string{
	"```", "```\nx", "x\n```", "```json\n{\"a\": 1}", "{\"a\": 1}\n```", "```json\n{\"a\": 1}\n```", "x ```", "``` x",
	"```py\nprint(1)\n```\n```", "a\n\u00a0```", "a\n\v```", "a\n```py\vthon", "a\n  ```", "a\n\t```go", "a\n{```",
	"a\n\"```", "a\n```'", "a\n```日本", "a\n日本```", "````", "a\n````", "``` ```", "a `b` c", "a\n`` `", "\u3000```\nx",
	"x\n```\u00a0", "```\u00a0\nx", "", "a\n```" + strings.Repeat("x", 70), "a\n" + strings.Repeat("x", 70) + "```",
	"a ```x\n" + strings.Repeat("y", 70),
}

func TestCleanTextReadsAsTheWholeText(t *testing.T) {
	for _, s := range fencedTexts {
		checkCleanText(t, s)
	}
}

func FuzzCleanText(f *testing.F) {
	for _, s := range fencedTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCleanText(t, s)
	})
}

// checkCleanText checks that cleanText, which reads a text whole only
// when one of its ends is a fence, gives what reading it whole gives.
func checkCleanText(t *testing.T, s string) {
	t.Helper()
	want := strings.TrimSpace(s)
	if strings.IndexByte(want, '`') >= 0 && strings.Count(want, "```")%2 != 0 {
		if nl := strings.LastIndexByte(want, '\n'); isFenceLine(want[nl+1:]) {
			want = strings.TrimSpace(want[:max(nl, 0)])
		} else if nl := strings.IndexByte(want, '\n'); nl >= 0 && isFenceLine(want[:nl]) {
			want = strings.TrimSpace(want[nl+1:])
		}
	}
	if got := cleanText(s); got != want {
		t.Errorf("%q: cleaned %q, read whole %q", s, got, want)
	}
}

// The tool gate and the answer line after it were read with these
// regular expressions; the hand-written readers must read as they do.
// The gate is read inside a line too, where a word starts, since
// 2e78e25, and so a second gate on the line of the first.
var (
	gateRegexp = regexp.MustCompile(`(?im)(?:^\s*(?:thought:\s*)?|\b)do i need to use a tool\?\s*(yes|no)?\b`)
	aiRegexp   = regexp.MustCompile(`(?m)^\s*AI\s*:\s*(\S.*(?:\n.*)*)`)
)

var gateTexts = []string{
	"Do I need to use a tool? No\nAI: Paris.", "Thought: Do I need to use a tool? Yes\nAction: x", "thought:\ndo i need to use a tool?yes",
	"x Do I need to use a tool? No", "Do I need to use a tool?", "Do I need to use a tool? ", "Do I need to use a tool? .", "Do I need to use a tool?\n\nAI: x",
	"Do I need to use a tool? Nothing", "Do I need to use a tool? NO.", "  \n  Do I need to use a tool? no way", "Thought:   Do I need to use a tool? yes",
	"xThought: Do I need to use a tool? yes", "Do I need to use a tool? No\nDo I need to use a tool? Yes", "AI: x", "  AI : \n\n y", "AIM: x", "AI:", "AI:   ",
	"a\nAI:\nb\nc", "Do I need to use a tool?_x", "Do I need to use a  tool? No",
	"The user greets me. Do I need to use a tool? No AI: Hi", "Tododo I need to use a tool? No", "é do I need to use a tool? Yes Action: x",
	"So — do I need to use a tool? yes\nThought: Do I need to use a tool? no",
}

func TestGatesReadAsTheRegularExpressions(t *testing.T) {
	for _, text := range gateTexts {
		checkGates(t, text)
	}
}

func FuzzGates(f *testing.F) {
	for _, text := range gateTexts {
		f.Add(text)
	}
	// A text longer than the fuzzer reads, so that cutting it is no news
	// to the fuzzer later (see maxGateText).
	f.Add(strings.Repeat("Do I need to use a tool? Yes\nAction: x\n", maxGateText/32))
	f.Fuzz(func(t *testing.T, text string) {
		text = text[:min(len(text), maxGateText)]
		if !utf8.ValidString(text) {
			return
		}
		checkGates(t, text)
	})
}

// maxGateText bounds the texts FuzzGates reads, past which it cuts them.
// The expressions it checks against read some 200 ns a byte, several
// times that under the fuzzer's coverage counters, which count their
// loops too: a longer text looked new to the fuzzer for its length
// alone, and the fuzzer minimizes each new text in up to a run for
// every pair of its bytes, so one of a few kilobytes stopped all fuzzing
// for a minute at a time. The readers under test have no branch that
// depends on a text's length, nor do gates and answers span more than a
// few lines.
const maxGateText = 1 << 9

func checkGates(t *testing.T, text string) {
	t.Helper()
	// The expressions are the slow side of the check, by a hundred times:
	// each is asked once, and only of a text it can match. A gate's
	// question ends in '?', and the answer line's label is "AI".
	var all [][]int
	if strings.IndexByte(text, '?') >= 0 {
		all = gateRegexp.FindAllStringSubmatchIndex(text, -1)
	}
	g, ok := firstGate(text)
	if (len(all) > 0) != ok || ok && g.answer != strings.ToLower(submatch(text, all[0], 1)) {
		t.Errorf("%q: first gate %+v, %v; the expression found %v", text, g, ok, all)
	}
	g, ok = lastGate(text)
	if (len(all) > 0) != ok || ok && strings.TrimSpace(text[g.at:]) != strings.TrimSpace(text[all[len(all)-1][0]:]) {
		t.Errorf("%q: last gate %+v, %v; the expression found %v", text, g, ok, all)
	}
	want := ""
	if strings.Contains(text, "AI") {
		if m := aiRegexp.FindStringSubmatch(text); m != nil {
			want = m[1]
		}
	}
	if got := aiAnswer(text); got != want {
		t.Errorf("%q: answer line %q; the expression read %q", text, got, want)
	}
}

// submatch returns the text of group i of the match at loc, or "" when
// the group took no part in it.
func submatch(text string, loc []int, i int) string {
	if loc[2*i] < 0 {
		return ""
	}
	return text[loc[2*i]:loc[2*i+1]]
}
