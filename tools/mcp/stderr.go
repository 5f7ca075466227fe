package mcp

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
		lines[i] = visible(l)
	}
	return lines
}

// Reset forgets what was written, before a restart.
func (t *tail) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines, t.partial = nil, t.partial[:0]
}

// visible returns s with control characters, invalid UTF-8 and other
// characters that do not print escaped as Go writes them (\x1b, \u202e),
// so that text from a server cannot move the cursor, recolour a terminal
// or hide what it says. Tabs and newlines are kept.
func visible(s string) string {
	if !strings.ContainsFunc(s, hidden) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden reports whether r is a character that does not print, other than
// a tab or a newline.
func hidden(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r))
}
