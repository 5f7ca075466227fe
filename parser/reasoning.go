package parser

import "strings"

// reasoningTags are the tags reasoning models wrap their thinking in.
var reasoningTags = []struct{ open, close string }{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
	{"<reasoning>", "</reasoning>"},
}

// SplitReasoning separates the reasoning a model wrapped in <think>…</think>
// (or <thinking>, <reasoning>) from the rest of its reply. A closing tag
// with no opening one ends reasoning that began before the reply did, as
// when the chat template opens the tag; an opening tag that is never closed
// is dropped and what follows it is kept. The parser never reads reasoning
// as protocol.
func SplitReasoning(text string) (reasoning, rest string) {
	if strings.IndexByte(text, '<') < 0 {
		return "", text
	}
	var thought, out strings.Builder
	for _, tag := range reasoningTags {
		if !strings.Contains(text, tag.close) && !strings.Contains(text, tag.open) {
			continue
		}
		thought.Reset()
		out.Reset()
		if c := strings.LastIndex(text, tag.close); c >= 0 && !strings.Contains(text[:c], tag.open) {
			thought.WriteString(strings.TrimSpace(text[:c]))
			text = text[c+len(tag.close):]
		}
		for {
			o := strings.Index(text, tag.open)
			if o < 0 {
				out.WriteString(text)
				break
			}
			out.WriteString(text[:o])
			text = text[o+len(tag.open):]
			c := strings.Index(text, tag.close)
			if c < 0 {
				// Unclosed, and so are any tags after it: drop them, keep
				// the text.
				out.WriteString(strings.ReplaceAll(text, tag.open, ""))
				break
			}
			if thought.Len() > 0 {
				thought.WriteByte('\n')
			}
			thought.WriteString(strings.TrimSpace(text[:c]))
			text = text[c+len(tag.close):]
		}
		text = strings.ReplaceAll(out.String(), tag.close, "")
		if reasoning != "" && thought.Len() > 0 {
			reasoning += "\n"
		}
		reasoning += thought.String()
	}
	return reasoning, text
}

// ProtocolFree reports whether text can stand as a thought or a final
// answer in a rendered step and be parsed back unchanged: no line of it
// starts with a protocol label and it holds no reasoning tags.
func ProtocolFree(text string) bool {
	if reasoning, rest := SplitReasoning(text); reasoning != "" || rest != text {
		return false
	}
	return len(scanLabels(text)) == 0
}
