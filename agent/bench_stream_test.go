package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// pieces returns text cut into pieces of n bytes.
func pieces(text string, n int) []string {
	var out []string
	for len(text) > n {
		out = append(out, text[:n])
		text = text[n:]
	}
	return append(out, text)
}

// benchmarkStream passes a streamed reply through the cutter that looks
// for a complete action, as a model call does, piece by piece.
func benchmarkStream(b *testing.B, chunks []string) {
	p := parser.New(nil)
	ctx := context.Background()
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		c := newStreamCutter(p, nil)
		for _, chunk := range chunks {
			if err := c.write(ctx, []byte(chunk)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// The reproductions: a model stuck writing newlines, in pieces of
// "a\n". The time per byte stays flat as the reply doubles: the cutter
// reads each piece once, not the whole reply again.
func BenchmarkStreamNewlines20000(b *testing.B) {
	benchmarkStream(b, pieces(strings.Repeat("a\n", 20000), 2))
}

func BenchmarkStreamNewlines40000(b *testing.B) {
	benchmarkStream(b, pieces(strings.Repeat("a\n", 40000), 2))
}

// BenchmarkStream4MB streams 4 MiB of short lines in pieces of 4 KiB.
func BenchmarkStream4MB(b *testing.B) {
	benchmarkStream(b, pieces(strings.Repeat("a\n", 2<<20), 4<<10))
}

// BenchmarkStreamThoughts40000 streams 40,000 lines of thought: lines
// with a label, which the cutter cannot skip.
func BenchmarkStreamThoughts40000(b *testing.B) {
	benchmarkStream(b, pieces(strings.Repeat("Thought: a\n", 40000), 11))
}

// BenchmarkStreamReasoning40000 streams 40,000 lines of reasoning in an
// open <think> block.
func BenchmarkStreamReasoning40000(b *testing.B) {
	benchmarkStream(b, pieces("<think>"+strings.Repeat("a\n", 40000), 2))
}
