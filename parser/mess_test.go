package parser_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// The tests below cover the kinds of mess real model replies hold, one
// table for each kind, with made-up texts.

func TestLabelsWithoutColons(t *testing.T) {
	runCases(t, []parseCase{
		{"each label alone on its line", "Thought\nI need to add.\nAction\ncalculator\nAction Input\n{\"expression\": \"1+1\"}",
			action("I need to add.", "calculator", obj{"expression": "1+1"})},
		{"in upper case and bold", "**THOUGHT**\nadd them\n**ACTION**\ncalculator\n**ACTION INPUT**\n2+2",
			action("add them", "calculator", obj{"expression": "2+2"})},
		{"markdown headings", "## Thought\nlook it up\n## Action\nweb_search\n## Action Input\nzig language",
			action("look it up", "web_search", obj{"query": "zig language"})},
		{"a final answer heading", "### Thought\nI know it.\n### Final Answer\nParis", final("I know it.", "Paris")},
		{"headings with colons in lower case", "## thought:\nsearch\n## action:\nweb_search\n## action input:\nzig", action("search", "web_search", obj{"query": "zig"})},
	})
}

func TestAWholeStepOnOneLine(t *testing.T) {
	runCases(t, []parseCase{
		{"thought, action and input", `Thought: I should look it up. Action: web_search Action Input: {"query": "zig"}`,
			action("I should look it up.", "web_search", obj{"query": "zig"})},
		{"thought and final answer", "Thought: I know this. Final Answer: 42", final("I know this.", "42")},
		{"bold labels", "**Thought:** add **Action:** calculator **Action Input:** 2+3", action("add", "calculator", obj{"expression": "2+3"})},
		{"all in lower case", "thought: add. action: calculator action input: 2+3", action("add.", "calculator", obj{"expression": "2+3"})},
		{"a lower-case label word inside a thought stays prose", "Thought: I will give the final answer: soon.\nAction: calculator\nAction Input: 1",
			action("I will give the final answer: soon.", "calculator", obj{"expression": "1"})},
		{"a capitalised label inside a word is not one", "Thought: see MyAction: x\nFinal Answer: y", final("see MyAction: x", "y")},
		{"Chinese labels on one line", "思考：需要计算 行动：calculator 行动输入：3*3", action("需要计算", "calculator", obj{"expression": "3*3"})},
		{"tool, then Input", "Action: web_search, Input: zig language", action("", "web_search", obj{"query": "zig language"})},
		{"numbered action with a made-up observation", "Action 2: web_search[zig] Observation 2: Zig is a language.", action("", "web_search", obj{"query": "zig"})},
		{"input with a made-up observation", `Action: web_search Action Input: {"query": "zig"} Observation: found`, action("", "web_search", obj{"query": "zig"})},
		{"a label inside a string of a JSON input is text", "Action: web_search Action Input: {\"query\": \"zig\\n0 Thought: 0\"}",
			action("", "web_search", obj{"query": "zig\n0 Thought: 0"})},
		{"a label after a JSON input with brackets in its strings still counts", `Thought: x Action: web_search Action Input: {"query": "a} b] Thought: c"} Observation: made up`,
			action("x", "web_search", obj{"query": "a} b] Thought: c"})},
		{"a key inside the input is not a label", `Action: http_request` + "\nAction Input: {\"url\": \"https://a.example\", \"Observation\": 1}", action("", "http_request", obj{"url": "https://a.example", "Observation": 1.0})},
	})
}

func TestOtherDialects(t *testing.T) {
	runCases(t, []parseCase{
		{"bracketed labels", "[THOUGHT]\nI need to add.\n[ACTION]\n{\"action\": \"calculator\", \"action_variables\": {\"expression\": \"1+2\"}}",
			action("I need to add.", "calculator", obj{"expression": "1+2"})},
		{"bracketed final answer", "[THOUGHT]\nI know it.\n[FINAL ANSWER]\nBerlin", final("I know it.", "Berlin")},
		{"bracketed labels with values on their lines", "[THOUGHT] add\n[ACTION] calculator\n[ACTION INPUT] 2*5", action("add", "calculator", obj{"expression": "2*5"})},
		{"escaped underscore in a label", "Thought: go\nAction: web_search\nAction\\_Input: zig", action("go", "web_search", obj{"query": "zig"})},
		{"a role name before an answer", "Assistant: The sum is 4.", final("", "The sum is 4.")},
		{"key: value lines as a list", "Action: web_search\nAction Input:\n- query: zig\n- max_results: 2", action("", "web_search", obj{"query": "zig", "max_results": 2.0})},
	})
}

func TestAGenericWordGluedToMarkupIsNoLabel(t *testing.T) {
	// Read as "Action: #" with the input "0", it would be a call; it is
	// one value, which names no tool.
	runErrors(t, parser.New(builtins), []errCase{
		{"a generic word glued to markup", "Action: #Args:0", parser.ErrNoToolName, `"Action: #Args:0"`},
	})
}

func TestLabelsInOtherLanguages(t *testing.T) {
	runCases(t, []parseCase{
		{"Spanish", "Pensamiento: hay que sumar\nAcción: calculator\nEntrada de acción: {\"expression\": \"2+2\"}", action("hay que sumar", "calculator", obj{"expression": "2+2"})},
		{"Spanish in upper case", "PENSAMIENTO: lo sé\nRESPUESTA FINAL: cuatro", final("lo sé", "cuatro")},
		{"French, with a space before the colon and an elision", "Pensée : chercher\nAction : web_search\nEntrée de l'action : zig", action("chercher", "web_search", obj{"query": "zig"})},
		{"German", "Gedanke: fertig\nEndgültige Antwort: vier", final("fertig", "vier")},
		{"Portuguese", "Pensamento: somar\nAção: calculator\nEntrada da ação: 1+1", action("somar", "calculator", obj{"expression": "1+1"})},
		{"Russian", "Мысль: готово\nОкончательный ответ: четыре", final("готово", "четыре")},
		{"Japanese", "思考: 計算する\n行動: calculator\n行動入力: 3*3", action("計算する", "calculator", obj{"expression": "3*3"})},
		{"Korean", "생각: 알았다\n최종 답변: 넷", final("알았다", "넷")},
		{"traditional Chinese", "思考：搜尋\n行動：web_search\n行動輸入：zig", action("搜尋", "web_search", obj{"query": "zig"})},
		{"a made-up observation in Spanish ends the step", "Acción: web_search\nEntrada de acción: zig\nObservación: Zig es un lenguaje", action("", "web_search", obj{"query": "zig"})},
		{"prose in another language that starts with a label's letters stays prose", "Pensé que era fácil.", final("", "Pensé que era fácil.")},
	})
}

func TestLabelsOutOfOrder(t *testing.T) {
	runCases(t, []parseCase{
		{"input before action", "Thought: add\nAction Input: {\"expression\": \"2+2\"}\nAction: calculator", action("add", "calculator", obj{"expression": "2+2"})},
		{"input before action, raw", "Action Input: zig language\nAction: web_search", action("", "web_search", obj{"query": "zig language"})},
		{"an earlier action keeps its input", "Action: calculator\nAction Input: 1\nAction: web_search\nAction Input: go", action("", "calculator", obj{"expression": "1"})},
	})
}

func TestPlaceholderInputs(t *testing.T) {
	for _, input := range []string{"None", "none", `""`, "''", "(empty string)", "N/A", "no input", "null", "`None`", "Nothing."} {
		runCases(t, []parseCase{
			{"no-argument tool with " + input, "Action: get_time\nAction Input: " + input, action("", "get_time", obj{})},
			{"unregistered tool with " + input, "Action: get_weather\nAction Input: " + input, action("", "get_weather", obj{})},
		})
	}
	p := parser.New(builtins)
	if _, err := p.Parse("Action: web_search\nAction Input: None"); !errors.Is(err, parser.ErrNoActionInput) || !strings.Contains(err.Error(), `"query"`) {
		t.Errorf("a placeholder for a tool that needs arguments: error %v, want ErrNoActionInput naming query", err)
	}
}

func TestToolsWithoutArguments(t *testing.T) {
	runCases(t, []parseCase{
		{"a registered tool with no required argument", "Thought: what time is it?\nAction: get_time", action("what time is it?", "get_time", obj{})},
		{"an unregistered tool", "Action: list_files", action("", "list_files", obj{})},
		{"a bracket call with nothing inside", "Action: get_time[]", action("", "get_time", obj{})},
		{"empty parentheses", "Action: get_time()", action("", "get_time", obj{})},
	})
	p := parser.New(builtins)
	_, err := p.Parse("Thought: search\nAction: web_search")
	if !errors.Is(err, parser.ErrNoActionInput) || !strings.Contains(err.Error(), `"query"`) {
		t.Errorf("a tool that needs arguments: error %v, want ErrNoActionInput naming query", err)
	}
}

func TestInlineCallsCutOrWrapped(t *testing.T) {
	runCases(t, []parseCase{
		{"bracket never closed, in backticks", "Action: `web_search[zig language`", action("", "web_search", obj{"query": "zig language"})},
		{"parenthesis never closed", "Action: calculator(2+2", action("", "calculator", obj{"expression": "2+2"})},
		{"a call in backticks", "Action: `calculator(3*3)`", action("", "calculator", obj{"expression": "3*3"})},
		{"tool, then a quoted empty input", "Action: get_time, ''", action("", "get_time", obj{})},
		{"tool, then a quoted input", "Action: web_search, 'zig'", action("", "web_search", obj{"query": "zig"})},
		{"tool, Input: value", "Thought: x\nAction: calculator, Input: 7*6", action("x", "calculator", obj{"expression": "7*6"})},
	})
}

func TestFinalAnswersInOtherClothes(t *testing.T) {
	runCases(t, []parseCase{
		{"finish call with a keyword", `finish(answer="Paris is the capital.")`, final("", "Paris is the capital.")},
		{"finish call as the action", "Thought: done\nAction: finish(\"42\")", final("done", "42")},
		{"Finish with the answer as input", "Thought: done\nAction: Finish\nAction Input: The answer is 42.", final("done", "The answer is 42.")},
		{"a made-up answering tool", "Thought: greet them\nAction: Speak\nAction Input: Hello!", final("greet them", "Hello!")},
		{"a made-up answering tool with JSON", `{"action": "respond", "action_input": {"text": "Hi."}}`, final("", "Hi.")},
		{"final_answer tool with a keyword", "Action: final_answer(answer='Oslo')", final("", "Oslo")},
		{"JSON with a response key", `{"thought": "known", "response": "Paris"}`, final("known", "Paris")},
		{"JSON with an output key", `{"output": "Paris"}`, final("", "Paris")},
		{"JSON final answer with raw newlines and a fence",
			"{\"action\": \"Final Answer\", \"action_input\": \"Use this:\n```go\nfmt.Println(\"hi\")\n```\nDone.\"}",
			final("", "Use this:\n```go\nfmt.Println(\"hi\")\n```\nDone.")},
		{"JSON final answer with unescaped quotes", `{"action": "Final Answer", "action_input": "He said "yes" to it."}`, final("", `He said "yes" to it.`)},
		{"markdown-escaped keys", `{"action": "web\_search", "action\_input": "zig"}`, action("", "web_search", obj{"query": "zig"})},
		{"markdown-escaped final answer blob", "```json\n{\"action\": \"Final Answer\", \"action\\_input\": \"4\"}\n```", final("", "4")},
	})
}

func TestPythonFlavouredInputs(t *testing.T) {
	runCases(t, []parseCase{
		{"triple double quotes", "Action: shell\nAction Input: \"\"\"echo 'a'\necho \"b\"\n\"\"\"", action("", "shell", obj{"command": "echo 'a'\necho \"b\"\n"})},
		{"triple single quotes in a keyword call", "Action: shell(command='''ls -la''')", action("", "shell", obj{"command": "ls -la"})},
		{"escaped quote in a single-quoted string", `Action: web_search` + "\n" + `Action Input: {'query': 'it\'s zig'}`, action("", "web_search", obj{"query": "it's zig"})},
		{"escaped quote in a single-quoted scalar", `Action: web_search` + "\n" + `Action Input: 'Rock \'n\' roll'`, action("", "web_search", obj{"query": "Rock 'n' roll"})},
	})
}

func TestReasoningNeverClosed(t *testing.T) {
	runCases(t, []parseCase{
		{"protocol after unclosed reasoning", "<think>\nThe user wants a sum. I will use the calculator.\nThought: add them\nAction: calculator\nAction Input: {\"expression\": \"2+3\"}",
			action("add them", "calculator", obj{"expression": "2+3"})},
		{"a decoy JSON inside the reasoning is not the call",
			"<think>\nMaybe {\"action\": \"shell\", \"action_input\": \"rm -rf /\"}? No.\nThought: search\nAction: web_search\nAction Input: zig",
			action("search", "web_search", obj{"query": "zig"})},
		{"a plan inside the reasoning is not the step",
			"<think>I could write Action: shell\nbut no.\nThought: I know it.\nFinal Answer: 7", final("I know it.", "7")},
		{"a final answer after unclosed reasoning", "<think>\nEasy.\nFinal Answer: 4", final("", "4")},
	})
	p := parser.New(builtins)
	if _, err := p.Parse("<think>I wonder {\"action\": \"shell\", \"action_input\": \"ls\"}"); !errors.Is(err, parser.ErrEmpty) {
		t.Errorf("reasoning with only a decoy JSON: error %v, want ErrEmpty", err)
	}
}

func TestMarkupAndOtherCallShapes(t *testing.T) {
	runCases(t, []parseCase{
		{"invoke with parameters", "I'll search.\n<function_calls>\n<invoke name=\"web_search\">\n<parameter name=\"query\">zig language</parameter>\n</invoke>\n</function_calls>",
			action("I'll search.", "web_search", obj{"query": "zig language"})},
		{"action with tool_name and arg keys", "<action><tool_name>calculator</tool_name><arguments><arg key=\"expression\">2*21</arg></arguments></action>",
			action("", "calculator", obj{"expression": "2*21"})},
		{"tool_name with JSON arguments", "Thought: look\n<tool_name>web_search</tool_name>\n<arguments>{\"query\": \"zig\"}</arguments>",
			action("look", "web_search", obj{"query": "zig"})},
		{"child tags as arguments", "<tool_call><name>http_request</name><arguments><url>https://a.example</url><method>GET</method></arguments></tool_call>",
			action("", "http_request", obj{"url": "https://a.example", "method": "GET"})},
		{"Llama function tag", "<function=calculator>{\"expression\": \"3+4\"}</function>", action("", "calculator", obj{"expression": "3+4"})},
		{"a final answer tag", "<final_answer>Paris</final_answer>", final("", "Paris")},
		{"a call below a thought, without a label", "Thought: I need to search.\nweb_search({\"query\": \"zig\"})", action("I need to search.", "web_search", obj{"query": "zig"})},
		{"a keyword call below a sentence", "Let me compute this.\n```python\ncalculator(expression=\"2**8\")\n```", action("Let me compute this.", "calculator", obj{"expression": "2**8"})},
		{"a JSON list of calls", `[{"name": "web_search", "arguments": {"query": "zig"}}, {"name": "calculator", "arguments": {"expression": "1"}}]`,
			action("", "web_search", obj{"query": "zig"})},
		{"a fenced JSON list of calls", "```json\n[{\"action\": \"calculator\", \"action_input\": \"6*7\"}]\n```", action("", "calculator", obj{"expression": "6*7"})},
		{"a list of calls in a fence on the Action line", "Action: ```json\n[\n  {\"tool_name\": \"web_search\", \"parameters\": {\"query\": \"zig\"}}\n]\n```",
			action("", "web_search", obj{"query": "zig"})},
		{"a bracketed marker before a list of calls", `[CALLS] [{"name": "calculator", "arguments": {"expression": "5*5"}}]`, action("", "calculator", obj{"expression": "5*5"})},
		{"a word marker glued to a list of calls", `calls[{"name": "web_search", "arguments": {"query": "go"}}]`, action("", "web_search", obj{"query": "go"})},
		{"a legacy function_call object", `{"function_call": {"name": "calculator", "arguments": "{\"expression\": \"9-1\"}"}}`, action("", "calculator", obj{"expression": "9-1"})},
		{"a call printed in a code fence", "```tool_code\nprint(web_search(query=\"zig\"))\n```", action("", "web_search", obj{"query": "zig"})},
		{"a call assigned in code", "Let me add.\n```python\nresult = calculator(expression=\"1+1\")\n```", action("Let me add.", "calculator", obj{"expression": "1+1"})},
	})
}

func TestForgivingNamesNotInventive(t *testing.T) {
	runCases(t, []parseCase{
		{"a generic word after the name, arguments that fit", "Action: Calculator Tool\nAction Input: {\"expression\": \"1+1\"}", action("", "calculator", obj{"expression": "1+1"})},
		{"a generic word, raw input onto the primary argument", "Action: the web_search function\nAction Input: zig", action("", "web_search", obj{"query": "zig"})},
		{"a generic word, arguments that do not fit", "Action: Calculator Tool\nAction Input: {\"city\": \"Oslo\"}", action("", "Calculator Tool", obj{"city": "Oslo"})},
		{"another name is not this tool", "Action: Search\nAction Input: zig", action("", "Search", obj{"input": "zig"})},
		{"the exact registered name wins", "Action: get_time\nAction Input: {}", action("", "get_time", obj{})},
		{"JSON call with a generic word", `{"action": "calculator tool", "action_input": {"expression": "2"}}`, action("", "calculator", obj{"expression": "2"})},
		{"a short sentence that names one tool exactly", "Action: I will use `web_search`\nAction Input: zig", action("", "web_search", obj{"query": "zig"})},
	})
}

func TestSentencesThatNameNoToolExactly(t *testing.T) {
	runErrors(t, parser.New(builtins), []errCase{
		{"a sentence that names a tool whose arguments do not fit", "Action: I will use calculator\nAction Input: {\"city\": \"Oslo\"}", parser.ErrNoToolName, "I will use calculator"},
	})
	// Words that name two tools, with an input, are the name of no
	// registered tool: a call the loop answers with the tools' names, as
	// 201d578 read it (49bef0a read no tool).
	runCases(t, []parseCase{
		{"a phrase that names two tools is the name of neither", "Action: either web_search or calculator\nAction Input: zig",
			action("", "either web_search or calculator", obj{"input": "zig"})},
	})
}

func TestLabelsRepeatedOrQualified(t *testing.T) {
	runCases(t, []parseCase{
		{"a thought label written twice", "Thought: Thought: add\nAction: calculator\nAction Input: 1+1", action("add", "calculator", obj{"expression": "1+1"})},
		{"a final answer label written twice", "Final Answer: Final Answer: 42", final("", "42")},
		{"an action label written twice", "Action: Action: web_search\nAction Input: zig", action("", "web_search", obj{"query": "zig"})},
		{"a qualifier before the colon", "Action: web_search\nAction Input (JSON): {\"query\": \"zig\"}", action("", "web_search", obj{"query": "zig"})},
		{"a qualified final answer", "Thought: done\nFinal Answer (short): 42", final("done", "42")},
		{"a thought label missing its last letter", "Though: add\nAction: calculator\nAction Input: 1+1", action("add", "calculator", obj{"expression": "1+1"})},
		{"a label word and parentheses without a colon stay prose", "Answer (in short) is 42.", final("", "Answer (in short) is 42.")},
	})
}

func TestCallsWithPunctuationAfter(t *testing.T) {
	runCases(t, []parseCase{
		{"a full stop after the call", "Action: calculator(2+2).", action("", "calculator", obj{"expression": "2+2"})},
		{"an exclamation mark after brackets", "Action: web_search[zig]!", action("", "web_search", obj{"query": "zig"})},
	})
}

func TestStepEnd(t *testing.T) {
	tests := []struct {
		text string
		want string // the text before the end, or "" for -1
	}{
		{"Thought: add\nAction: calculator\nAction Input: 2+2\nObservation: 4", "Thought: add\nAction: calculator\nAction Input: 2+2\n"},
		{"Action: calculator\nAction Input: 2+2\nThought: now I wait", "Action: calculator\nAction Input: 2+2\n"},
		{"Action: calculator\nAction Input: {\"expression\": \"2+2\"} Observation: 4", "Action: calculator\nAction Input: {\"expression\": \"2+2\"} "},
		{"Action: calculator(2+2)\nAction: web_search[x]", "Action: calculator(2+2)\n"},
		{"Action: calculator\nAction Input: 2+2", ""},
		{"Action: calculator\nAction Input: 2+", ""},
		{"Thought: I know\nFinal Answer: 4\nThought: more", ""},
		{"Thought: still thinking\nAction: calc", ""},
	}
	for _, tt := range tests {
		got := parser.StepEnd(tt.text)
		want := len(tt.want)
		if tt.want == "" {
			want = -1
		}
		if got != want {
			t.Errorf("StepEnd(%q) = %d, want %d", tt.text, got, want)
		}
	}
}

func TestStepEndWaitsForALabelToBeWhole(t *testing.T) {
	for _, text := range []string{"Action: add\nAction", "Action: add\nAction Input", "Action: add\n**Action"} {
		if got := parser.StepEnd(text); got != -1 {
			t.Errorf("StepEnd(%q) = %d, want -1: the label may grow", text, got)
		}
	}
}

func TestInlineLabelsAreTheProtocolsOwn(t *testing.T) {
	runCases(t, []parseCase{
		{"Answer inside a thought is prose", "Thought: The Answer: is in the docs.\nAction: web_search\nAction Input: docs", action("The Answer: is in the docs.", "web_search", obj{"query": "docs"})},
		{"Tool inside a thought is prose", "Thought: The Tool: a hammer.\nFinal Answer: a hammer", final("The Tool: a hammer.", "a hammer")},
		{"Final Answer inside a thought is the answer", "Thought: Done. Final Answer: 42", final("Done.", "42")},
	})
}

func TestAnObjectWithoutBraces(t *testing.T) {
	runCases(t, []parseCase{
		{"one key", "Action: web_search\nAction Input: \"query\": \"zig\"", action("", "web_search", obj{"query": "zig"})},
		{"two keys", "Action: web_search\nAction Input: \"query\": \"zig\", \"max_results\": 2", action("", "web_search", obj{"query": "zig", "max_results": 2.0})},
		{"a quoted string is still a string", "Action: web_search\nAction Input: \"zig: the language\"", action("", "web_search", obj{"query": "zig: the language"})},
	})
}

func TestAMadeUpNextTurnEndsTheReply(t *testing.T) {
	runCases(t, []parseCase{
		{"after a final answer", "Thought: done\nFinal Answer: 4\n\nHuman: and 3+3?\nAI: 6", final("done", "4")},
		{"after prose", "The capital is Paris.\nUser: thanks", final("", "The capital is Paris.")},
		{"after an action", "Action: calculator\nAction Input: 2+2\nUser: what now?", action("", "calculator", obj{"expression": "2+2"})},
		{"a role word inside a line stays text", "Final Answer: ask the User: they know", final("", "ask the User: they know")},
	})
}

func TestLineBreaksThatCameEscaped(t *testing.T) {
	runCases(t, []parseCase{
		{"as a JSON string writes them", `Thought: add\nAction: calculator\nAction Input: 2+2`, action("add", "calculator", obj{"expression": "2+2"})},
		{"as HTML", "Thought: add<br>Action: calculator<br/>Action Input: 2+2", action("add", "calculator", obj{"expression": "2+2"})},
		{"an escape inside an input on one line stays", `Action: shell, Input: printf 'a\nb'`, action("", "shell", obj{"command": `printf 'a\nb'`})},
		{"prose with an escape stays one line", `Use \n for a new line.`, final("", `Use \n for a new line.`)},
	})
}

func TestSeparatorsOtherThanAColon(t *testing.T) {
	runCases(t, []parseCase{
		{"equals signs", "Thought = add\nAction = calculator\nAction Input = 2+2", action("add", "calculator", obj{"expression": "2+2"})},
		{"dashes", "Thought - look it up\nAction - web_search\nAction Input - zig", action("look it up", "web_search", obj{"query": "zig"})},
		{"arrows", "Action -> web_search\nAction Input => {\"query\": \"zig\"}", action("", "web_search", obj{"query": "zig"})},
		{"an en dash before a final answer", "Final Answer – Paris", final("", "Paris")},
		{"a hyphenated word stays prose", "Action-packed films are popular.", final("", "Action-packed films are popular.")},
		{"an assignment in code stays code", "Pick the action first:\n```python\naction = pick(plan)\nrun(action)\n```",
			final("", "Pick the action first:\n```python\naction = pick(plan)\nrun(action)\n```")},
		{"a comparison stays prose", "Answer == 42 is true.", final("", "Answer == 42 is true.")},
	})
}

func TestAToolNameAboveItsArguments(t *testing.T) {
	runCases(t, []parseCase{
		{"the name on the line above", "web_search\n{\"query\": \"zig\"}", action("", "web_search", obj{"query": "zig"})},
		{"the name above a fence", "I will search.\nweb_search\n```json\n{\"query\": \"zig\"}\n```", action("I will search.", "web_search", obj{"query": "zig"})},
		{"the name in bold after a thought", "Thought: I should search.\n**web_search**\n```\n{\"query\": \"zig\"}\n```", action("I should search.", "web_search", obj{"query": "zig"})},
		{"the name after a prompt marker", ">>>calculator\n{\"expression\": \"6*7\"}", action("", "calculator", obj{"expression": "6*7"})},
		{"the name before the object on its line", "web_search {\"query\": \"zig\"}", action("", "web_search", obj{"query": "zig"})},
		{"a sentence that names the tool", "Let me call web_search:\n```json\n{\"query\": \"zig\"}\n```", action("Let me call web_search:", "web_search", obj{"query": "zig"})},
		{"arguments that do not fit stay the answer", "calculator\n{\"city\": \"Oslo\"}", final("", "calculator\n{\"city\": \"Oslo\"}")},
		{"an object under prose stays the answer", "Here is the data:\n{\"query\": \"zig\"}", final("", "Here is the data:\n{\"query\": \"zig\"}")},
	})
}

func TestTemplateTokensAndLabels(t *testing.T) {
	runCases(t, []parseCase{
		{"DeepSeek tokens with the type before the name", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>web_search\n```json\n{\"query\": \"zig\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			action("", "web_search", obj{"query": "zig"})},
		{"DeepSeek tokens with the name before the arguments", "I need to search first.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>web_search<｜tool▁sep｜>{\"query\": \"zig\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
			action("I need to search first.", "web_search", obj{"query": "zig"})},
		{"a word before an end token stays", "The keyword is function<|im_end|>", final("", "The keyword is function")},
		{"Qwen-Agent labels", "I will look it up.\n✿FUNCTION✿: web_search\n✿ARGS✿: {\"query\": \"zig\"}", action("I will look it up.", "web_search", obj{"query": "zig"})},
		{"a Qwen-Agent answer", "✿RETURN✿: Zig is a language.", final("", "Zig is a language.")},
	})
}

func TestLlamaTwoTemplateTokens(t *testing.T) {
	runCases(t, []parseCase{
		{"the start token before the labels", "<s> Thought: look\nAction: web_search\nAction Input: zig</s>", action("look", "web_search", obj{"query": "zig"})},
		{"the end of the user's turn before the labels", "[/INST] Thought: look\nAction: web_search\nAction Input: zig", action("look", "web_search", obj{"query": "zig"})},
		{"a made-up user turn ends the reply", "Thought: look\nAction: web_search\nAction Input: zig\n[INST] and then? [/INST]", action("look", "web_search", obj{"query": "zig"})},
		{"a token before an answer without labels", "[/INST] Paris is the capital of France.", final("", "Paris is the capital of France.")},
	})
}

func TestPauseEndsTheStep(t *testing.T) {
	runCases(t, []parseCase{
		{"after a raw input", "Thought: look\nAction: web_search\nAction Input: zig\nPAUSE", action("look", "web_search", obj{"query": "zig"})},
		{"after an inline call", "Thought: look\nAction: web_search: zig\nPAUSE\n\nObservation: made up", action("look", "web_search", obj{"query": "zig"})},
		{"a pause in a sentence stays prose", "Pause the video at two minutes to see it.", final("", "Pause the video at two minutes to see it.")},
	})
}

func TestQualifiedNamesAndCallMarkers(t *testing.T) {
	runCases(t, []parseCase{
		{"a namespace before the name", "Thought: x\nAction: functions.web_search\nAction Input: {\"query\": \"zig\"}", action("x", "web_search", obj{"query": "zig"})},
		{"a namespaced inline call", "functions.web_search({\"query\": \"zig\"})", action("", "web_search", obj{"query": "zig"})},
		{"a method after the name", "<|python_tag|>web_search.call(query=\"zig\")", action("", "web_search", obj{"query": "zig"})},
		{"Gemini's default_api in a tool_code fence", "```tool_code\nprint(default_api.web_search(query=\"zig\"))\n```", action("", "web_search", obj{"query": "zig"})},
		{"a JSON call with a namespace", `{"name": "functions.calculator", "arguments": {"expression": "2*3"}}`, action("", "calculator", obj{"expression": "2*3"})},
		{"a marker before a call", "<<function>>web_search(query='zig')", action("", "web_search", obj{"query": "zig"})},
		{"a dotted name of no tool stays as written", "Action: math.sqrt\nAction Input: 4", action("", "math.sqrt", obj{"input": "4"})},
		{"a dotted name of two tools names neither", "Action: calculator.web_search\nAction Input: 4", action("", "calculator.web_search", obj{"input": "4"})},
	})
}

func TestBracesDoubledAsTemplatesEscapeThem(t *testing.T) {
	runCases(t, []parseCase{
		{"an Action Input", "Thought: x\nAction: web_search\nAction Input: {{\"query\": \"zig\"}}", action("x", "web_search", obj{"query": "zig"})},
		{"nested objects", "Action: http_request\nAction Input: {{\"url\": \"https://a.example\", \"headers\": {{\"A\": \"b\"}}}}",
			action("", "http_request", obj{"url": "https://a.example", "headers": map[string]any{"A": "b"}})},
		{"only the outer object doubled", "Action: http_request\nAction Input: {{\"url\": \"https://a.example\", \"headers\": {\"A\": \"b\"}}}",
			action("", "http_request", obj{"url": "https://a.example", "headers": map[string]any{"A": "b"}})},
		{"a JSON blob under an Action label", "Thought: x\nAction:\n```\n{{\n  \"action\": \"web_search\",\n  \"action_input\": \"zig\"\n}}\n```", action("x", "web_search", obj{"query": "zig"})},
		{"a final answer blob", "```json\n{{\"action\": \"Final Answer\", \"action_input\": \"Zig\"}}\n```", final("", "Zig")},
	})
}

func TestAnInputThatWritesTheCallAgain(t *testing.T) {
	runCases(t, []parseCase{
		{"keyword arguments", "Action: web_search\nAction Input: web_search(query=\"zig\")", action("", "web_search", obj{"query": "zig"})},
		{"brackets", "Action: web_search\nAction Input: web_search[zig]", action("", "web_search", obj{"query": "zig"})},
		{"a call of something else is the input", "Action: calculator\nAction Input: sqrt(16)", action("", "calculator", obj{"expression": "sqrt(16)"})},
		{"a call of the tool around an expression", "Action: calculator\nAction Input: calculator(sqrt(16))", action("", "calculator", obj{"expression": "sqrt(16)"})},
		{"a Tool Call label and Arguments", "Thought: x\nTool Call: web_search\nArguments: {\"query\": \"zig\"}", action("x", "web_search", obj{"query": "zig"})},
	})
}

func TestAnActionThatNamesNoTool(t *testing.T) {
	runErrors(t, parser.New(builtins), []errCase{
		{"a refusal", "Thought: I know the prices.\nAction: None needed.", parser.ErrNoToolName, `"Action: None needed."`},
		{"a refusal with its reason", "Thought: I have them.\nAction: No action needed (I already have the prices)", parser.ErrNoToolName, "names no tool"},
		{"a refusal in Chinese", "Thought: 好的\nAction: 不需要使用工具", parser.ErrNoToolName, "不需要使用工具"},
		{"an instruction", "Thought: open it\nAction: Click on the first result", parser.ErrNoToolName, "Click on the first result"},
		{"the thought written again, with an input", "Thought: I will use pandas to summarise the data\nAction: I will use pandas to summarise the data\nAction Input: df.describe()",
			parser.ErrNoToolName, "I will use pandas"},
		{"a step of a markdown plan", "1. **Thought:** add them\n2. **Action:** Perform the addition\n3. **Action Input:** 2+2", parser.ErrNoToolName, "Perform the addition"},
		{"the prompt's placeholder", "Thought: x\nAction: $TOOL_NAME\nAction Input: $INPUT", parser.ErrNoToolName, "$TOOL_NAME"},
		{"a placeholder in angle brackets", "Action: <tool name>\nAction Input: zig", parser.ErrNoToolName, "names no tool"},
		{"a placeholder in capitals", "Action: TOOL_NAME\nAction Input: zig", parser.ErrNoToolName, "names no tool"},
		{"a fenced JSON call of none", "```json\n{\"action\": \"none\", \"action_input\": \"none\"}\n```", parser.ErrNoToolName, "names no tool"},
		{"a JSON call named by a sentence", `{"action": "I will search the web for it", "action_input": "zig"}`, parser.ErrNoToolName, "names no tool"},
		{"the message lists the tools", "Action: Not applicable", parser.ErrNoToolName, "(one of: "},
	})
}

func TestAFinalAnswerBesideAnActionOfNoTool(t *testing.T) {
	runCases(t, []parseCase{
		{"after a refusal", "Thought: I know it.\nAction: None needed.\nFinal Answer: Paris", final("I know it.", "Paris")},
		{"after a refusal and a placeholder input", "Thought: no tool\nAction: Not needed\nAction Input: N/A\nFinal Answer: 42", final("no tool", "42")},
		{"after an instruction", "Thought: done\nAction: Summarise the findings\nFinal Answer: Zig is fast.", final("done", "Zig is fast.")},
		{"in JSON, the answer beside a call of none", `{"action": "none", "answer": "Paris"}`, final("", "Paris")},
		{"a final answer after a JSON call of none, which is the thought", "```json\n{\"action\": \"none\", \"action_input\": \"\"}\n```\nFinal Answer: Paris",
			final("```json\n{\"action\": \"none\", \"action_input\": \"\"}\n```", "Paris")},
	})
}

func TestARefusalIsNeverACall(t *testing.T) {
	p := parser.New(builtins)
	for _, refusal := range []string{"None", "none.", "N/A", "-", "...", "?", "no tool", "No tools needed", "nothing", "Not required", "Ninguna", "Nenhuma",
		"Aucune", "Keine", "Nessuna", "Нет", "无", "無", "不需要", "なし", "없음"} {
		if st, err := p.Parse("Thought: x\nAction: " + refusal + "\nAction Input: zig"); !errors.Is(err, parser.ErrNoToolName) {
			t.Errorf("Action: %s: got %+v, %v; want ErrNoToolName", refusal, st, err)
		}
	}
}

func TestANameStaysACall(t *testing.T) {
	zapier := fakeTools{"Gmail: Find Email": {"query"}, "web_search": {"query"}}
	runCasesWith(t, parser.New(zapier), parser.Options{}, []parseCase{
		{"a registered name with a colon is read whole", "Action: Gmail: Find Email\nAction Input: {\"query\": \"from:bob\"}", action("", "Gmail: Find Email", obj{"query": "from:bob"})},
		{"in another case", "Action: gmail: find email\nAction Input: from:bob", action("", "Gmail: Find Email", obj{"query": "from:bob"})},
		{"a name with a colon that is not registered is a name and an input", "Action: Search: zig", action("", "Search", obj{"input": "zig"})},
	})
	runCases(t, []parseCase{
		{"one word that is not registered", "Action: Search\nAction Input: zig", action("", "Search", obj{"input": "zig"})},
		{"two words that are not registered", "Action: Google Search\nAction Input: zig", action("", "Google Search", obj{"input": "zig"})},
		{"two words and a generic one", "Action: Wikipedia Lookup Tool\nAction Input: zig", action("", "Wikipedia Lookup Tool", obj{"input": "zig"})},
		{"words in title case", "Action: Google Search Results JSON\nAction Input: weather in Paris", action("", "Google Search Results JSON", obj{"input": "weather in Paris"})},
		{"a name that starts as a refusal word", "Action: notion_search\nAction Input: zig", action("", "notion_search", obj{"input": "zig"})},
		{"a sentence that names one registered tool whose arguments fit", "Action: I will use `web_search`\nAction Input: zig", action("", "web_search", obj{"query": "zig"})},
		{"a phrase given named arguments, as crewAI's tools are named", "Thought: ask the writer\nAction: Delegate work to coworker\nAction Input: {\"task\": \"write\", \"coworker\": \"Writer\"}",
			action("ask the writer", "Delegate work to coworker", obj{"task": "write", "coworker": "Writer"})},
		{"a phrase as the name of a JSON call", `{"action": "Search the internet", "action_input": {"search_query": "zig"}}`, action("", "Search the internet", obj{"search_query": "zig"})},
		// 49bef0a read no tool here: an imperative phrase is how tools
		// are named ("Search the internet"), and an input follows it.
		{"a phrase with a text input", "Action: Click on the first result\nAction Input: the first one", action("", "Click on the first result", obj{"input": "the first one"})},
	})
	runErrors(t, parser.New(builtins), []errCase{
		{"a sentence in the first person, even with named arguments", "Action: I will use pandas to summarise\nAction Input: {\"code\": \"df.describe()\"}", parser.ErrNoToolName, "I will use pandas"},
		{"a refusal with named arguments", "Action: None needed\nAction Input: {\"query\": \"x\"}", parser.ErrNoToolName, "None needed"},
	})
}

func TestMarkupCallsInMorePlaces(t *testing.T) {
	runCases(t, []parseCase{
		{"a tag named after the tool, after a numbered Action label", "Thought 2: look her up\nAction 2: <search>Ada Lovelace</search>", action("look her up", "search", obj{"input": "Ada Lovelace"})},
		{"a tag of a registered tool", "Action: <web_search>zig</web_search>", action("", "web_search", obj{"query": "zig"})},
		{"a tag with child tags", "Action: <http_request><url>https://a.example</url><method>GET</method></http_request>", action("", "http_request", obj{"url": "https://a.example", "method": "GET"})},
		{"Claude's older invoke as the value of Action", "Thought: check the docs\nAction: <invoke><tool_name>search_docs</tool_name><parameters><query>clarify</query></parameters></invoke>",
			action("check the docs", "search_docs", obj{"query": "clarify"})},
		{"Qwen3-Coder's call on one line", "<tool_call><function=read_file><parameter=path>notes.md</parameter></function></tool_call>", action("", "read_file", obj{"path": "notes.md"})},
		{"Qwen3-Coder's call on many lines", "I will read it.\n<tool_call>\n<function=read_file>\n<parameter=path>\nnotes.md\n</parameter>\n<parameter=limit>\n20\n</parameter>\n</function>\n</tool_call>",
			action("I will read it.", "read_file", obj{"path": "notes.md", "limit": "20"})},
		{"Qwen3-Coder's call with spaces between the tags", "<tool_call> <function=read_file> <parameter=path> notes.md </parameter> </function> </tool_call>", action("", "read_file", obj{"path": "notes.md"})},
		{"Qwen3-Coder's call after an Action label", "Action: <function=calculator><parameter=expression>2+2</parameter></function>", action("", "calculator", obj{"expression": "2+2"})},
		{"a JSON call in a tag after an Action label", "Action: <tool_call>{\"name\": \"web_search\", \"arguments\": {\"query\": \"zig\"}}</tool_call>", action("", "web_search", obj{"query": "zig"})},
		{"an input written as tags of the tool's arguments", "Action: web_search\nAction Input: <query>Ada Lovelace</query>\n<max_results>3</max_results>",
			action("", "web_search", obj{"query": "Ada Lovelace", "max_results": "3"})},
		{"an input of other markup stays text", "Action: shell\nAction Input: <b>echo</b>", action("", "shell", obj{"command": "<b>echo</b>"})},
		{"bold markup in an answer stays the answer", "Final Answer: <b>Paris</b>", final("", "<b>Paris</b>")},
		{"a tag of no tool in prose stays the answer", "<b>Paris</b> is the capital.", final("", "<b>Paris</b> is the capital.")},
	})
}

func TestJSONAnswersThatAreNotValidJSON(t *testing.T) {
	plan := "Here is the plan:\n\n1. **Supply**: build more.\n2. **Demand**: use less."
	runCases(t, []parseCase{
		{"raw line breaks and markdown in a final answer", "{\"action\": \"Final Answer\", \"action_input\": \"" + plan + "\"}", final("", plan)},
		{"a fenced blob whose answer holds a fence of its own", "```json\n{\"action\": \"Final Answer\", \"action_input\": \"Run:\n\n```sh\ngo test\n```\nThen read it.\"}\n```",
			final("", "Run:\n\n```sh\ngo test\n```\nThen read it.")},
		{"a tool's input as a JSON string keeps its blank lines", "{\"action\": \"shell\", \"action_input\": \"echo a\n\necho b\"}", action("", "shell", obj{"command": "echo a\n\necho b"})},
		{"an Answer label before a JSON call", `Answer: {"action": "Search", "action\_input": "zig"}`, action("", "Search", obj{"input": "zig"})},
		{"a Final Answer label before a fenced JSON call", "Thought: search\nFinal Answer: ```json\n{\"action\": \"web_search\", \"action_input\": \"zig\"}\n```", action("search", "web_search", obj{"query": "zig"})},
		{"AI before a JSON call", `AI: {"action": "web_search", "action_input": "zig"}`, action("", "web_search", obj{"query": "zig"})},
		{"a JSON final answer under a Final Answer label", `Final Answer: {"action": "Final Answer", "action_input": "42"}`, final("", "42")},
		{"JSON data as the answer stays as written", `Final Answer: {"city": "Oslo", "answer": 42}`, final("", `{"city": "Oslo", "answer": 42}`)},
	})
}

func TestAFinalAnswerCutOffMidSentence(t *testing.T) {
	runErrors(t, parser.New(builtins), []errCase{
		{"after a comma", "Thought: done\nFinal Answer: The three largest cities are Tokyo, Delhi,", parser.ErrNotAnAnswer, "middle of a sentence"},
		{"on an article", "Final Answer: The capital of France is the", parser.ErrNotAnAnswer, "middle of a sentence"},
		{"on a colon", "Final Answer: Here are the steps:", parser.ErrNotAnAnswer, "middle of a sentence"},
		{"a long reply without labels", strings.Repeat("Zig is a general-purpose language with manual memory management. ", 12) + "It compiles to the", parser.ErrNotAnAnswer, "middle of a sentence"},
	})
	runCases(t, []parseCase{
		{"a closing capital letter is a name", "Final Answer: The best choice is plan A", final("", "The best choice is plan A")},
		{"code that ends in a semicolon", "Final Answer: SELECT name FROM users;", final("", "SELECT name FROM users;")},
		{"a short answer", "Final Answer: to", final("", "to")},
	})
}
