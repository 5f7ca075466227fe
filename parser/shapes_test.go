package parser_test

import (
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// The shapes below each failed on 92cf645: two that it had lost since
// 49bef0a, and three that no build read. Each table holds the shape in
// several clothes, and the neighbours it must not take in.

func TestACommaSeparatedInputOutsideParenthesesIsText(t *testing.T) {
	cases := []parseCase{
		{"after a colon, for a tool the parser does not know", "Action: convert: 3.28084, 100",
			action("", "convert", obj{"input": "3.28084, 100"})},
		{"after a colon, for a registered tool", "Thought: add\nAction: calculator: 2, 3",
			action("add", "calculator", obj{"expression": "2, 3"})},
		{"after a registered name and a space", "Action: web_search zig, 3", action("", "web_search", obj{"query": "zig, 3"})},
		{"in the ReAct paper's brackets", "Action: lookup[3.28084, 100]", action("", "lookup", obj{"input": "3.28084, 100"})},
		{"on an Action Input line", "Action: convert\nAction Input: 3.28084, 100", action("", "convert", obj{"input": "3.28084, 100"})},
		// The Python reading stays for parentheses.
		{"a call's positional arguments", "Action: web_search('zig', 3)", action("", "web_search", obj{"query": "zig", "max_results": 3.0})},
		{"a tuple on an Action Input line", "Action: convert\nAction Input: (3.28084, 100)", action("", "convert", obj{"input": []any{3.28084, 100.0}})},
		{"keyword arguments after a colon", "Action: web_search: query='zig', max_results=2", action("", "web_search", obj{"query": "zig", "max_results": 2.0})},
	}
	runCases(t, cases)
	runCasesWith(t, parser.New(nil), parser.Options{}, []parseCase{
		{"without a registry", "Action: convert: 3.28084, 100", action("", "convert", obj{"input": "3.28084, 100"})},
		{"without a registry, after a space", "Action: search[Paris, France]", action("", "search", obj{"input": "Paris, France"})},
	})
}

func TestAFinalAnswerOnAnActionsLineIsAnError(t *testing.T) {
	runErrors(t, parser.New(builtins), []errCase{
		{"after an unknown name, with an input below", "Action: search Final Answer: the temperature\nAction Input: Sydney",
			parser.ErrNoToolName, `"Action: search" and "Final Answer:" on one line`},
		{"after an unknown name alone", "Thought: it is cold\nAction: search Final Answer: the temperature",
			parser.ErrNoToolName, "neither a call nor an answer"},
		{"after a registered name", "Thought: x\nAction: web_search Final Answer: the temperature",
			parser.ErrNoToolName, `"Action: web_search" and "Final Answer:"`},
		{"in bold after a name", "Action: web_search **Final Answer:** 13 °C", parser.ErrNoToolName, "on one line"},
		{"in another language", "Action: search Respuesta final: 13 °C", parser.ErrNoToolName, "on one line"},
	})
	runCases(t, []parseCase{
		{"words about the answer in a name stay words", "Action: web_search\nAction Input: what is the final answer: 42?",
			action("", "web_search", obj{"query": "what is the final answer: 42?"})},
		{"a label inside a call's brackets is its input", "Action: web_search[Final Answer: meaning]",
			action("", "web_search", obj{"query": "Final Answer: meaning"})},
		{"a final answer on its own line after an action of no tool", "Action: None\nFinal Answer: 13 °C", final("", "13 °C")},
	})
}

func TestAnUnclosedBracketCallIsTheCall(t *testing.T) {
	runCases(t, []parseCase{
		{"a question", "Action: search[what is the tallest mountain?", action("", "search", obj{"input": "what is the tallest mountain?"})},
		{"after a thought, for a registered tool", "Thought: I need it.\nAction: web_search[what is the tallest mountain?",
			action("I need it.", "web_search", obj{"query": "what is the tallest mountain?"})},
		{"a sentence with its full stop", "Action: lookup[The tallest mountain is Everest.", action("", "lookup", obj{"input": "The tallest mountain is Everest."})},
		{"with white space after it", "Action: search[Ada Lovelace's birth year  \n", action("", "search", obj{"input": "Ada Lovelace's birth year"})},
		{"an unclosed call in parentheses", "Action: calculator(2+2", action("", "calculator", obj{"expression": "2+2"})},
		{"an unclosed call with a quoted input", "Action: web_search(\"zig language\"", action("", "web_search", obj{"query": "zig language"})},
		{"a closed call keeps its input as it was", "Action: search[what is it?]", action("", "search", obj{"input": "what is it?"})},
	})
}

func TestAnActionInsideAThoughtIsNotTheAction(t *testing.T) {
	runCases(t, []parseCase{
		{"an Action on its own line follows", "Thought: I should reflect. Action: reflect on it, then search.\nAction: search[Sydney weather]",
			action("I should reflect. Action: reflect on it, then search.", "search", obj{"input": "Sydney weather"})},
		{"the words inside name a tool themselves", "Thought: I should reflect. Action: reflect\nAction: web_search\nAction Input: Sydney weather",
			action("I should reflect. Action: reflect", "web_search", obj{"query": "Sydney weather"})},
		{"with an input inside the thought too", "Thought: first Action: reflect Action Input: me\nAction: calculator\nAction Input: 2+2",
			action("first Action: reflect Action Input: me", "calculator", obj{"expression": "2+2"})},
		{"a thought of several lines", "Thought: a plan. Action: look around\nthen decide.\nAction: web_search\nAction Input: zig",
			action("a plan. Action: look around\nthen decide.", "web_search", obj{"query": "zig"})},
		// Without an Action on its own line, a step written on one line
		// stays the step.
		{"the step on one line", `Thought: I should look it up. Action: web_search Action Input: {"query": "zig"}`,
			action("I should look it up.", "web_search", obj{"query": "zig"})},
		{"a final answer before the next action", "Thought: known. Action: calculator Action Input: 1+1\nFinal Answer: 2\nAction: web_search",
			action("known.", "calculator", obj{"expression": "1+1"})},
	})
}

func TestAnUnclosedThinkThatHoldsTheWholeReply(t *testing.T) {
	runCases(t, []parseCase{
		{"the conversational agent's no-tool branch", "<think>The user asks about Sydney.\nThought: Do I need to use a tool? No\nAI: It is 13 °C in Sydney.",
			final("", "It is 13 °C in Sydney.")},
		{"the gate without its Thought label", "<think>\nThe user asks about Sydney.\nDo I need to use a tool? No\nAI: It is 13 °C in Sydney.",
			final("", "It is 13 °C in Sydney.")},
		{"the last of two gates", "<think>Do I need to use a tool? Yes\nwait, no.\nDo I need to use a tool? No\nAI: 13 °C.",
			final("", "13 °C.")},
		{"an action and its input", "<think>\nI need the weather.\nAction: web_search\nAction Input: Sydney weather\n",
			action("", "web_search", obj{"query": "Sydney weather"})},
		{"an action and its input, then a made-up observation", "<think>I need the weather.\nAction: web_search\nAction Input: {\"query\": \"Sydney weather\"}\nObservation:",
			action("", "web_search", obj{"query": "Sydney weather"})},
		{"a gate answered yes, then the call", "<think>\nThought: Do I need to use a tool? Yes\nAction: web_search\nAction Input: Sydney weather",
			action("Do I need to use a tool? Yes", "web_search", obj{"query": "Sydney weather"})},
		{"an action, an observation and the next step", "<think>Action: web_search\nAction Input: zig\nObservation: a language\nThought: more\nAction: calculator\nAction Input: 1+1",
			action("more", "calculator", obj{"expression": "1+1"})},
	})
	runErrors(t, parser.New(builtins), []errCase{
		{"a gate answered no with no answer after it", "<think>Do I need to use a tool? No\nI am not sure yet.", parser.ErrEmpty, "only reasoning"},
		{"an answer line after a gate answered yes", "<think>Do I need to use a tool? Yes\nAI: It is 13 °C.", parser.ErrEmpty, "only reasoning"},
	})
}
