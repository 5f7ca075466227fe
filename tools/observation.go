package tools

import (
	"fmt"
	"unicode/utf8"
)

// Truncate returns s unchanged when it is at most max bytes long. Otherwise
// it keeps the first max bytes (backing off to a UTF-8 character boundary)
// and appends a line "[truncated: N bytes omitted]", so the model knows the
// observation is incomplete. A max of zero or less means no limit.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n[truncated: %d bytes omitted]", s[:cut], len(s)-cut)
}
