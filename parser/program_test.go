package parser_test

import (
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// fibonacci is the program of LangChain's Python agent in its own
// documentation, as the model wrote it after "Action Input:".
const fibonacci = "def fibonacci(n):\n    if n == 0:\n        return 0\n    elif n == 1:\n        return 1\n    else:\n        return fibonacci(n-1) + fibonacci(n-2)\n\nprint(fibonacci(10))"

// pandasPlot is a program that opens below its label, its parts parted
// by blank lines and comments.
const pandasPlot = "import pandas as pd\nimport matplotlib.pyplot as plt\n\ndf = pd.read_csv('sales.csv')\n\n# Total sales by month\nmonthly = df.groupby('month')['sales'].sum()\n\nmonthly.plot(kind='bar')\nplt.savefig('sales.png')"

// training has a blank line inside an indented block, and a call whose
// arguments run over lines.
const training = "import torch\n\nmodel = torch.nn.Sequential(\n    torch.nn.Linear(1, 1)\n)\nloss_fn = torch.nn.MSELoss()\n\nfor epoch in range(100):\n    y_pred = model(x)\n\n    loss = loss_fn(y_pred, y)\n    loss.backward()\n\nprint(loss.item())"

// docstring has a blank line inside a triple-quoted string.
const docstring = "def area(r):\n    \"\"\"The area of a circle.\n\n    r is its radius.\n    \"\"\"\n    return 3.14159 * r ** 2\n\nprint(area(2))"

// programInputs are programs written as an Action Input, each read whole
// across its blank lines: 2e78e25 kept the lines up to the first.
var programInputs = shapeTable{why: "a program is the input across blank lines, up to the next label", tools: builtins, cases: []parseCase{
	{"a program that opens on the label's line", "I need to calculate the 10th fibonacci number\nAction: Python REPL\nAction Input: " + fibonacci + "\n",
		action("I need to calculate the 10th fibonacci number", "Python REPL", obj{"input": fibonacci})},
	{"a program below its label, with comments", "Thought: I should plot the sales.\nAction: Python_REPL\nAction Input:\n" + pandasPlot,
		action("I should plot the sales.", "Python_REPL", obj{"input": pandasPlot})},
	{"a blank line inside an indented block", "Thought: train it\nAction: Python_REPL\nAction Input: " + training,
		action("train it", "Python_REPL", obj{"input": training})},
	{"a blank line inside a docstring", "Action: Python_REPL\nAction Input: " + docstring, action("", "Python_REPL", obj{"input": docstring})},
	{"up to a made-up observation", "Action: Python REPL\nAction Input: " + fibonacci + "\nObservation: 55\nThought: I know it.",
		action("", "Python REPL", obj{"input": fibonacci})},
	{"up to the next thought", "Action: Python_REPL\nAction Input: " + pandasPlot + "\nThought: the chart is saved.",
		action("", "Python_REPL", obj{"input": pandasPlot})},
	{"up to an observation labelled in German", "Gedanke: rechnen\nAktion: Python_REPL\nAktionseingabe: " + fibonacci + "\n\nBeobachtung: 55",
		action("rechnen", "Python_REPL", obj{"input": fibonacci})},
	{"up to an observation labelled in Korean", "생각: 계산\n행동: Python_REPL\n행동 입력: " + fibonacci + "\n관찰: 55",
		action("계산", "Python_REPL", obj{"input": fibonacci})},
	{"comments between the parts", "Action: python_repl_ast\nAction Input: total = df['sales'].sum()\n\n# then the mean\n\nmean = df['sales'].mean()\nprint(total, mean)",
		action("", "python_repl_ast", obj{"input": "total = df['sales'].sum()\n\n# then the mean\n\nmean = df['sales'].mean()\nprint(total, mean)"})},
	{"a query of SQL", "Action: sql_db_query\nAction Input: SELECT name, COUNT(*) AS n\nFROM tracks\n\nGROUP BY name\nORDER BY n DESC\nLIMIT 5",
		action("", "sql_db_query", obj{"input": "SELECT name, COUNT(*) AS n\nFROM tracks\n\nGROUP BY name\nORDER BY n DESC\nLIMIT 5"})},
	{"JavaScript", "Action: run_js\nAction Input: const xs = [3, 1, 2];\n\nxs.sort();\nconsole.log(xs);",
		action("", "run_js", obj{"input": "const xs = [3, 1, 2];\n\nxs.sort();\nconsole.log(xs);"})},
}}

// programInputsRegistered is a program for a registered tool.
var programInputsRegistered = shapeTable{why: programInputs.why, tools: fakeTools{"python_repl_ast": {"query"}}, cases: []parseCase{
	{"onto a registered tool's argument", "Thought: count them\nAction: python_repl_ast\nAction Input: n = len(df)\n\nprint(n)",
		action("count them", "python_repl_ast", obj{"query": "n = len(df)\n\nprint(n)"})},
}}

func TestAProgramIsTheInputAcrossBlankLines(t *testing.T) {
	programInputs.run(t)
	programInputsRegistered.run(t)
}

func TestWhatFollowsAnInputAndABlankLineStaysOut(t *testing.T) {
	runCases(t, []parseCase{
		{"prose after an ordinary input", "Action: web_search\nAction Input: rainfall in Lima\n\nI will wait for the results.",
			action("", "web_search", obj{"query": "rainfall in Lima"})},
		{"prose after a line of code", "Action: python_repl_ast\nAction Input: df.shape[0]\n\nThis gives the number of rows.",
			action("", "python_repl_ast", obj{"input": "df.shape[0]"})},
		{"prose after a program", "Action: Python_REPL\nAction Input: import math\nprint(math.pi)\n\nThis prints pi.",
			action("", "Python_REPL", obj{"input": "import math\nprint(math.pi)"})},
		{"prose after comments after a program", "Action: Python_REPL\nAction Input: x = 6 * 7\nprint(x)\n\n# done\n\nThat is all.",
			action("", "Python_REPL", obj{"input": "x = 6 * 7\nprint(x)"})},
		{"indented prose after a program", "Action: Python_REPL\nAction Input: print(1)\n\n    The output will be 1.",
			action("", "Python_REPL", obj{"input": "print(1)"})},
		{"an expression is no program", "Action: calculator\nAction Input: 2+2\n\n3+3", action("", "calculator", obj{"expression": "2+2"})},
		{"words are no program, whatever follows", "Action: web_search\nAction Input: the weather in Lima\n\nprint(1)",
			action("", "web_search", obj{"query": "the weather in Lima"})},
		{"a sentence that opens with a keyword in capitals", "Action: web_search\nAction Input: If rates rise, what then?\n\nprint(1)",
			action("", "web_search", obj{"query": "If rates rise, what then?"})},
		{"a domain is no code", "Action: http_request\nAction Input: example.com\n\nexample.org", action("", "http_request", obj{"url": "example.com"})},
	})
	runErrors(t, parser.New(builtins), []errCase{
		{"None and commentary", "Action: web_search\nAction Input: None\n\nprint(1)", parser.ErrNoActionInput, `"query"`},
	})
}
