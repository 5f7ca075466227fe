package cli

import (
	"embed"
	"fmt"
	"strings"
)

// topicFiles are the help topics, one text file each: the reference that
// react-agent help TOPIC prints, as go help does.
//
//go:embed topics/*.txt
var topicFiles embed.FS

// topicNames are the help topics in the order help lists them.
var topicNames = []string{
	"usage", "output", "loop", "config", "providers", "constrain", "json", "logging", "traces",
	"evaluation", "safety", "plugins", "mcp", "parser", "scoring", "limits", "library", "layout", "compared",
}

// topic returns the text of the help topic called name, and whether
// there is one.
func topic(name string) (string, bool) {
	data, err := topicFiles.ReadFile("topics/" + name + ".txt")
	if err != nil {
		return "", false
	}
	return string(data), true
}

// topicSummary is the first line of a topic: what it is about.
func topicSummary(name string) string {
	text, _ := topic(name)
	first, _, _ := strings.Cut(text, "\n")
	return first
}

// topicList lists the topics for the top-level help.
func topicList() string {
	var b strings.Builder
	const column = 14
	for _, name := range topicNames {
		b.WriteString(wrap(fmt.Sprintf("  %-*s%s", column-2, name, topicSummary(name)), helpTextWidth, column))
	}
	return b.String()
}
