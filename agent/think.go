package agent

import "strings"

// reasoningTags are the tags reasoning models wrap their thinking in; the
// parser's SplitReasoning knows the same ones.
var reasoningTags = [...]string{"think", "thinking", "reasoning"}

// inReasoning reports whether text ends inside an unclosed reasoning block.
func inReasoning(text string) bool {
	lower := strings.ToLower(text)
	for _, t := range reasoningTags {
		open := strings.LastIndex(lower, "<"+t+">")
		if open >= 0 && !strings.Contains(lower[open:], "</"+t+">") {
			return true
		}
	}
	return false
}
