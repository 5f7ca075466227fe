package trace

import (
	"strings"
	"testing"
	"time"
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
	p := NewProgress(&b, true, 80, nil)
	p.Update(3, 12, 0, "openai:qwen2.5-7b-instruct@http://127.0.0.1:1234/v1", "constrained q3: right\x1b[2J")
	line := strings.TrimPrefix(b.String(), "\r\033[K")
	if n := utf8.RuneCountInString(line); n >= 80 {
		t.Errorf("the line is %d columns wide at 80: %q", n, line)
	}
	if !strings.Contains(line, ":1234/v1 constrained q3: right") || !strings.HasPrefix(line, "[####....") {
		t.Errorf("the line is not shortened in the model's name, whose end stays: %q", line)
	}
	if strings.Contains(line, "\x1b") {
		t.Errorf("the label's escape reached the terminal: %q", line)
	}
}

// TestProgressOffATerminalIsAPlainLineNowAndThen updates a progress
// written to a file, as a clock moves on: a plain line of the count comes
// no more than once every PlainEvery, with no bar, label or escape
// sequence, and one at the end after those, unless the last line said
// it. A batch done sooner writes nothing.
func TestProgressOffATerminalIsAPlainLineNowAndThen(t *testing.T) {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		updates []time.Duration // the time of each update, from the start
		total   int
		end     time.Duration
		want    string
	}{
		{"updates within a few seconds give no line", []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, 3, 4 * time.Second, ""},
		{"updates over a longer time give a line every few seconds", []time.Duration{time.Second, 3 * time.Second, 6 * time.Second, 8 * time.Second, 12 * time.Second}, 6, 13 * time.Second,
			"3/6 runs, 2 failed\n5/6 runs, 4 failed\n"},
		{"the last count comes at the end after the others", []time.Duration{time.Second, 6 * time.Second, 7 * time.Second}, 3, 7 * time.Second,
			"2/3 runs, 1 failed\n3/3 runs, 2 failed\n"},
		{"a first run that takes long is said when it ends", []time.Duration{30 * time.Second, 31 * time.Second}, 3, 31 * time.Second,
			"1/3 runs\n2/3 runs, 1 failed\n"},
		{"a last update said needs no line at the end", []time.Duration{time.Second, 6 * time.Second}, 2, 6 * time.Second,
			"2/2 runs, 1 failed\n"},
		{"no update, no line", nil, 2, time.Second, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			now := start
			p := NewProgress(&b, false, 80, func() time.Time { return now })
			for i, at := range tt.updates {
				now = start.Add(at)
				p.Update(i+1, tt.total, i, "ollama:m", "text q: failed\x1b[2J")
			}
			now = start.Add(tt.end)
			p.Done()
			if b.String() != tt.want {
				t.Errorf("wrote\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}
