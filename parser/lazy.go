package parser

import (
	"regexp"
	"sync"
)

// The parser's tables and regular expressions are built the first time
// a parse needs them, not when the program starts: a command that never
// parses pays nothing for them.

// lazyRegexp returns a function that compiles expr on its first call and
// returns the same Regexp on every call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
