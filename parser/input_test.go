package parser_test

import (
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// Arguments written as Python values, as agent frameworks that evaluate
// them ask for: tuples, dicts with Python's literals and comments, and
// None for no input.

func TestATupleIsItsElementsAsArguments(t *testing.T) {
	runCases(t, []parseCase{
		{"a string in parentheses", "Action: web_search\nAction Input: (\"Lost keys found under sofa.\")", action("", "web_search", obj{"query": "Lost keys found under sofa."})},
		{"a one-element tuple with a comma in its string", "Action: web_search\nAction Input: (\"Once upon a time, there\",)", action("", "web_search", obj{"query": "Once upon a time, there"})},
		{"a one-element tuple in single quotes", "Action: calculator\nAction Input: ('5.5',)", action("", "calculator", obj{"expression": "5.5"})},
		{"a longer tuple is the positional arguments", "Action: web_search\nAction Input: (\"zig\", 3)", action("", "web_search", obj{"query": "zig", "max_results": 3.0})},
		{"a tuple longer than the arguments goes onto the primary one", "Action: web_search\nAction Input: (\"a\", \"b\", \"c\")", action("", "web_search", obj{"query": []any{"a", "b", "c"}})},
		{"a tuple for a tool the parser does not know", "Action: lookup\nAction Input: ('Ada', 'Lovelace')", action("", "lookup", obj{"input": []any{"Ada", "Lovelace"}})},
		{"a tuple holding a dict", "Action: web_search\nAction Input: ({'query': 'zig', 'max_results': 2},)", action("", "web_search", obj{"query": "zig", "max_results": 2.0})},
		{"a tuple as a JSON call's input", `{"action": "web_search", "action_input": "('zig',)"}`, action("", "web_search", obj{"query": "zig"})},
		{"positional arguments of an inline call", "Action: web_search(\"zig\", 3)", action("", "web_search", obj{"query": "zig", "max_results": 3.0})},
		{"positional and keyword arguments of an inline call", "Action: web_search('zig', max_results=3)", action("", "web_search", obj{"query": "zig", "max_results": 3.0})},
		{"a one-element tuple in an inline call", "Action: calculator('5.5',)", action("", "calculator", obj{"expression": "5.5"})},
	})
}

func TestParenthesesThatAreNoTupleStay(t *testing.T) {
	runCases(t, []parseCase{
		{"an expression in parentheses", "Action: calculator\nAction Input: (2+2)", action("", "calculator", obj{"expression": "(2+2)"})},
		{"an expression that opens with parentheses", "Action: calculator\nAction Input: (3+4)*5", action("", "calculator", obj{"expression": "(3+4)*5"})},
		{"a number in parentheses", "Action: calculator\nAction Input: (5)", action("", "calculator", obj{"expression": "(5)"})},
		{"numbers in parentheses are a tuple only with a comma", "Action: calculator\nAction Input: (1, 2)", action("", "calculator", obj{"expression": []any{1.0, 2.0}})},
		{"prose in parentheses", "Action: web_search\nAction Input: (the zig language)", action("", "web_search", obj{"query": "(the zig language)"})},
		{"quoted words and prose", "Action: web_search\nAction Input: (\"zig\" language)", action("", "web_search", obj{"query": "(\"zig\" language)"})},
	})
}

func TestPythonDicts(t *testing.T) {
	runCases(t, []parseCase{
		{"None, True, False and single quotes", "Action: web_search\nAction Input: {'query': 'x', 'limit': None, 'safe': True, 'raw': False}",
			action("", "web_search", obj{"query": "x", "limit": nil, "safe": true, "raw": false})},
		{"comments after the members", "Action: web_search\nAction Input: {\n  'query': 'x',  # the query\n  'max_results': None  # the default\n}",
			action("", "web_search", obj{"query": "x", "max_results": nil})},
		{"a hash inside a string is no comment", "Action: web_search\nAction Input: {'query': 'C# generics', 'max_results': 2}",
			action("", "web_search", obj{"query": "C# generics", "max_results": 2.0})},
	})
}

func TestNoneIsNoInput(t *testing.T) {
	runCases(t, []parseCase{
		{"None with a comment", "Action: get_time\nAction Input: None  # no arguments", action("", "get_time", obj{})},
		{"None with commentary after a blank line", "Action: get_time\nAction Input: None\n\nI will wait for the time.", action("", "get_time", obj{})},
		{"an empty tuple", "Action: get_time\nAction Input: ()", action("", "get_time", obj{})},
	})
	runErrors(t, parser.New(builtins), []errCase{
		{"None for a tool that needs an argument", "Action: web_search\nAction Input: None\n\nI will wait for the results.", parser.ErrNoActionInput, `"query"`},
		{"None in a tuple for a tool that needs an argument", "Action: web_search\nAction Input: (None,)", parser.ErrNoActionInput, `"query"`},
	})
}
