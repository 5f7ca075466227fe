package parser_test

import (
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// wordCalls are calls written in words, each the last thing the reply
// says: 2e78e25 read them as plans, or as final answers.
var wordCalls = shapeTable{why: "a call written in words names a tool and an input in quotes", tools: builtins, cases: []parseCase{
	{"a tool marked as one, with an input", "I will use the tool `get_rate` with input `EUR to JPY`.",
		action("I will use the tool `get_rate` with input `EUR to JPY`.", "get_rate", obj{"input": "EUR to JPY"})},
	{"in a thought's last clause", "Thought: this is arithmetic, so I'll use the calculator tool with the input `9 ** 3`.",
		action("this is arithmetic, so I'll use the calculator tool with the input `9 ** 3`.", "calculator", obj{"expression": "9 ** 3"})},
	{"the input named as the tool's argument", "Let me use web_search with the query \"zig language\".",
		action("Let me use web_search with the query \"zig language\".", "web_search", obj{"query": "zig language"})},
	{"in curly quotes, after a participle", "Using the `web_search` tool with input “zig”.",
		action("Using the `web_search` tool with input “zig”.", "web_search", obj{"query": "zig"})},
	{"then words of waiting", "I'll call `calculator` with `2**10`. I will wait for the result.",
		action("I'll call `calculator` with `2**10`.", "calculator", obj{"expression": "2**10"})},
	{"a name of two words", "Now I'll use web search with `zig`.", action("Now I'll use web search with `zig`.", "web_search", obj{"query": "zig"})},
	{"an object as the input", "I will use the tool `get_rate` with input {\"from\": \"EUR\", \"to\": \"JPY\"}.",
		action("I will use the tool `get_rate` with input {\"from\": \"EUR\", \"to\": \"JPY\"}.", "get_rate", obj{"from": "EUR", "to": "JPY"})},
	{"another of the tool's arguments", "I should use the http_request tool with the method `HEAD`.",
		action("I should use the http_request tool with the method `HEAD`.", "http_request", obj{"method": "HEAD"})},
	{"before a made-up observation", "I will use the calculator tool with input `2+2`.\nObservation: 4",
		action("I will use the calculator tool with input `2+2`.", "calculator", obj{"expression": "2+2"})},
	{"the input after a colon", "I will use the calculator tool with the input: 9 ** 3",
		action("I will use the calculator tool with the input: 9 ** 3", "calculator", obj{"expression": "9 ** 3"})},
	{"the input after a colon, to the end of its line", "Thought: I'll use web_search with the query: population of Tokyo.\nObservation: 14 million",
		action("I'll use web_search with the query: population of Tokyo.", "web_search", obj{"query": "population of Tokyo"})},
	{"as an Action's value", "Thought: add them\nAction: I will use the calculator tool with input `2+2`",
		action("add them", "calculator", obj{"expression": "2+2"})},
}}

// wordCallsRegistered are calls in words of a registered tool, its name
// unmarked.
var wordCallsRegistered = shapeTable{why: wordCalls.why, tools: fakeTools{"get_rate": {"pair"}}, cases: []parseCase{
	{"a registered name alone", "I will use get_rate with input `EUR to JPY`.",
		action("I will use get_rate with input `EUR to JPY`.", "get_rate", obj{"pair": "EUR to JPY"})},
	{"a registered name in another case", "So I'll use Get_Rate with input `EUR to JPY`.",
		action("So I'll use Get_Rate with input `EUR to JPY`.", "get_rate", obj{"pair": "EUR to JPY"})},
}}

// wordCallsNoRegistry is a call in words read by a parser that knows no
// tools: the name marked as a tool's is the call's.
var wordCallsNoRegistry = shapeTable{why: wordCalls.why, cases: []parseCase{
	{"without a registry", "Thought: I need the rate. I will use the tool `get_rate` with input `EUR to JPY`.",
		action("I need the rate. I will use the tool `get_rate` with input `EUR to JPY`.", "get_rate", obj{"input": "EUR to JPY"})},
}}

func TestACallWrittenInWordsIsTheCall(t *testing.T) {
	wordCalls.run(t)
	wordCallsRegistered.run(t)
	wordCallsNoRegistry.run(t)
}

func TestWordsThatMakeNoCallStayWhatTheyWere(t *testing.T) {
	runErrors(t, parser.New(builtins), []errCase{
		{"a tool and no input", "I could use the search tool later.", parser.ErrNotAnAnswer, "says what you will do"},
		{"an offer, not a plan", "I could use the tool `web_search` with input `zig`.", parser.ErrNotAnAnswer, "says what you will do"},
		{"a name neither registered nor marked", "I will use get_rate with input `EUR to JPY`.", parser.ErrNotAnAnswer, "says what you will do"},
		{"a library, not a tool", "I will use the `pandas` library with input `df`.", parser.ErrNotAnAnswer, "says what you will do"},
		{"no input in quotes", "I will use the calculator tool with the numbers above.", parser.ErrNotAnAnswer, "says what you will do"},
		{"an Action that names no tool after it", "Thought: I'll use the calculator tool with input `2+2`.\nAction: None", parser.ErrNoToolName, "None"},
		{"a step of a numbered plan", "1. **Action:** I will use the calculator tool with input `2+2`", parser.ErrNoToolName, "names no tool"},
	})
	runCases(t, []parseCase{
		{"words to the reader", "You can use the calculator tool with the input `9 ** 3`.", final("", "You can use the calculator tool with the input `9 ** 3`.")},
		{"a plan on a condition", "If needed, I will use the calculator tool with input `2+2`.", final("", "If needed, I will use the calculator tool with input `2+2`.")},
		{"a call already made", "I used the calculator tool with input `2+2` and got 4.", final("", "I used the calculator tool with input `2+2` and got 4.")},
		{"more said after it", "I will use the calculator tool with input `2+2`. The result is 4.", final("", "I will use the calculator tool with input `2+2`. The result is 4.")},
		{"a colon after words that name no input", "I will use the calculator tool with the following numbers: 2, 3 and 4.",
			final("", "I will use the calculator tool with the following numbers: 2, 3 and 4.")},
		{"an Action below it", "Thought: I'll use the calculator tool with input `2+2`.\nAction: web_search\nAction Input: zig",
			action("I'll use the calculator tool with input `2+2`.", "web_search", obj{"query": "zig"})},
		{"a final answer below it", "Thought: I'll use the calculator tool with input `2+2`.\nFinal Answer: 4", final("I'll use the calculator tool with input `2+2`.", "4")},
	})
}
