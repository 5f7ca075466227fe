package parser_test

import "testing"

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
