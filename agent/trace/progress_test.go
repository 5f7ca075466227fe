package trace

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShortenMiddle(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"a text that fits stays whole", "ollama:qwen2.5:7b", 20, "ollama:qwen2.5:7b"},
		{"a long name keeps its start and end", "openai:qwen2.5-7b-instruct@http://127.0.0.1:1234/v1", 21, "openai:qwe….1:1234/v1"},
		{"characters are counted, not bytes", "問題問題問題問題", 5, "問題…問題"},
		{"no room gives nothing", "abc", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ShortenMiddle(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("ShortenMiddle(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
			if utf8.RuneCountInString(got) > max(tt.n, 0) {
				t.Errorf("%q is longer than %d", got, tt.n)
			}
		})
	}
}

func TestProgressFitsTheTerminal(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b, true, 80)
	p.Update(3, 12, "openai:qwen2.5-7b-instruct@http://127.0.0.1:1234/v1 text arithmetic-question-number-three: right\x1b[2J")
	line := strings.TrimPrefix(b.String(), "\r\033[K")
	if n := utf8.RuneCountInString(line); n >= 80 {
		t.Errorf("the line is %d columns wide at 80: %q", n, line)
	}
	if strings.Contains(line, "\x1b") {
		t.Errorf("the label's escape reached the terminal: %q", line)
	}
	var quiet strings.Builder
	NewProgress(&quiet, false, 80).Update(1, 2, "x")
	if quiet.Len() != 0 {
		t.Errorf("not a terminal, yet it wrote %q", quiet.String())
	}
}
