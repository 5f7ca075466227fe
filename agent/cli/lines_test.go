package cli

import (
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestAChatLineOverItsBoundIsLeftOut pipes a chat a line of more than 1
// MiB between two questions: once it ended the session with
// "bufio.Scanner: token too long". The long line is left out with a word
// that names the bound, and the question after it is answered.
func TestAChatLineOverItsBoundIsLeftOut(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Repeat())
	stdin := "What is 17 * 23 + 4?\n" + strings.Repeat("x", maxChatLine+1) + "\nWhat is 17 * 23 + 4?\n"
	got := invocation{args: []string{"chat", "-q", "--base-url", s.URL}, stdin: stdin}.run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "longer than 1 MiB") || s.Calls() != 4 {
		t.Fatalf("want the long line left out, naming 1 MiB, and both questions answered (%d calls)\n%.2000s", s.Calls(), got)
	}
}

func TestLineReader(t *testing.T) {
	t.Parallel()
	const max = 8
	in := "short\r\n" + "exactly8\n" + "nine_byte\n" + strings.Repeat("y", 100) + "\n\nlast9byte"
	l := newLineReader(strings.NewReader(in), max)
	want := []string{"short", "exactly8", "!", "!", "", "!"}
	for i, w := range want {
		line, err := l.next()
		if w == "!" {
			if err != errLineTooLong {
				t.Errorf("line %d: %q, %v; want errLineTooLong", i, line, err)
			}
			continue
		}
		if err != nil || line != w {
			t.Errorf("line %d: %q, %v; want %q", i, line, err, w)
		}
	}
	if _, err := l.next(); err == nil {
		t.Error("want the end of input")
	}
}
