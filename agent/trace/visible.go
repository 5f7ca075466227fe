package trace

import "github.com/react-agent/react-agent/tools"

// Visible is [tools.Visible], the one escaper of text from outside.
//
// Deprecated: call tools.Visible.
func Visible(s string) string { return tools.Visible(s) }
