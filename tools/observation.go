package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Truncate returns s unchanged when it is at most max bytes long. Otherwise
// it keeps the first max bytes (backing off to a UTF-8 character boundary)
// and appends a line "[truncated: N bytes omitted]", so the model knows the
// observation is incomplete. N counts the bytes of the tool's output that
// are missing, not only those cut here: a note that a tool wrote in the
// part cut off to say that it had already cut its output ("[stdout cut:
// 40000 bytes omitted]") adds the bytes it names (see [Omitted]). When
// such a note says that output was left unread ("[response body cut at …;
// the rest was not read]"), the marker says "more than N bytes", and the
// note is kept after it. A max of zero or less means no limit.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	n, more := Omitted(s[cut:])
	out := s[:cut] + "\n" + omittedMarker(n, more)
	notes := 0
	for line := range strings.Lines(s[cut:]) {
		if line = strings.TrimSpace(line); isCutNote(line) && noteOmitted(line) < 0 && notes < 4 {
			out += "\n" + line
			notes++
		}
	}
	return out
}

// omittedMarker is the line Truncate adds to a cut observation.
func omittedMarker(n int64, more bool) string {
	if more {
		return fmt.Sprintf("[truncated: more than %d bytes omitted]", n)
	}
	return fmt.Sprintf("[truncated: %d bytes omitted]", n)
}

// Omitted returns how many bytes of a tool's output part stands for, when
// part is cut from an observation: its own bytes, less the lines in it
// that note an earlier cut, plus the bytes those notes say were left out
// ("[stdout cut: N bytes omitted]", "[truncated: N bytes omitted]"),
// with the line breaks before them. more
// is true when a note says output was left out without saying how much
// ("[response body cut at N bytes; the rest was not read]", "[truncated:
// more than N bytes omitted]"): then more than n bytes are missing.
func Omitted(part string) (n int64, more bool) {
	n = int64(len(part))
	at := 0 // where line starts in part
	for line := range strings.Lines(part) {
		start := at
		at += len(line)
		note := strings.TrimSpace(line)
		if !isCutNote(note) {
			continue
		}
		n -= int64(len(line))
		if start > 0 && part[start-1] == '\n' {
			n-- // the line break before a note is the note's too
		}
		switch k := noteOmitted(note); {
		case k >= 0:
			n += k
			more = more || strings.Contains(note, "more than ")
		default:
			more = true
		}
	}
	return n, more
}

// cutCount reads the bytes a cut note says were left out.
var cutCount = regexp.MustCompile(`(\d+) bytes omitted\]$`)

// noteOmitted returns the bytes a cut note says were left out, or -1 when
// it does not say.
func noteOmitted(note string) int64 {
	m := cutCount.FindStringSubmatch(note)
	if m == nil {
		return -1
	}
	k, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return -1
	}
	return k
}

// isCutNote reports whether line is a note a tool of this package writes
// when it cuts its own output, or the marker of Truncate.
func isCutNote(line string) bool {
	return strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") && len(line) < 120 &&
		(strings.Contains(line, " cut: ") || strings.Contains(line, " cut at ") || strings.HasPrefix(line, "[truncated: "))
}
