package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Truncate returns s unchanged when it is at most max bytes long. Otherwise
// it keeps the first max bytes (backing off to a UTF-8 character boundary)
// and appends a line "[truncated: N bytes omitted]", so the model knows the
// observation is incomplete. Notes that a tool wrote in the part cut off
// to say that it had already cut its output ("[stdout cut: …]",
// "[response body cut at …]") are kept after that line, so that the model
// learns that more than N bytes are missing. A max of zero or less means
// no limit.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	out := fmt.Sprintf("%s\n[truncated: %d bytes omitted]", s[:cut], len(s)-cut)
	notes := 0
	for line := range strings.Lines(s[cut:]) {
		if line = strings.TrimSpace(line); isCutNote(line) && notes < 4 {
			out += "\n" + line
			notes++
		}
	}
	return out
}

// isCutNote reports whether line is a note a tool of this package writes
// when it cuts its own output.
func isCutNote(line string) bool {
	return strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") && len(line) < 120 &&
		(strings.Contains(line, " cut: ") || strings.Contains(line, " cut at "))
}
