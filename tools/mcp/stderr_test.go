package mcp

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"lines are kept across writes", []string{"one\ntw", "o\nthr"}, []string{"one", "two", "thr"}},
		{"blank lines and carriage returns are dropped", []string{"a\r\n\n  \nb\n"}, []string{"a", "b"}},
		{"only the last lines are kept", []string{strings.Repeat("x\n", 3) + "1\n2\n3\n4\n5\n6\n7\n8\n"}, []string{"1", "2", "3", "4", "5", "6", "7", "8"}},
		{"a long line is cut", []string{strings.Repeat("y", 1000) + "\n"}, []string{strings.Repeat("y", stderrLineSize)}},
		{"control characters are escaped", []string{"\x1b[31mred\x1b[0m \u202eevil\n"}, []string{`\x1b[31mred\x1b[0m \u202eevil`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tl tail
			for _, w := range tt.writes {
				fmt.Fprint(&tl, w)
			}
			if got := tl.Lines(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
