package mcp

import (
	"bytes"
	"strings"
	"sync"

	"github.com/react-agent/react-agent/tools"
)

// Bounds of what a server's error quotes of its stderr.
const (
	stderrLines    = 8
	stderrLineSize = 300
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

// add keeps line, dropping the oldest beyond stderrLines.
func (t *tail) add(line string) {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > stderrLines {
		t.lines = t.lines[len(t.lines)-stderrLines:]
	}
}

// Lines returns the last lines written, the unfinished one included,
// with control characters escaped.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := append([]string(nil), t.lines...)
	if strings.TrimSpace(string(t.partial)) != "" {
		lines = append(lines, string(t.partial))
	}
	if len(lines) > stderrLines {
		lines = lines[len(lines)-stderrLines:]
	}
	for i, l := range lines {
		lines[i] = tools.Visible(l)
	}
	return lines
}

// Reset forgets what was written, before a restart.
func (t *tail) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines, t.partial = nil, t.partial[:0]
}
