package parser_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// parseLoop parses text for b.Loop, and reports besides the time a
// parse took the CPU time its thread ran for it ("cpu-ns/op", where the
// system tells it): on a loaded machine the time a parse waits for a
// processor is no part of it.
func parseLoop(b *testing.B, p *parser.Parser, text string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := threadTime()
	for b.Loop() {
		p.Parse(text)
	}
	if end, _ := threadTime(); ok {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// benchSizes are the input sizes each shape is measured at.
var benchSizes = []struct {
	name string
	n    int
}{{"4KB", 4 << 10}, {"10KB", 10 << 10}, {"100KB", 100 << 10}, {"1MiB", 1 << 20}}

// fill repeats unit until the text is n bytes long.
func fill(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// benchShapes build inputs of about n bytes in the shapes that make
// parsers slow.
var benchShapes = []struct {
	name  string
	build func(n int) string
}{
	{"LongThought", func(n int) string {
		return "Thought: " + fill("I should consider every option before acting, and then some more.\n", n-9)
	}},
	{"LongJSONInput", func(n int) string {
		head := "Thought: search\nAction: web_search\nAction Input: {\"query\": \""
		return head + fill("golang ", n-len(head)-2) + "\"}"
	}},
	{"LongRawInput", func(n int) string {
		head := "Thought: run it\nAction: shell\nAction Input: "
		return head + fill("echo 'a line of a long script' >> out.txt\n", n-len(head))
	}},
	{"LongThoughtNoInput", func(n int) string {
		return "Thought: " + fill("the thought goes on and on. ", n-20) + "\nAction: x"
	}},
	{"SpacedActionLabels", func(n int) string {
		return fill("Action \t  \t   :  \t \t  Action\t \t \t:\t  \n", n)
	}},
	{"SpacedActionLabelsOneLine", func(n int) string {
		return "Action:" + fill(" \t \t  Action \t\t :", n-7)
	}},
	{"LongTupleInput", func(n int) string {
		head := "Thought: search\nAction: web_search\nAction Input: (\""
		return head + fill("golang, ", n-len(head)-3) + "\",)"
	}},
	{"LongInlineArgs", func(n int) string {
		head := "Action: web_search("
		return head + fill("'go', ", n-len(head)-1) + ")"
	}},
	{"LongPhraseAction", func(n int) string {
		return "Action: " + fill("Search the internet for it ", n-26) + "\nAction Input: zig"
	}},
	{"LongPlanProse", func(n int) string {
		return fill("I will now search for the population of each city, so ", n-1) + "."
	}},
	{"LongMarkupAction", func(n int) string {
		head := "Action: <invoke>\n<tool_name>web_search</tool_name>\n<parameters>\n<query>"
		return head + fill("zig ", n-len(head)-40) + "</query>\n</parameters>\n</invoke>"
	}},
	{"LongJSONReply", func(n int) string {
		// A JSON-object protocol reply whose input is one long string.
		head := `{"thought": "search", "action": "web_search", "action_input": "`
		return head + fill("golang ", n-len(head)-2) + `"}`
	}},
	{"WideJSONInput", func(n int) string {
		// An input object of many keys, on one line.
		head := "Thought: search\nAction: web_search\nAction Input: {"
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < n-16; i++ {
			fmt.Fprintf(&b, `"k%d": "v%d", `, i, i)
		}
		b.WriteString(`"query": "zig"}`)
		return b.String()
	}},
	{"LongProgramInput", func(n int) string {
		// A program of many parts parted by blank lines, read whole.
		head := "Thought: run it\nAction: Python_REPL\nAction Input: "
		return head + fill("total = compute(total)\n\n# the next part\nprint(total)\n\n", n-len(head))
	}},
	{"LongFencedCode", func(n int) string {
		// Fences of code that name no tool, each looked at for a call.
		return "Thought: look\n" + fill("```python\nprint(1)\n```\n", n-14)
	}},
	{"LongGateProse", func(n int) string {
		// Tool gates answered Yes on one line, no Action after them.
		return fill("Do I need to use a tool? Yes, I use the tool `x` with input `y`. ", n)
	}},
	{"WideColonLabelsOneLine", func(n int) string {
		// Labels with full-width colons, all on one line, each input an
		// unclosed JSON object: no half-width colon to find.
		unit := "思考：行动输入：{"
		return strings.Repeat(unit, n/len(unit))
	}},
}

func BenchmarkParse(b *testing.B) {
	p := parser.New(builtins)
	for _, shape := range benchShapes {
		for _, size := range benchSizes {
			text := shape.build(size.n)
			b.Run(fmt.Sprintf("%s/%s", shape.name, size.name), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				parseLoop(b, p, text)
			})
		}
	}
}

// typicalAction is a 150-byte reply of the usual kind.
const typicalAction = "Thought: I need the current population of Tokyo to answer.\nAction: web_search\nAction Input: {\"query\": \"Tokyo population 2026\", \"max_results\": 3}\n"

func BenchmarkParseTypical(b *testing.B) {
	p := parser.New(builtins)
	b.SetBytes(int64(len(typicalAction)))
	parseLoop(b, p, typicalAction)
}

// weatherAction is a typical reply that calls a tool named get_weather,
// which the built-in tools do not hold.
const weatherAction = "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"San Francisco\", \"unit\": \"celsius\"}"

// BenchmarkParseTypicalKnownName parses weatherAction for a parser that
// knows get_weather besides the built-in tools.
func BenchmarkParseTypicalKnownName(b *testing.B) {
	tools := fakeTools{"get_weather": {"city", "unit"}}
	for name, args := range builtins {
		tools[name] = args
	}
	p := parser.New(tools)
	b.SetBytes(int64(len(weatherAction)))
	parseLoop(b, p, weatherAction)
}

// BenchmarkParseTypicalUnknownName parses weatherAction for a parser that
// knows only the built-in tools, as parse without --tool does: the name
// is one it was not told of.
func BenchmarkParseTypicalUnknownName(b *testing.B) {
	p := parser.New(builtins)
	b.SetBytes(int64(len(weatherAction)))
	parseLoop(b, p, weatherAction)
}

// BenchmarkParsePunctuatedNames parses an Action line that opens with a
// registered name holding a colon and goes on with colons, for a parser
// whose tools have such names: the name is looked for near the start
// only.
func BenchmarkParsePunctuatedNames(b *testing.B) {
	p := parser.New(fakeTools{"Gmail: Find Email": {"query"}, "web_search": {"query"}})
	for _, size := range benchSizes {
		text := "Action: Gmail: Find Email: " + fill("from:bob ", size.n-27)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			parseLoop(b, p, text)
		})
	}
}
