package parser_test

import (
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// A call written as markup after an Action label gives the tool named
// inside, whatever the tags around it and however the lines break.

func TestMarkupOnTheActionLine(t *testing.T) {
	invoke := "<invoke>\n<tool_name>search_docs</tool_name>\n<parameters>\n<query>clarify</query>\n</parameters>\n</invoke>"
	want := action("check the docs", "search_docs", obj{"query": "clarify"})
	runCases(t, []parseCase{
		{"Claude's older invoke on many lines", "Thought: check the docs\nAction: " + invoke, want},
		{"the invoke below the label", "Thought: check the docs\nAction:\n" + invoke, want},
		{"in a wrapper of calls", "Thought: check the docs\nAction: <function_calls>\n" + invoke + "\n</function_calls>", want},
		{"an invoke with a name attribute on many lines", "Thought: check the docs\nAction: <invoke name=\"search_docs\">\n<parameter name=\"query\">clarify</parameter>\n</invoke>", want},
		{"headings in lower case with colons", "## thought:\ncheck the docs\n## action:\n" + invoke, want},
		{"headings in lower case without colons", "## thought\ncheck the docs\n## action\n" + invoke, want},
		{"headings in capitals without colons", "## Thought\ncheck the docs\n## Action\n" + invoke, want},
		{"a JSON call in a tag on the lines below", "Thought: check the docs\nAction: <tool_call>\n{\"name\": \"search_docs\", \"arguments\": {\"query\": \"clarify\"}}\n</tool_call>", want},
		{"a JSON call in a tag below the label", "Thought: check the docs\nAction:\n<tool_call>\n{\"name\": \"search_docs\", \"arguments\": {\"query\": \"clarify\"}}\n</tool_call>", want},
		{"an invoke in an XML fence", "## thought\ncheck the docs\n## action\n```xml\n" + invoke + "\n```", want},
		{"a tag of the tool's name on many lines", "Thought: check the docs\nAction: <search_docs>\n<query>clarify</query>\n</search_docs>", want},
	})
}

// weatherTools are the tools of a cookbook whose prompt has the model
// call a tool in a code fence tagged with the tool's name.
var weatherTools = fakeTools{"weather": {"city"}, "web_search": {"query", "max_results"}}

// toolFences are fences tagged with a registered tool's name, each a
// call: 2e78e25 read them as code, or as answers.
var toolFences = shapeTable{why: "a fence whose info string is a registered tool's name calls the tool", tools: weatherTools, cases: []parseCase{
	{"a fence alone", "```weather\nLisbon\n```", action("", "weather", obj{"city": "Lisbon"})},
	{"after a sentence", "I'll check the weather there.\n```weather\nLisbon\n```", action("I'll check the weather there.", "weather", obj{"city": "Lisbon"})},
	{"after a thought", "Thought: I need the weather.\n```weather\nLisbon\n```\n", action("I need the weather.", "weather", obj{"city": "Lisbon"})},
	{"an object inside", "```weather\n{\"city\": \"Lisbon\"}\n```", action("", "weather", obj{"city": "Lisbon"})},
	{"the name in another case", "```Weather\nLisbon\n```", action("", "weather", obj{"city": "Lisbon"})},
	{"a made-up output after it", "```weather\nLisbon\n```\n```tool_output\n21 °C\n```", action("", "weather", obj{"city": "Lisbon"})},
	{"left open", "Let me look.\n```weather\nLisbon", action("Let me look.", "weather", obj{"city": "Lisbon"})},
	{"after a fence of code", "The code was:\n```python\nprint(1)\n```\nNow the weather.\n```weather\nLisbon\n```",
		action("The code was:\n```python\nprint(1)\n```\nNow the weather.", "weather", obj{"city": "Lisbon"})},
	{"below an Action label", "Thought: I need the weather.\nAction:\n```weather\nLisbon\n```", action("I need the weather.", "weather", obj{"city": "Lisbon"})},
}}

func TestAFenceTaggedWithAToolsNameCallsIt(t *testing.T) {
	toolFences.run(t)
}

func TestAFenceTaggedOtherwiseStaysWhatItWas(t *testing.T) {
	p := parser.New(weatherTools)
	runErrors(t, p, []errCase{
		{"a language's name", "```python\nprint(1)\n```", parser.ErrNotAnAnswer, "only code"},
		{"JSON", "```json\n{\"city\": \"Lisbon\"}\n```", parser.ErrNotAnAnswer, "only code"},
		{"a word that names no tool", "```lisbon\nweather\n```", parser.ErrNotAnAnswer, "only code"},
	})
	runErrors(t, parser.New(nil), []errCase{
		{"without a registry", "```weather\nLisbon\n```", parser.ErrNotAnAnswer, "only code"},
	})
	runCasesWith(t, p, parser.Options{}, []parseCase{
		{"more said after it", "```weather\nLisbon\n```\nIt is sunny in Lisbon today.", final("", "```weather\nLisbon\n```\nIt is sunny in Lisbon today.")},
		{"shown to the reader", "You can ask for it so:\n```weather\nLisbon\n```", final("", "You can ask for it so:\n```weather\nLisbon\n```")},
		{"presented to the reader", "Here is the call:\n```weather\nLisbon\n```", final("", "Here is the call:\n```weather\nLisbon\n```")},
		{"in a final answer", "Final Answer: Ask so:\n```weather\nLisbon\n```", final("", "Ask so:\n```weather\nLisbon\n```")},
		{"inside a line", "Run ```weather Lisbon``` now.", final("", "Run ```weather Lisbon``` now.")},
		{"an Action's input", "Action: web_search\nAction Input:\n```weather\nLisbon forecast\n```", action("", "web_search", obj{"query": "Lisbon forecast"})},
	})
}
