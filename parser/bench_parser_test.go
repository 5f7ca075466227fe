package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

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
				for b.Loop() {
					p.Parse(text)
				}
			})
		}
	}
}

// typicalAction is a 150-byte reply of the usual kind.
const typicalAction = "Thought: I need the current population of Tokyo to answer.\nAction: web_search\nAction Input: {\"query\": \"Tokyo population 2026\", \"max_results\": 3}\n"

func BenchmarkParseTypical(b *testing.B) {
	p := parser.New(builtins)
	b.SetBytes(int64(len(typicalAction)))
	for b.Loop() {
		p.Parse(typicalAction)
	}
}
