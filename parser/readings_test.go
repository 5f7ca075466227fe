package parser_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// testdata/parser/readings.jsonl holds every input that four earlier
// builds were tested on, with what each build read: 201d578, the release
// before the wave whose parser landed in merge 8a25ebd; 49bef0a, the
// state after it; 92cf645, the state after the next round (merge
// 2607573; main's 93e6d1a has the same parser); and 2e78e25, the state
// after the round after that (merges 7efb338 and ebdefbe). Each line
// names its tools (a set of testdata/parser/readings-tools.json), the
// text, the options the loop would pass, which builds' tests parsed it
// ("tested_at"), and the readings: a step, or {"error": "<sentinel>"}.
//
// How the list was made: at each commit, Parse was instrumented to write
// every input it was given, with its tools and options, and the build's
// own tests were run (go test ./parser/... at 201d578; go test
// ./parser/... ./parser/score/... at 49bef0a and 92cf645, with
// REACT_AGENT_REQUIRE_SHARED=1 at 92cf645: the tests read testdata/parser
// and ../shared/parser/examples.jsonl); testdata/parser/replies.jsonl was
// added, with the built-in tools. Every input was then parsed again by
// the builds. A build's reading is kept where it was correct by its own
// expectations: 49bef0a's and 92cf645's always (their tests passed, and
// where one read an input of an earlier build's tests otherwise, its tests
// say so, in changedReadings); 201d578's for the inputs of its own tests
// (they passed), and for other inputs where it read what 49bef0a's tests
// expect. 201d578 has no options: an input with options has no reading
// of it. 92cf645's tests added the tool set "registered-names" and 140
// inputs.
//
// 2e78e25 was recorded the same way, with go test ./parser/... and
// REACT_AGENT_REQUIRE_SHARED=1: its tests added 47 inputs. Every line has
// its reading, which is always kept (its tests passed). The inputs of the
// tests written since for the shapes it read otherwise (newShapes), and
// for their neighbours that must read as before, were added with the
// reading 2e78e25 gives them, recorded as above with those tests beside
// its own, and no build in "tested_at".

// readingChange is a reading that differs from an earlier build's on
// purpose: why, and what the parser reads now (a reading in the file's
// form).
type readingChange struct {
	why string
	now string
}

// changedReadings are the inputs that the parser now reads otherwise
// than 201d578, 49bef0a or 92cf645 did, by the text.
var changedReadings = map[string]readingChange{
	// Decided in the wave after 201d578, and kept.
	"Action: #Args:0": {"201d578 read a call of a tool named \"#Args:0\"; a value with no name in it is no call",
		`{"error": "ErrNoToolName"}`},
	"Action: I will use calculator\nAction Input: {\"city\": \"Oslo\"}": {"a sentence that states a plan is no call, whatever its input",
		`{"error": "ErrNoToolName"}`},
	"Yes.": {"a bare yes answers LangChain's tool gate, not the question: a parse error beats a wrong final answer",
		`{"error": "ErrNotAnAnswer"}`},
	// Decided in 49bef0a, undone in 92cf645: a name followed by an input is a
	// call unless it is a refusal, a placeholder or a stated plan.
	"Action: either web_search or calculator\nAction Input: zig": {"49bef0a read no tool; 201d578 and the parser now read a call of an unregistered name, which the loop answers with the tools' names",
		`{"kind": "action", "thought": "", "action": "either web_search or calculator", "args": {"input": "zig"}}`},
	"Action: Click on the first result\nAction Input: the first one": {"49bef0a read no tool; an imperative phrase is how tools are named (\"Search the internet\"), and an input follows it",
		`{"kind": "action", "thought": "", "action": "Click on the first result", "args": {"input": "the first one"}}`},
	// Examples of the shipped corpus (testdata/parser/score.jsonl) for the
	// shapes 2e78e25 read otherwise, beside the tables of newShapes.
	"I need to calculate the 10th fibonacci number\nAction: Python_REPL\nAction Input: " + fibonacci + "\nObservation: 55": {
		"2e78e25 kept the program up to its first blank line; a program is the input across blank lines (programInputs)",
		`{"kind": "action", "thought": "I need to calculate the 10th fibonacci number", "action": "Python_REPL", "args": {"input": ` + jsonString(fibonacci) + `}}`},
	"I'll read the notes first.\n```read_file\nnotes.txt\n```": {"2e78e25 read an answer that shows code; a fence tagged with a registered tool's name that ends the reply calls it (toolFences)",
		`{"kind": "action", "thought": "I'll read the notes first.", "action": "read_file", "args": {"path": "notes.txt"}}`},
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	data, _ := json.Marshal(s) // a string always marshals
	return string(data)
}

// shapeTable is a table of replies of one shape that 2e78e25 read
// otherwise (issue 47's kinds): the test of the shape runs it, and
// TestNoCaseLost takes each case's reading, where it differs from an
// earlier build's, as decided, for the reason why gives.
type shapeTable struct {
	why    string
	tools  parser.Tools
	cases  []parseCase
	errors []errCase
}

// run checks that every case of tb reads as it says.
func (tb *shapeTable) run(t *testing.T) {
	t.Helper()
	p := parser.New(tb.tools)
	runCasesWith(t, p, parser.Options{}, tb.cases)
	runErrors(t, p, tb.errors)
}

// newShapes are the tables of the shapes read since 2e78e25.
var newShapes = []*shapeTable{&programInputs, &programInputsRegistered, &gateBranches, &toolFences, &wordCalls,
	&wordCallsRegistered, &wordCallsNoRegistry}

// decidedReadings are the readings the tables of newShapes decide, by
// the text, in the form of changedReadings.
func decidedReadings(t *testing.T) map[string]readingChange {
	t.Helper()
	decided := map[string]readingChange{}
	for _, tb := range newShapes {
		for _, c := range tb.cases {
			decided[c.text] = readingChange{tb.why + ": " + c.name, readingOf(t, c.want, nil)}
		}
		for _, c := range tb.errors {
			decided[c.text] = readingChange{tb.why + ": " + c.name, readingOf(t, parser.Step{}, c.want)}
		}
	}
	return decided
}

// readingsTools is a tool set of readings-tools.json.
type readingsTools []struct {
	Name     string   `json:"name"`
	Args     []string `json:"args"`
	Primary  string   `json:"primary"`
	Required []string `json:"required"`
}

func (ts readingsTools) ToolNames() []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return names
}

func (ts readingsTools) ToolArgs(name string) ([]string, string) {
	for _, t := range ts {
		if t.Name == name {
			return t.Args, t.Primary
		}
	}
	return nil, ""
}

func (ts readingsTools) RequiredArgs(name string) []string {
	for _, t := range ts {
		if t.Name == name {
			return t.Required
		}
	}
	return nil
}

// readingOf renders what the parser read in the file's form.
func readingOf(t *testing.T, st parser.Step, err error) string {
	t.Helper()
	var v any
	if err != nil {
		name := "other"
		for _, s := range []struct {
			name string
			err  error
		}{{"ErrEmpty", parser.ErrEmpty}, {"ErrNoAction", parser.ErrNoAction}, {"ErrNoToolName", parser.ErrNoToolName},
			{"ErrNoActionInput", parser.ErrNoActionInput}, {"ErrEmptyAnswer", parser.ErrEmptyAnswer},
			{"ErrNotAnAnswer", parser.ErrNotAnAnswer}, {"ErrTruncated", parser.ErrTruncated}} {
			if errors.Is(err, s.err) {
				name = s.name
			}
		}
		v = map[string]any{"error": name}
	} else if st.Kind == parser.KindAction {
		v = map[string]any{"kind": st.Kind, "thought": st.Thought, "action": st.Action, "args": st.Args}
	} else {
		v = map[string]any{"kind": st.Kind, "thought": st.Thought, "final_answer": st.FinalAnswer}
	}
	return canonicalJSON(t, v)
}

// canonicalJSON is v as JSON, its keys in order.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	data, _ = json.Marshal(back)
	return string(data)
}

// TestNoCaseLost checks that every input of testdata/parser/readings.jsonl
// reads as each earlier build read it, but for the changes listed in
// changedReadings, each with its reason, and the readings the tables of
// newShapes decide.
func TestNoCaseLost(t *testing.T) {
	data, err := os.ReadFile("../testdata/parser/readings-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var sets map[string]readingsTools
	if err := json.Unmarshal(data, &sets); err != nil {
		t.Fatal(err)
	}
	parsers := map[string]*parser.Parser{"none": parser.New(nil)}
	for name, ts := range sets {
		parsers[name] = parser.New(ts)
	}
	f, err := os.Open("../testdata/parser/readings.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	used := map[string]bool{}
	decided := decidedReadings(t)
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Tools     string
			Text      string
			Truncated bool
			Previous  []parser.PastStep
			Release   json.RawMessage `json:"201d578"`
			Wave      json.RawMessage `json:"49bef0a"`
			Round     json.RawMessage `json:"92cf645"`
			Latest    json.RawMessage `json:"2e78e25"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		p := parsers[c.Tools]
		if p == nil {
			t.Fatalf("line %d: no tool set %q", n, c.Tools)
		}
		st, perr := p.ParseWith(c.Text, parser.Options{Truncated: c.Truncated, Previous: c.Previous})
		got := readingOf(t, st, perr)
		for _, was := range []struct {
			build   string
			reading json.RawMessage
		}{{"201d578", c.Release}, {"49bef0a", c.Wave}, {"92cf645", c.Round}, {"2e78e25", c.Latest}} {
			if was.reading == nil {
				continue
			}
			var v any
			if err := json.Unmarshal(was.reading, &v); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			if want := canonicalJSON(t, v); got != want {
				change, listed := changedReadings[c.Text]
				if !listed {
					change, listed = decided[c.Text]
				}
				switch {
				case !listed:
					t.Errorf("line %d (%s tools): %q\nreads %s\n%s read %s", n, c.Tools, c.Text, got, was.build, want)
				case canonicalJSON(t, jsonValue(t, change.now)) != got:
					t.Errorf("line %d: %q reads %s, not %s as changedReadings says", n, c.Text, got, change.now)
				default:
					used[c.Text] = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no readings")
	}
	for text := range changedReadings {
		if !used[text] {
			t.Errorf("changedReadings lists %q, which reads as before: drop it", text)
		}
	}
}

func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}
