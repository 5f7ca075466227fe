package parser

import (
	"fmt"
	"strings"
	"testing"
)

// scanShapes are replies of a given length to stream through a Scanner.
var scanShapes = []struct {
	name string
	make func(n int) string
}{
	// Lines of thought, as a model that thinks at length writes them.
	{"thoughts", func(n int) string {
		return fit("Thought: I should look up the weather in Lisbon, then add: 3 + 4.\n", n)
	}},
	// One line with no break, with colons in it: a long thought.
	{"line", func(n int) string {
		return "Thought: " + fit("the time is 12:30, the rain: light, the wind: west; ", n-len("Thought: "))
	}},
	// An action whose input is a JSON object on one line.
	{"json", func(n int) string {
		head := "Thought: I will search.\nAction: web_search\nAction Input: {"
		return head + fit(`"query": "weather in Lisbon", `, n-len(head))
	}},
	// Text with no label at all.
	{"prose", func(n int) string {
		return fit("The weather in Lisbon is mild in spring, with light rain.\n", n)
	}},
}

// fit repeats s to n bytes.
func fit(s string, n int) string {
	return strings.Repeat(s, n/len(s)+1)[:n]
}

// BenchmarkScan streams replies from 4 KB to 1 MiB through a Scanner, in
// pieces of a byte and of 4 KiB, asking for the cut after each piece, as
// the agent does: the time per byte stays flat as the reply grows.
func BenchmarkScan(b *testing.B) {
	p := New(nil)
	for _, shape := range scanShapes {
		for _, size := range []int{4 << 10, 64 << 10, 1 << 20} {
			text := shape.make(size)
			for _, piece := range []int{1, 4 << 10} {
				chunks := pieces(text, piece)
				b.Run(fmt.Sprintf("%s/%dKiB/pieces=%d", shape.name, size>>10, piece), func(b *testing.B) {
					b.SetBytes(int64(len(text)))
					b.ReportAllocs()
					for b.Loop() {
						s := p.NewScanner()
						for _, c := range chunks {
							s.WriteString(c)
							if s.Cut() >= 0 {
								b.Fatal("cut")
							}
						}
					}
				})
			}
		}
	}
}
