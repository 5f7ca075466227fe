package parser_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

type parseCase struct {
	name string
	text string
	want parser.Step
}

func action(thought, name string, args map[string]any) parser.Step {
	return parser.Step{Kind: parser.KindAction, Thought: thought, Action: name, Args: args}
}

func final(thought, answer string) parser.Step {
	return parser.Step{Kind: parser.KindFinal, Thought: thought, FinalAnswer: answer}
}

type obj = map[string]any

// errCase is a reply that must not parse: the sentinel error it must
// give, and a part of the message for the model.
type errCase struct {
	name string
	text string
	want error
	says string
}

func runErrors(t *testing.T, p *parser.Parser, cases []errCase) {
	t.Helper()
	runErrorsWith(t, p, parser.Options{}, cases)
}

func runErrorsWith(t *testing.T, p *parser.Parser, o parser.Options, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := p.ParseWith(c.text, o)
			if !errors.Is(err, c.want) {
				t.Fatalf("Parse(%q) = %#v, %v; want %v", c.text, st, err, c.want)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("Parse(%q): the message %q does not say %q", c.text, err, c.says)
			}
		})
	}
}

// runCasesWith is runCases for a parser of the tools ts, with options.
func runCasesWith(t *testing.T, p *parser.Parser, o parser.Options, cases []parseCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.ParseWith(c.text, o)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.text, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Parse(%q)\n got %#v\nwant %#v", c.text, got, c.want)
			}
		})
	}
}

func runCases(t *testing.T, cases []parseCase) {
	t.Helper()
	p := parser.New(builtins)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.Parse(c.text)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.text, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Parse(%q)\n got %#v\nwant %#v", c.text, got, c.want)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	runCases(t, []parseCase{
		{"labels in lower case", "thought: add\naction: calculator\naction input: {\"expression\": \"1+1\"}",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"labels in upper case", "THOUGHT: add\nACTION: calculator\nACTION INPUT: 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"bold labels with the colon inside", "**Thought:** add\n**Action:** calculator\n**Action Input:** 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"bold labels with the colon outside", "**Thought**: add\n**Action**: calculator\n**Action Input**: 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"markdown headings and bullets", "## Thought: add\n- Action: calculator\n> Action Input: 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"italic and code-marked labels", "_Thought_: add\n`Action`: calculator\n*Action Input*: 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"full-width colons", "Thought：add\nAction：calculator\nAction Input：1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"numbered labels", "Thought 1: add\nAction 1: calculator\nAction Input 1: 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"numbered list items", "1. Thought: add\n2. Action: calculator\n3. Action Input: 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"underscored input label", "Thought: add\nAction: calculator\nAction_Input: 1+1",
			action("add", "calculator", obj{"expression": "1+1"})},
		{"Chinese labels", "思考：需要计算\n行动：calculator\n行动输入：{\"expression\": \"3*3\"}",
			action("需要计算", "calculator", obj{"expression": "3*3"})},
		{"Chinese final answer", "思考: 我知道了\n最终答案: 九", final("我知道了", "九")},
		{"Answer as the final label", "Thought: easy\nAnswer: 4", final("easy", "4")},
		{"final answer label alone on its line", "Thought: done\n**Final Answer**\n\nParis is the capital.", final("done", "Paris is the capital.")},
		{"multi-line thought", "Thought: first line\nsecond line\nAction: calculator\nAction Input: 1", action("first line\nsecond line", "calculator", obj{"expression": "1"})},
		{"text before the first label is thought", "I need to add.\nAction: calculator\nAction Input: 1+1", action("I need to add.", "calculator", obj{"expression": "1+1"})},
		{"Windows line endings", "Thought: add\r\nAction: calculator\r\nAction Input: 1+1\r\n", action("add", "calculator", obj{"expression": "1+1"})},
		{"label words in prose are not labels", "Thought: I will give the final answer: soon.\nAction: calculator\nAction Input: 1", action("I will give the final answer: soon.", "calculator", obj{"expression": "1"})},
		{"final answer inside prose is not a label", "The final answer: it depends on the action: taken.", final("", "The final answer: it depends on the action: taken.")},
	})
}

func TestActionInput(t *testing.T) {
	runCases(t, []parseCase{
		{"JSON object", `Action: web_search` + "\n" + `Action Input: {"query": "go generics", "max_results": 3}`,
			action("", "web_search", obj{"query": "go generics", "max_results": 3.0})},
		{"multi-line JSON object", "Action: web_search\nAction Input: {\n  \"query\": \"go\"\n}",
			action("", "web_search", obj{"query": "go"})},
		{"JSON in a fence with a language tag", "Action: web_search\nAction Input:\n```json\n{\"query\": \"go\"}\n```",
			action("", "web_search", obj{"query": "go"})},
		{"JSON in a fence without a tag", "Action: web_search\nAction Input: ```\n{\"query\": \"go\"}\n```",
			action("", "web_search", obj{"query": "go"})},
		{"single-quoted dict", "Action: web_search\nAction Input: {'query': 'go', 'max_results': 2}",
			action("", "web_search", obj{"query": "go", "max_results": 2.0})},
		{"Python literals", "Action: http_request\nAction Input: {'url': 'https://a.example', 'headers': None, 'body': None, 'method': 'GET', 'x': True}",
			action("", "http_request", obj{"url": "https://a.example", "headers": nil, "body": nil, "method": "GET", "x": true})},
		{"trailing commas", "Action: web_search\nAction Input: {\"query\": \"go\", \"max_results\": [1, 2,],}",
			action("", "web_search", obj{"query": "go", "max_results": []any{1.0, 2.0}})},
		{"unquoted keys and values", "Action: http_request\nAction Input: {url: https://a.example/x?q=1, method: POST}",
			action("", "http_request", obj{"url": "https://a.example/x?q=1", "method": "POST"})},
		{"apostrophe inside a double-quoted string", `Action: web_search` + "\n" + `Action Input: {"query": "it's go"}`,
			action("", "web_search", obj{"query": "it's go"})},
		{"raw newline inside a string", "Action: shell\nAction Input: {\"command\": \"echo a\necho b\"}",
			action("", "shell", obj{"command": "echo a\necho b"})},
		{"missing closing brace", "Action: web_search\nAction Input: {\"query\": \"go\"",
			action("", "web_search", obj{"query": "go"})},
		{"JSON string scalar", "Action: calculator\nAction Input: \"2**10\"", action("", "calculator", obj{"expression": "2**10"})},
		{"single-quoted scalar", "Action: calculator\nAction Input: '2**10'", action("", "calculator", obj{"expression": "2**10"})},
		{"backtick-quoted text", "Action: shell\nAction Input: `ls -la`", action("", "shell", obj{"command": "ls -la"})},
		{"one-line fence", "Action: shell\nAction Input: ```ls -la```", action("", "shell", obj{"command": "ls -la"})},
		{"raw text", "Action: web_search\nAction Input: weather in Paris", action("", "web_search", obj{"query": "weather in Paris"})},
		{"multi-line raw text", "Action: shell\nAction Input: cd /tmp\nls -la", action("", "shell", obj{"command": "cd /tmp\nls -la"})},
		{"fenced shell script", "Action: shell\nAction Input:\n```bash\nfor i in 1 2; do\n  echo $i\ndone\n```", action("", "shell", obj{"command": "for i in 1 2; do\n  echo $i\ndone"})},
		{"JSON followed by commentary", "Action: web_search\nAction Input: {\"query\": \"go\"} (this should find it)\nI will wait.",
			action("", "web_search", obj{"query": "go"})},
		{"JSON with a brace inside a string", `Action: web_search` + "\n" + `Action Input: {"query": "a } b"} trailing`,
			action("", "web_search", obj{"query": "a } b"})},
		{"key: value lines for the tool's own keys", "Action: http_request\nAction Input: url: https://a.example\nmethod: POST",
			action("", "http_request", obj{"url": "https://a.example", "method": "POST"})},
		{"key=value pairs", `Action: http_request` + "\n" + `Action Input: url="https://a.example", method="DELETE"`,
			action("", "http_request", obj{"url": "https://a.example", "method": "DELETE"})},
		{"key: value with a comma in the value", "Action: web_search\nAction Input: query: Paris, France",
			action("", "web_search", obj{"query": "Paris, France"})},
		{"number input", "Action: calculator\nAction Input: 42", action("", "calculator", obj{"expression": "42"})},
		{"input on the line below its label", "Action: calculator\nAction Input:\n6*7", action("", "calculator", obj{"expression": "6*7"})},
		{"fenced JSON below the action without an input label", "Action: web_search\n```json\n{\"query\": \"go\"}\n```", action("", "web_search", obj{"query": "go"})},
		{"whole reply wrapped in a fence", "```\nThought: add\nAction: calculator\nAction Input: 1+1\n```", action("add", "calculator", obj{"expression": "1+1"})},
	})
}

func TestInlineCalls(t *testing.T) {
	runCases(t, []parseCase{
		{"parentheses", "Thought: add\nAction: calculator(2+2)", action("add", "calculator", obj{"expression": "2+2"})},
		{"nested parentheses", "Action: calculator(sqrt(16) * (2+1))", action("", "calculator", obj{"expression": "sqrt(16) * (2+1)"})},
		{"brackets", "Action: web_search[ReAct paper]", action("", "web_search", obj{"query": "ReAct paper"})},
		{"keyword arguments", `Action: web_search(query="go 1.26", max_results=3)`, action("", "web_search", obj{"query": "go 1.26", "max_results": 3.0})},
		{"keyword argument with an unknown key", `Action: calculator(expr="1+2")`, action("", "calculator", obj{"expression": "1+2"})},
		{"JSON inside parentheses", `Action: web_search({"query": "go"})`, action("", "web_search", obj{"query": "go"})},
		{"tool: input", "Action: web_search: golang release notes", action("", "web_search", obj{"query": "golang release notes"})},
		{"tool: URL input", "Action: http_request: https://go.dev/doc/", action("", "http_request", obj{"url": "https://go.dev/doc/"})},
		{"tool then input after a space", "Action: calculator 3*7", action("", "calculator", obj{"expression": "3*7"})},
		{"input label on the action line", "Action: calculator Action Input: 3*7", action("", "calculator", obj{"expression": "3*7"})},
		{"label input wins over an inline one", "Action: web_search[x]\nAction Input: y", action("", "web_search", obj{"query": "y"})},
		{"call after words", "Action: I will use calculator(5-1)", action("", "calculator", obj{"expression": "5-1"})},
		{"unregistered tool inline", "Action: get_weather[Berlin]", action("", "get_weather", obj{"input": "Berlin"})},
	})
}

func TestToolNames(t *testing.T) {
	runCases(t, []parseCase{
		{"case", "Action: WEB_SEARCH\nAction Input: go", action("", "web_search", obj{"query": "go"})},
		{"spaces for underscores", "Action: Web Search\nAction Input: go", action("", "web_search", obj{"query": "go"})},
		{"hyphens", "Action: web-search\nAction Input: go", action("", "web_search", obj{"query": "go"})},
		{"no separator", "Action: websearch\nAction Input: go", action("", "web_search", obj{"query": "go"})},
		{"backticks", "Action: `web_search`\nAction Input: go", action("", "web_search", obj{"query": "go"})},
		{"bold", "Action: **calculator**\nAction Input: 1", action("", "calculator", obj{"expression": "1"})},
		{"trailing punctuation", "Action: calculator.\nAction Input: 1", action("", "calculator", obj{"expression": "1"})},
		{"brackets around the name", "Action: [calculator]\nAction Input: 1", action("", "calculator", obj{"expression": "1"})},
		{"unregistered name passes through", "Action: Get_Weather\nAction Input: {\"city\": \"Oslo\"}", action("", "Get_Weather", obj{"city": "Oslo"})},
		{"unregistered tool gets input", "Action: lookup\nAction Input: Oslo", action("", "lookup", obj{"input": "Oslo"})},
	})
}

func TestArgumentInference(t *testing.T) {
	runCases(t, []parseCase{
		{"own keys kept", `Action: http_request` + "\n" + `Action Input: {"url": "https://a.example", "method": "PUT", "body": "x"}`,
			action("", "http_request", obj{"url": "https://a.example", "method": "PUT", "body": "x"})},
		{"one unknown key remapped", `Action: web_search` + "\n" + `Action Input: {"q": "go"}`, action("", "web_search", obj{"query": "go"})},
		{"own key in another case renamed", `Action: web_search` + "\n" + `Action Input: {"Query": "go"}`, action("", "web_search", obj{"query": "go"})},
		{"wrapped arguments unwrapped", `Action: web_search` + "\n" + `Action Input: {"arguments": {"query": "go"}}`, action("", "web_search", obj{"query": "go"})},
		{"several unknown keys kept for the tool to reject", `Action: web_search` + "\n" + `Action Input: {"a": 1, "b": 2}`, action("", "web_search", obj{"a": 1.0, "b": 2.0})},
		{"unregistered tool keeps its object", `Action: get_weather` + "\n" + `Action Input: {"city": "Oslo", "days": 3}`, action("", "get_weather", obj{"city": "Oslo", "days": 3.0})},
		{"empty object for a tool without arguments", "Action: get_time\nAction Input: {}", action("", "get_time", obj{})},
	})
}

func TestJSONProtocol(t *testing.T) {
	runCases(t, []parseCase{
		{"thought and action object", `{"thought": "look", "action": {"name": "web_search", "arguments": {"query": "ReAct"}}}`,
			action("look", "web_search", obj{"query": "ReAct"})},
		{"thought and answer", `{"thought": "known", "answer": "42"}`, final("known", "42")},
		{"final_answer key", `{"final_answer": "done"}`, final("", "done")},
		{"LangChain blob", `{"action": "web_search", "action_input": "ReAct"}`, action("", "web_search", obj{"query": "ReAct"})},
		{"LangChain blob with object input", `{"action": "http_request", "action_input": {"url": "https://a.example"}}`, action("", "http_request", obj{"url": "https://a.example"})},
		{"LangChain final answer blob", `{"action": "Final Answer", "action_input": "Paris"}`, final("", "Paris")},
		{"blob in a fence", "```json\n{\"action\": \"calculator\", \"action_input\": \"1+1\"}\n```", action("", "calculator", obj{"expression": "1+1"})},
		{"blob after a Thought label", "Thought: search it\n```json\n{\"action\": \"web_search\", \"action_input\": \"go\"}\n```", action("search it", "web_search", obj{"query": "go"})},
		{"blob under an empty Action label", "Thought: search it\nAction:\n```json\n{\"action\": \"web_search\", \"action_input\": \"go\"}\n```", action("search it", "web_search", obj{"query": "go"})},
		{"blob after prose", "Let me look this up.\n{\"action\": \"web_search\", \"action_input\": {\"query\": \"go\"}}", action("Let me look this up.", "web_search", obj{"query": "go"})},
		{"OpenAI function-call shape", `{"name": "calculator", "arguments": "{\"expression\": \"2*3\"}"}`, action("", "calculator", obj{"expression": "2*3"})},
		{"AutoGPT command", `{"thoughts": {"text": "run it"}, "command": {"name": "shell", "args": {"command": "pwd"}}}`, action("run it", "shell", obj{"command": "pwd"})},
		{"single-quoted protocol object", `{'thought': 'x', 'action': {'name': 'calculator', 'arguments': {'expression': '1'}}}`, action("x", "calculator", obj{"expression": "1"})},
		{"protocol object followed by a hallucinated observation", "{\"action\": \"calculator\", \"action_input\": \"1\"}\nObservation: 1", action("", "calculator", obj{"expression": "1"})},
		{"JSON that is not the protocol is an answer", `{"name": "Ada", "born": 1815}`, final("", `{"name": "Ada", "born": 1815}`)},
		{"shell arguments alone are not a call", `{"command": "ls"}`, final("", `{"command": "ls"}`)},
	})
}

func TestObservationAndOrder(t *testing.T) {
	runCases(t, []parseCase{
		{"hallucinated observation ends the step", "Thought: a\nAction: calculator\nAction Input: 1+1\nObservation: 2\nThought: b\nFinal Answer: 2",
			action("a", "calculator", obj{"expression": "1+1"})},
		{"numbered observation", "Action 1: web_search[x]\nObservation 1: y\nAction 2: web_search[z]", action("", "web_search", obj{"query": "x"})},
		{"bare Observation line left by a stop word", "Action: calculator\nAction Input: 1+1\nObservation", action("", "calculator", obj{"expression": "1+1"})},
		{"observation in Chinese", "行动: calculator\n行动输入: 1\n观察: 1", action("", "calculator", obj{"expression": "1"})},
		{"action first wins", "Thought: a\nAction: calculator\nAction Input: 1\nFinal Answer: 1", action("a", "calculator", obj{"expression": "1"})},
		{"final answer first wins", "Thought: a\nFinal Answer: 1\nAction: calculator\nAction Input: 1", final("a", "1")},
		{"echoed observation before the reply is skipped", "Observation: 4\nThought: done\nFinal Answer: 4", final("done", "4")},
		{"echoed observation, then a hallucinated one", "Observation: 4\nAnswer: 0\n\nObservation: 5\nAnswer: 1", final("", "0")},
		{"first action of several", "Action: calculator\nAction Input: 1\nAction: calculator\nAction Input: 2", action("", "calculator", obj{"expression": "1"})},
		{"Action: None then the answer", "Thought: no tool needed\nAction: None\nFinal Answer: 5", final("no tool needed", "5")},
		{"multi-line final answer", "Final Answer: Steps:\n1. one\n2. two", final("", "Steps:\n1. one\n2. two")},
		{"final answer keeps a code block", "Final Answer:\n```go\nfmt.Println(1)\n```", final("", "```go\nfmt.Println(1)\n```")},
	})
}

func TestFinalAnswerConventions(t *testing.T) {
	runCases(t, []parseCase{
		{"ReAct paper Finish", "Thought 3: done\nAction 3: Finish[1,800 to 7,000 ft]", final("done", "1,800 to 7,000 ft")},
		{"Finish on its own line", "Thought: done\nFinish[yes]", final("done", "yes")},
		{"Final Answer as an action", "Thought: done\nAction: Final Answer\nAction Input: \"Paris\"", final("done", "Paris")},
		{"final_answer tool call with an object", "Action: final_answer\nAction Input: {\"answer\": \"Paris\"}", final("", "Paris")},
		{"no labels at all", "The answer is 12.", final("", "The answer is 12.")},
		{"no labels, several lines", "Line one.\n\nLine two.", final("", "Line one.\n\nLine two.")},
		{"reasoning is not protocol", "<think>Action: shell\nAction Input: rm -rf /</think>\nFinal Answer: no", final("", "no")},
		{"reasoning opened by the template", "I should answer. Action: foo</think>\n\nThe answer is 3.", final("", "The answer is 3.")},
	})
}

func TestErrors(t *testing.T) {
	p := parser.New(builtins)
	cases := []struct {
		name    string
		text    string
		want    error
		mention string
	}{
		{"empty reply", "", parser.ErrEmpty, "Final Answer"},
		{"blank reply", " \n\t\n", parser.ErrEmpty, "Action Input"},
		{"only reasoning", "<think>hmm</think>", parser.ErrEmpty, "Thought"},
		{"a thought alone", "Thought: let me think", parser.ErrNoAction, "Final Answer:"},
		{"a thought alone names the tools", "Thought: let me think", parser.ErrNoAction, "web_search"},
		{"an action without input", "Thought: x\nAction: web_search", parser.ErrNoActionInput, `Action Input: {"query": "..."}`},
		{"an action with a blank input", "Action: calculator\nAction Input:   ", parser.ErrNoActionInput, `{"expression": "..."}`},
		{"a long thought then an action without input", strings.Repeat("think ", 1000) + "\nAction: calculator", parser.ErrNoActionInput, "Action: calculator"},
		{"an empty Action label", "Thought: hmm\nAction:\n", parser.ErrNoToolName, "tool"},
		{"an empty final answer", "Thought: x\nFinal Answer:", parser.ErrEmptyAnswer, "Final Answer"},
		{"an echoed observation only", "Observation: 4", parser.ErrNoAction, "Observation"},
		{"a JSON thought only", `{"thought": "hmm"}`, parser.ErrNoAction, "Action"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := p.Parse(c.text)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", c.text, st)
			}
			var perr *parser.Error
			if !errors.As(err, &perr) || !errors.Is(err, c.want) {
				t.Fatalf("Parse(%q) error = %v (%T), want a *parser.Error wrapping %v", c.text, err, err, c.want)
			}
			if !strings.Contains(err.Error(), c.mention) {
				t.Errorf("message %q should mention %q", err.Error(), c.mention)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	p := parser.New(builtins)
	cases := []struct {
		name, tool, input, wantName string
		want                        map[string]any
	}{
		{"raw text onto the primary argument", "calculator", "2+2", "calculator", obj{"expression": "2+2"}},
		{"JSON object kept", "web search", `{"query": "go", "max_results": 2}`, "web_search", obj{"query": "go", "max_results": 2.0}},
		{"unknown tool", "mine", "x", "mine", obj{"input": "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name, args := p.Args(c.tool, c.input)
			if name != c.wantName || !reflect.DeepEqual(args, c.want) {
				t.Errorf("Args(%q, %q) = %q, %v; want %q, %v", c.tool, c.input, name, args, c.wantName, c.want)
			}
		})
	}
}

func TestNilTools(t *testing.T) {
	st, err := parser.New(nil).Parse("Action: calculator\nAction Input: 1+1")
	if err != nil || st.Action != "calculator" || !reflect.DeepEqual(st.Args, obj{"input": "1+1"}) {
		t.Errorf("got %+v, %v; want calculator with {input: 1+1}", st, err)
	}
}

func TestMoreShapes(t *testing.T) {
	runCases(t, []parseCase{
		{"tool_call tags around a JSON call", "<tool_call>\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"go\"}}\n</tool_call>", action("", "web_search", obj{"query": "go"})},
		{"tool_call tag on the object's line", "Let me check.\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2*3\"}}</tool_call>", action("Let me check.", "calculator", obj{"expression": "2*3"})},
		{"a reply that is one call of a registered tool", "web_search(query=\"go release\")", action("", "web_search", obj{"query": "go release"})},
		{"a fenced call", "```python\ncalculator(\"3**2\")\n```", action("", "calculator", obj{"expression": "3**2"})},
		{"name then JSON object", "Action: get_weather {\"city\": \"Oslo\"}", action("", "get_weather", obj{"city": "Oslo"})},
		{"registered name then JSON object", "Action: web_search {\"query\": \"go\"}", action("", "web_search", obj{"query": "go"})},
		{"commentary after raw input", "Action: web_search\nAction Input: golang generics\n\nI will wait for the results.", action("", "web_search", obj{"query": "golang generics"})},
		{"YAML-like input", "Action: web_search\nAction Input:\n  query: golang\n  max_results: 3", action("", "web_search", obj{"query": "golang", "max_results": 3.0})},
		{"comma after the name", "Action: calculator, Action Input: 2+2", action("", "calculator", obj{"expression": "2+2"})},
		{"colon form with key: value", "Action: web_search: query: golang", action("", "web_search", obj{"query": "golang"})},
		{"raw input that looks like a key but is not one", "Action: web_search\nAction Input: site:go.dev generics", action("", "web_search", obj{"query": "site:go.dev generics"})},
		{"an echoed question is not thought", "Question: What is 2+2?\nThought: simple\nFinal Answer: 4", final("simple", "4")},
		{"a question label alone is no protocol", "Question: What is 2+2?\nIt is 4.", final("", "Question: What is 2+2?\nIt is 4.")},
		{"name and input in code blocks of their own", "Thought: calc\n\n**Action:**\n```\ncalculator\n```\n**Action Input:**\n```\n5*5\n```", action("calc", "calculator", obj{"expression": "5*5"})},
		{"generic Input label right after the action", "Action: web_search\nInput: golang", action("", "web_search", obj{"query": "golang"})},
		{"generic Arguments label right after the action", "Action: http_request\nArguments: {\"url\": \"https://a.example\"}", action("", "http_request", obj{"url": "https://a.example"})},
		{"generic Input label elsewhere is text", "Final Answer: The function takes\nInput: a list\nOutput: a number", final("", "The function takes\nInput: a list\nOutput: a number")},
		{"the tool's own keys below the action", "Thought: look\nAction: web_search\nquery: golang generics\nmax_results: 2", action("look", "web_search", obj{"query": "golang generics", "max_results": 2.0})},
		{"Tool Output cuts like an observation", "Action: calculator\nAction Input: 2+2\nTool Output: 4\nFinal Answer: 4", action("", "calculator", obj{"expression": "2+2"})},
		{"emoji before the labels", "💭 Thought: easy\n✅ Final Answer: 4", final("easy", "4")},
		{"chat-template tokens", "Thought: go\nAction: web_search\nAction Input: golang<|im_end|>", action("go", "web_search", obj{"query": "golang"})},
		{"end-of-sequence token after the answer", "Final Answer: 4</s>", final("", "4")},
		{"quoted tool name", "Action: \"calculator\"\nAction Input: 1", action("", "calculator", obj{"expression": "1"})},
		{"reasoning tag with protocol after", "<think>\nThe user wants 2+2. Final Answer: maybe 5?\n</think>\n\nThought: compute\nAction: calculator\nAction Input: 2+2", action("compute", "calculator", obj{"expression": "2+2"})},
	})
}

func TestObservationAt(t *testing.T) {
	cases := []struct {
		name, text string
		want       int
	}{
		{"no observation", "Action: calculator\nAction Input: 1", -1},
		{"a made-up observation", "Action: calculator\nAction Input: 1\nObservation: 1", len("Action: calculator\nAction Input: 1\n")},
		{"a numbered bold one", "Thought: x\n**Observation 2:** y", len("Thought: x\n")},
		{"an echoed one first does not count", "Observation: 4\nFinal Answer: 4", -1},
		{"the word in prose does not count", "Thought: the observation: later", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parser.ObservationAt(c.text); got != c.want {
				t.Errorf("ObservationAt(%q) = %d, want %d", c.text, got, c.want)
			}
		})
	}
}

// TestExactToolNameWins checks that a tool whose name folds onto another's
// ("web.search" onto "web_search") never takes the other's calls.
func TestExactToolNameWins(t *testing.T) {
	tools := fakeTools{"web.search": {"q"}, "web_search": {"query"}, "Calculator Tool": {"x"}, "calculator": {"expression"}}
	p := parser.New(tools)
	tests := []struct{ reply, want string }{
		{"Action: web_search\nAction Input: zig", "web_search"},
		{"Action: web.search\nAction Input: zig", "web.search"},
		{"Action: Web Search\nAction Input: zig", "web_search"},
		{"Action: calculator\nAction Input: 2+2", "calculator"},
		{"Action: Calculator Tool\nAction Input: 2+2", "Calculator Tool"},
	}
	for _, tt := range tests {
		st, err := p.Parse(tt.reply)
		if err != nil || st.Action != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want the tool %q", tt.reply, st.Action, err, tt.want)
		}
	}
}
