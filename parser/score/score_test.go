package score_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser/score"
)

// searchTools are a search tool with a schema and a calculator known by
// name alone.
func searchTools(t *testing.T) *score.Tools {
	t.Helper()
	tools, err := score.NewTools(
		score.Tool{Name: "web_search", InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"query": map[string]any{"type": "string"}, "max_results": map[string]any{"type": "integer"}},
			"required":   []any{"query"},
		}},
		score.Tool{Name: "Calculator"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func line(text string, expect any) string {
	b, _ := json.Marshal(map[string]any{"id": "x", "text": text, "expect": expect})
	return string(b)
}

func TestScoreComparesEachKindOfLabel(t *testing.T) {
	tests := []struct {
		name string
		line string
		pass bool
	}{
		{"an action and a string input on the primary argument", line("Action: web_search\nAction Input: zig", map[string]any{"action": "web_search", "input": "zig"}), true},
		{"a string input on the only argument of a tool known by name", line("Action: Calculator\nAction Input: 2+2", map[string]any{"action": "Calculator", "input": "2+2"}), true},
		{"an object input compared as JSON values", line(`Action: web_search`+"\nAction Input: {\"query\": \"zig\", \"max_results\": 3}", map[string]any{"action": "web_search", "input": map[string]any{"max_results": 3, "query": "zig"}}), true},
		{"a string input that holds an object", line(`Action: web_search`+"\nAction Input: {'query': 'zig'}", map[string]any{"action": "web_search", "input": `{"query": "zig"}`}), true},
		{"an action without an input to compare", line("Action: web_search\nAction Input: anything", map[string]any{"action": "web_search"}), true},
		{"an action name in another case", line("Action: calculator\nAction Input: 1", map[string]any{"action": "calculator"}), true},
		{"another action fails", line("Action: Calculator\nAction Input: 1", map[string]any{"action": "web_search"}), false},
		{"another input fails", line("Action: web_search\nAction Input: zag", map[string]any{"action": "web_search", "input": "zig"}), false},
		{"an object input with another value fails", line("Action: web_search\nAction Input: {\"query\": \"zig\", \"max_results\": 4}", map[string]any{"action": "web_search", "input": map[string]any{"query": "zig", "max_results": 3}}), false},
		{"a string input against an object of two arguments fails", line("Action: web_search\nAction Input: {\"query\": \"zig\", \"max_results\": 4}", map[string]any{"action": "web_search", "input": "zig"}), false},
		{"a final answer", line("Thought: done\nFinal Answer: 42", map[string]any{"final_answer": "42"}), true},
		{"another final answer fails", line("Final Answer: 41", map[string]any{"final_answer": "42"}), false},
		{"a final answer's start", line("Final Answer: Zig is a language.", map[string]any{"final_answer_prefix": "Zig is"}), true},
		{"a final answer that starts otherwise fails", line("Final Answer: Go is a language.", map[string]any{"final_answer_prefix": "Zig is"}), false},
		{"an action where an answer is labelled fails", line("Action: web_search\nAction Input: zig", map[string]any{"final_answer": "zig"}), false},
		{"a parse error where one is labelled", line("Thought: hmm", map[string]any{"unparseable": true}), true},
		{"a step where a parse error is labelled fails", line("Final Answer: 4", map[string]any{"unparseable": true}), false},
		{"a parse error where an answer is labelled fails", line("Thought: hmm", map[string]any{"final_answer": "4"}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := score.Read(strings.NewReader(tt.line))
			if err != nil || len(c.Cases) != 1 {
				t.Fatalf("Read: %v, %+v", err, c)
			}
			rep := c.Score(searchTools(t))
			if pass := rep.Passed == 1; pass != tt.pass || rep.Total != 1 {
				t.Errorf("passed %d of %d, want pass=%v; failures %+v", rep.Passed, rep.Total, tt.pass, rep.Failures)
			}
			if !tt.pass && (len(rep.Failures) != 1 || rep.Failures[0].Reason == "" || rep.Failures[0].Line != 1) {
				t.Errorf("failures %+v: want one, with a reason and its line", rep.Failures)
			}
		})
	}
}

func TestAMalformedLineIsReportedAndTheRestScored(t *testing.T) {
	corpus := strings.Join([]string{
		line("Final Answer: 4", map[string]any{"final_answer": "4"}),
		`not json`,
		``,
		`{"id": 3, "expect": {"final_answer": "4"}}`,
		line("Final Answer: 4", map[string]any{"final_answer": "4", "unparseable": true}),
		line("Final Answer: 4", map[string]any{"answer": "4"}),
		line("Final Answer: 4", map[string]any{"input": "4"}),
		line("Action: x\nAction Input: 1", map[string]any{"action": "x", "input": 1}),
		`{"text": "Final Answer: 4"}`,
		line("Action: Calculator\nAction Input: 1", map[string]any{"action": "Calculator"}),
	}, "\n")
	c, err := score.Read(strings.NewReader(corpus))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, m := range c.Malformed {
		lines = append(lines, m.Line)
		if !errors.Is(m.Err, score.ErrLine) || !strings.Contains(m.Error(), "line ") {
			t.Errorf("line %d: %v does not say it is not a labelled reply, with its line", m.Line, m.Err)
		}
	}
	if want := []int{2, 4, 5, 6, 7, 8, 9}; !equalInts(lines, want) {
		t.Errorf("malformed lines %v, want %v", lines, want)
	}
	rep := c.Score(nil)
	if rep.Total != 2 || rep.Passed != 2 || len(rep.Malformed) != 7 {
		t.Errorf("report %+v: want 2 of 2 scored and 7 malformed", rep)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestALineMayGiveWhatTheLoopKnew(t *testing.T) {
	copied := "Action: web_search\nAction Input: zig\nObservation: Zig is a language.\nFinal Answer: A language."
	corpus := strings.Join([]string{
		`{"id": "cut", "text": "Final Answer: Paris is", "truncated": true, "expect": {"unparseable": true}}`,
		`{"id": "copy", "text": ` + quote(copied) + `, "previous": [{"action": "web_search", "input": "zig", "observation": "Zig is a language."}], "expect": {"final_answer": "A language."}}`,
		`{"id": "no-copy", "text": ` + quote(copied) + `, "expect": {"action": "web_search", "input": "zig"}}`,
	}, "\n")
	c, err := score.Read(strings.NewReader(corpus))
	if err != nil || len(c.Malformed) > 0 {
		t.Fatalf("Read: %v, %v", err, c.Malformed)
	}
	if rep := c.Score(searchTools(t)); rep.Passed != 3 {
		t.Errorf("passed %d of 3: %+v", rep.Passed, rep.Failures)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestTheReportInJSON(t *testing.T) {
	c, _ := score.Read(strings.NewReader(line("Final Answer: 5", map[string]any{"final_answer": "4"}) + "\nnot json\n"))
	b, err := json.Marshal(c.Score(nil))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Total, Passed int
		Accuracy      float64
		Failures      []struct {
			Line   int
			ID     string
			Reason string
			Got    struct{ Kind, FinalAnswer string }
		}
		Malformed []struct {
			Line  int
			Error string
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Total != 1 || got.Passed != 0 || got.Accuracy != 0 || len(got.Failures) != 1 || got.Failures[0].ID != "x" ||
		got.Failures[0].Got.Kind != "final" || len(got.Malformed) != 1 || got.Malformed[0].Line != 2 || got.Malformed[0].Error == "" {
		t.Errorf("report %s", b)
	}
}

// TestTheShippedCorpus scores testdata/parser/score.jsonl, with the tools
// of testdata/parser/tools.json: every case of it must read as labelled.
func TestTheShippedCorpus(t *testing.T) {
	data, err := os.ReadFile("../../testdata/parser/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	list, err := score.ReadTools(data)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := score.NewTools(list...)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../testdata/parser/score.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := score.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Score(tools)
	for _, m := range rep.Malformed {
		t.Errorf("malformed: %v", m)
	}
	for _, fl := range rep.Failures {
		t.Errorf("line %d (%s): %s; got %+v %s", fl.Line, fl.ID, fl.Reason, fl.Got, fl.Error)
	}
	if rep.Total < 30 {
		t.Errorf("only %d cases", rep.Total)
	}
}
