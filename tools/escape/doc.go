// Package escape shows text from outside — model replies, web pages,
// server errors, what an MCP server or a plugin file says of itself — so
// that what a person reads is all there is.
//
// [Visible] writes what would not show as itself on a terminal (control
// characters, escape sequences, invisible and text-direction characters,
// bytes that are not UTF-8) as escapes, the way Go writes them in a
// string literal; [Hidden] says what the first of them is. [Literal] does
// the same for text that is to run as written, joiners included, and
// [VisibleJSON] and [LiteralJSON] do it inside JSON text, which then
// holds the same value. [Unmistakable] goes further for what a person is
// to judge before it runs: letters that pass for others (a Cyrillic а in
// apple.com) and stacks of combining marks.
//
// The package imports nothing of react-agent's, so that every layer, the
// tools, the trace, the log and the command line, can use it.
package escape
