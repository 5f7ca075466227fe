package mcp

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/react-agent/react-agent/tools/escape"
)

// Bounds of what a server's error quotes of its stderr: stderrLines
// lines of at most stderrLineSize bytes, from the last stderrKept lines
// it wrote.
const (
	stderrLines    = 8
	stderrLineSize = 300
	stderrKept     = 200
)

// tail keeps the last lines a server wrote on stderr, for its errors.
// It is safe for concurrent use.
type tail struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
}

// Write keeps the last complete lines of p, and the start of a line not
// yet ended.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if room := stderrLineSize - len(t.partial); room > 0 {
				t.partial = append(t.partial, p[:min(room, len(p))]...)
			}
			break
		}
		if room := stderrLineSize - len(t.partial); room > 0 {
			t.partial = append(t.partial, p[:min(room, i)]...)
		}
		t.add(string(t.partial))
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// add keeps line, dropping the oldest beyond stderrKept.
func (t *tail) add(line string) {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > 2*stderrKept {
		t.lines = append(t.lines[:0], t.lines[len(t.lines)-stderrKept:]...)
	}
}

// Lines returns the last lines written, the unfinished one included,
// with control characters escaped. Runs of indented lines, the frames
// of a stack trace in every language that prints one (node, Python,
// Java, Go, Ruby), are told in one line, so that the line that says what
// went wrong, which such traces leave unindented, is among them.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines[max(0, len(t.lines)-stderrKept):]
	lines = append([]string(nil), lines...)
	if strings.TrimSpace(string(t.partial)) != "" {
		lines = append(lines, string(t.partial))
	}
	lines = foldIndented(lines)
	if len(lines) > stderrLines {
		lines = lines[len(lines)-stderrLines:]
	}
	for i, l := range lines {
		lines[i] = escape.Visible(l)
	}
	return lines
}

// foldIndented replaces each run of two or more indented lines by a line
// that says how many it left out.
func foldIndented(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && indented(lines[j]) {
			j++
		}
		switch {
		case j-i >= 2:
			out = append(out, fmt.Sprintf("    … (%d indented lines left out)", j-i))
			i = j
		default:
			out = append(out, lines[i])
			i++
		}
	}
	return out
}

// indented reports whether line starts with white space.
func indented(line string) bool { return line != "" && (line[0] == ' ' || line[0] == '\t') }

// Reset forgets what was written, before a restart.
func (t *tail) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines, t.partial = nil, t.partial[:0]
}
