package parser_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

func TestAReplyCutAtTheTokenLimit(t *testing.T) {
	p := parser.New(builtins)
	cut := parser.Options{Truncated: true}
	runErrorsWith(t, p, cut, []errCase{
		{"an answer is never taken", "Thought: done\nFinal Answer: Paris is the capital of France.", parser.ErrTruncated, "cut off"},
		{"an input cut in its JSON", "Thought: look\nAction: web_search\nAction Input: {\"query\": \"zi", parser.ErrTruncated, "shorter"},
		{"an input that runs to the end", "Action: shell\nAction Input: echo one\necho two", parser.ErrTruncated, "cut off"},
		{"text without labels", "Zig is a language that", parser.ErrTruncated, "cut off"},
		{"a reply cut inside its reasoning", "<think>I should search for", parser.ErrTruncated, "cut off"},
		{"a JSON final answer", `{"action": "Final Answer", "action_input": "Paris"}`, parser.ErrTruncated, "cut off"},
	})
	runCasesWith(t, p, cut, []parseCase{
		{"an action complete before a made-up observation", "Thought: look\nAction: web_search\nAction Input: zig\nObservation: Zig is", action("look", "web_search", obj{"query": "zig"})},
		{"an action complete before the next thought", "Action: calculator\nAction Input: 2+2\nThought: now I wait for the result and then I will", action("", "calculator", obj{"expression": "2+2"})},
	})
	// The same answer, not cut, is the answer.
	if st, err := p.ParseWith("Thought: done\nFinal Answer: Paris is the capital of France.", parser.Options{}); err != nil || st.FinalAnswer == "" {
		t.Errorf("an answer not cut: got %+v, %v", st, err)
	}
}

func TestAReplyThatFirstRepeatsTheStep(t *testing.T) {
	p := parser.New(builtins)
	search := parser.Step{Kind: parser.KindAction, Thought: "look it up", Action: "web_search", Args: obj{"query": "zig"}}
	add := parser.Step{Kind: parser.KindAction, Action: "calculator", Args: obj{"expression": "2+2"}}
	prev := parser.Options{Previous: []parser.PastStep{{Step: search, Observation: "Zig is a general-purpose programming language."}}}
	copied := "Thought: look it up\nAction: web_search\nAction Input: {\"query\":\"zig\"}\nObservation: Zig is a general-purpose programming language.\n"
	runCasesWith(t, p, prev, []parseCase{
		{"the copy, then an answer", copied + "Thought: I know it now.\nFinal Answer: Zig is a language.", final("I know it now.", "Zig is a language.")},
		{"the copy, then a new action", copied + "Thought: now its age\nAction: web_search\nAction Input: zig release year", action("now its age", "web_search", obj{"query": "zig release year"})},
		{"the copy with the observation's line breaks changed", "Action: web_search\nAction Input: zig\nObservation: Zig is a general-purpose\nprogramming language.\nFinal Answer: A language.", final("", "A language.")},
		{"the copy with the note the loop added", "Action: web_search\nAction Input: zig\nObservation: Zig is a general-purpose programming language.\n(2 steps left before you must give your final answer.)\nFinal Answer: A language.", final("", "A language.")},
		{"the copy, then an answer without labels", "Action: web_search\nAction Input: {\"query\": \"zig\"}\nObservation: Zig is a general-purpose programming language.\nZig is a language.", final("", "Zig is a language.")},
		{"the same call with another observation is the call", "Action: web_search\nAction Input: zig\nObservation: Zig is a fish.\nFinal Answer: A fish.", action("", "web_search", obj{"query": "zig"})},
		{"the copy alone is the call", copied, action("look it up", "web_search", obj{"query": "zig"})},
		{"a call of other arguments is the call", "Action: web_search\nAction Input: zag\nObservation: Zig is a general-purpose programming language.\nFinal Answer: A language.", action("", "web_search", obj{"query": "zag"})},
	})
	two := parser.Options{Previous: append([]parser.PastStep{{Step: add, Observation: "4"}}, prev.Previous...)}
	runCasesWith(t, p, two, []parseCase{
		{"copies of two steps, then an answer", "Action: calculator\nAction Input: 2+2\nObservation: 4\n" + copied + "Final Answer: 4, and Zig is a language.", final("", "4, and Zig is a language.")},
	})
	// Without the previous step the parser cannot tell a copy from a
	// call with a made-up observation: the call wins, as always.
	if st, err := p.Parse(copied + "Final Answer: Zig is a language."); err != nil || st.Kind != parser.KindAction {
		t.Errorf("without options: got %+v, %v; want the call", st, err)
	}
}

func TestParseIsParseWithNoOptions(t *testing.T) {
	p := parser.New(builtins)
	for _, text := range []string{"Thought: add\nAction: calculator\nAction Input: 2+2", "Final Answer: 4", "Yes", ""} {
		a, aerr := p.Parse(text)
		b, berr := p.ParseWith(text, parser.Options{})
		if !reflect.DeepEqual(a, b) || fmt.Sprint(aerr) != fmt.Sprint(berr) {
			t.Errorf("%q: Parse gives %+v, %v; ParseWith %+v, %v", text, a, aerr, b, berr)
		}
	}
}
