package parser_test

import (
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// The value of an Action label is a tool's name, however many words it
// has, when an input follows it; only a refusal, a placeholder or a
// sentence that states a plan is not one.

func TestANameWithAnInputIsACall(t *testing.T) {
	cases := []parseCase{
		{"a name of several words, as crewAI writes them", "Thought: look it up\nAction: Search the internet\nAction Input: zig",
			action("look it up", "Search the internet", obj{"input": "zig"})},
		{"a name with an apostrophe", "Action: Read a file's content\nAction Input: notes.md", action("", "Read a file's content", obj{"input": "notes.md"})},
		{"a name of several words with named arguments", "Action: Ask question to coworker\nAction Input: {\"question\": \"why?\", \"coworker\": \"Writer\"}",
			action("", "Ask question to coworker", obj{"question": "why?", "coworker": "Writer"})},
		{"an imperative phrase with an input", "Action: Perform the addition\nAction Input: 2+2", action("", "Perform the addition", obj{"input": "2+2"})},
		{"a markdown-escaped registered name", "Action: web\\_search\nAction Input: zig", action("", "web_search", obj{"query": "zig"})},
		{"a markdown-escaped name of no registered tool", "Action: get\\_weather\nAction Input: Oslo", action("", "get_weather", obj{"input": "Oslo"})},
		{"a markdown-escaped name in an inline call", "Action: web\\_search(zig)", action("", "web_search", obj{"query": "zig"})},
		{"a generic word used with arguments", "Action: tool\nAction Input: {\"pages\": [\"x\"]}", action("", "tool", obj{"pages": []any{"x"}})},
		{"a placeholder-like word in an inline call", "Thought: I need a tool.\nAction: xxx ({\"q\": \"y\"})", action("I need a tool.", "xxx", obj{"q": "y"})},
		{"a placeholder-like word with a text input", "Action: function\nAction Input: zig", action("", "function", obj{"input": "zig"})},
		{"a placeholder-like word whose input writes the call again", "Action: tool: tool(zig)", action("", "tool", obj{"input": "zig"})},
		{"a phrase with an empty object, a call with no arguments", "Action: List files in directory\nAction Input: {}", action("", "List files in directory", obj{})},
		{"a phrase with None, a call with no arguments", "Action: List files in directory\nAction Input: None", action("", "List files in directory", obj{})},
		// Longer than names are, but an input follows and no plan is
		// stated: 201d578 read a call, and so does the parser.
		{"a long phrase with an input", "Action: Search the web for the latest population figures of every country in Europe\nAction Input: zig",
			action("", "Search the web for the latest population figures of every country in Europe", obj{"input": "zig"})},
	}
	runCases(t, cases)
	runCasesWith(t, parser.New(nil), parser.Options{}, cases[:4])
}

func TestWhatNamesNoToolStaysSo(t *testing.T) {
	for _, p := range []*parser.Parser{parser.New(builtins), parser.New(nil)} {
		runErrors(t, p, []errCase{
			{"a refusal with an input", "Action: None needed\nAction Input: zig", parser.ErrNoToolName, "None needed"},
			{"not applicable", "Action: N/A\nAction Input: zig", parser.ErrNoToolName, "N/A"},
			{"no tool", "Action: no tool\nAction Input: zig", parser.ErrNoToolName, "no tool"},
			{"a refusal in Spanish", "Action: Ninguna herramienta\nAction Input: nada", parser.ErrNoToolName, "Ninguna"},
			{"a template variable", "Action: $TOOL_NAME\nAction Input: $INPUT", parser.ErrNoToolName, "$TOOL_NAME"},
			{"a placeholder that says it is a name", "Action: tool_name\nAction Input: zig", parser.ErrNoToolName, "tool_name"},
			{"a placeholder in brackets", "Action: [tool]\nAction Input: zig", parser.ErrNoToolName, "names no tool"},
			{"a generic word without an input", "Thought: x\nAction: tool", parser.ErrNoToolName, "tool"},
			// FuzzRoundTrip found that the call written again around no
			// input made a call that, rendered, read as none.
			{"a generic word whose input writes the call again with none", "Action: tool: tool( )", parser.ErrNoToolName, "tool"},
			{"a phrase without an input", "Thought: x\nAction: Search the internet for it", parser.ErrNoToolName, "Search the internet"},
			{"a plan with an input", "Action: I will search the web for it\nAction Input: zig", parser.ErrNoToolName, "I will search"},
			{"a plan after a sequencing word", "Action: Now let me look it up\nAction Input: zig", parser.ErrNoToolName, "let me"},
		})
	}
}

func TestARegisteredNameIsReadWholeWhateverItsWords(t *testing.T) {
	tools := fakeTools{
		"Gmail: Find Email":           {"query"},
		"Slack: Send Channel Message": {"text", "channel"},
		"I am feeling lucky":          {"query"},
		"No Code Builder":             {"spec"},
		"Search (beta)":               {"q"},
		"web_search":                  {"query"},
	}
	runCasesWith(t, parser.New(tools), parser.Options{}, []parseCase{
		{"a colon in the name, then an inline input", "Action: Gmail: Find Email: from:bob", action("", "Gmail: Find Email", obj{"query": "from:bob"})},
		{"a colon in the name, then brackets", "Action: Gmail: Find Email[from:bob]", action("", "Gmail: Find Email", obj{"query": "from:bob"})},
		{"a colon in the name, then keyword arguments", "Action: Gmail: Find Email(query=\"from:bob\")", action("", "Gmail: Find Email", obj{"query": "from:bob"})},
		{"a full-width colon in the name", "Action: Gmail：Find Email\nAction Input: from:bob", action("", "Gmail: Find Email", obj{"query": "from:bob"})},
		{"a dash for the colon", "Action: Gmail - Find Email\nAction Input: from:bob", action("", "Gmail: Find Email", obj{"query": "from:bob"})},
		{"the name of several words with named arguments", "Action: Slack: Send Channel Message\nAction Input: {\"channel\": \"#general\", \"text\": \"hi\"}",
			action("", "Slack: Send Channel Message", obj{"channel": "#general", "text": "hi"})},
		{"a name that opens as a plan", "Action: I am feeling lucky\nAction Input: zig", action("", "I am feeling lucky", obj{"query": "zig"})},
		{"a name that opens as a refusal", "Action: No Code Builder\nAction Input: a form", action("", "No Code Builder", obj{"spec": "a form"})},
		{"a name with brackets in it", "Action: Search (beta)\nAction Input: zig", action("", "Search (beta)", obj{"q": "zig"})},
		{"a name with brackets in it, then brackets", "Thought: x\nAction: Search (beta)[zig]", action("x", "Search (beta)", obj{"q": "zig"})},
	})
}

func TestTheNameOfAnUnknownToolAsItIsMeant(t *testing.T) {
	runCases(t, []parseCase{
		{"a name that ends in brackets keeps the closing one", "Action: Ask question to coworker (Editor)\nAction Input: {\"question\": \"why?\"}",
			action("", "Ask question to coworker (Editor)", obj{"question": "why?"})},
		{"a namespace before the name of no registered tool", "Action: functions.get_weather(city=\"Oslo\")", action("", "get_weather", obj{"city": "Oslo"})},
		{"Gemini's namespace in a JSON call", `{"name": "default_api.get_weather", "arguments": {"city": "Oslo"}}`, action("", "get_weather", obj{"city": "Oslo"})},
		{"brackets of an inline call stay outside the name", "Action: get_weather(Oslo)", action("", "get_weather", obj{"input": "Oslo"})},
	})
}
