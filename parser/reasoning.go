package parser

import "strings"

// reasoningTags are the tags reasoning models wrap their thinking in.
var reasoningTags = [...]string{"think", "thinking", "reasoning"}

// SplitReasoning separates the reasoning a model wrote inside
// <think>…</think> (or <thinking>, <reasoning>, in any case) from the rest
// of its reply. An opening tag that is never closed makes the rest of the
// reply reasoning, as when generation stopped mid-thought; a closing tag
// with no opening one before it (some chat templates put the opening tag
// in the prompt) makes everything before it reasoning. Stray closing tags
// are dropped. The parser never reads reasoning as protocol.
func SplitReasoning(text string) (reasoning, rest string) {
	if strings.IndexByte(text, '<') < 0 {
		return "", text
	}
	var thoughts []string
	var out strings.Builder
	pos := 0   // start of the text not yet written or taken as reasoning
	start := 0 // where the open block's text starts
	seen := false
	open := scanReasoning(text, func(at, end int, m tagRole) {
		switch {
		case m == opens:
			out.WriteString(text[pos:at])
			start = end
		case m == closes:
			thoughts = append(thoughts, strings.TrimSpace(text[start:at]))
			pos = end
		case !seen: // closes with none open: reasoning began before the reply
			thoughts = append(thoughts, strings.TrimSpace(text[pos:at]))
			pos = end
		default: // a stray closing tag: drop it
			out.WriteString(text[pos:at])
			pos = end
		}
		seen = true
	})
	if !seen {
		return "", text
	}
	if open {
		thoughts = append(thoughts, strings.TrimSpace(text[start:]))
	} else {
		out.WriteString(text[pos:])
	}
	return strings.Join(thoughts, "\n"), out.String()
}

// ReasoningEnd reports where the reasoning blocks of text end: the offset
// just past the last reasoning tag that closes a block (0 when none does),
// and whether text ends inside a block that is still open, as a reply cut
// off mid-thought does. It reads tags as SplitReasoning does.
func ReasoningEnd(text string) (end int, open bool) {
	open = scanReasoning(text, func(_, to int, m tagRole) {
		if m != opens {
			end = to
		}
	})
	return end, open
}

// protocolInOpenReasoning returns the protocol a model wrote inside a
// reasoning block it never closed: the last step (from its Thought, or
// its Action or Final Answer label) that has an action or an answer, to
// the end of the text; or else the last step of LangChain's
// conversational format, from its tool gate: answered "No", then "AI:
// <answer>"; answered "Yes", then an Action on the gate's line. What
// comes before, a plan or a decoy JSON object among it, stays
// reasoning.
func protocolInOpenReasoning(text string) (string, bool) {
	at, open := -1, false
	open = scanReasoning(text, func(_, end int, m tagRole) {
		if m == opens {
			at = end
		}
	})
	if !open || at < 0 {
		return "", false
	}
	block := text[at:]
	marks := scanLabels(block)
	start, stepStart, found := -1, -1, -1
	for i, m := range marks {
		switch m.kind {
		case labelThought:
			if i == 0 || marks[i-1].kind != labelThought {
				start = i
			}
		case labelAction, labelFinal:
			if start < 0 || found >= start {
				start = i
			}
			found, stepStart = i, start
		case labelObservation:
			start = -1 // the step before it is whole; a new one starts after it
		}
	}
	if found >= 0 {
		return strings.TrimSpace(block[marks[stepStart].line:]), true
	}
	if gate, ok := lastGateStep(block); ok {
		return strings.TrimSpace(block[gate:]), true
	}
	return "", false
}

// lastGateStep returns where the last tool gate of text starts
// ("Thought: Do I need to use a tool? No", or the question inside a
// line) when a step follows it: answered "No", an "AI:" line with the
// answer; answered "Yes", an Action label on the gate's line (one on a
// line of its own is a step without the gate).
func lastGateStep(text string) (int, bool) {
	g, ok := lastGate(text)
	if !ok {
		return 0, false
	}
	switch g.answer {
	case "no":
		_, ok = gateAnswer(text[g.at:])
	case "yes":
		_, ok = gateAction(text, g)
	default:
		ok = false
	}
	return g.at, ok
}

// tagRole is what a reasoning tag does where it stands.
type tagRole int

const (
	opens          tagRole = iota // opens a block
	closes                        // closes the open block
	closesUnopened                // closes a block when none is open
)

// scanReasoning finds the reasoning tags of text that open or close a
// block, in order, and calls fn with each tag's bounds and what it does.
// Tags inside a block other than its own closing tag are text. It reports
// whether text ends inside an open block. SplitReasoning and ReasoningEnd
// both read reasoning through it.
func scanReasoning(text string, fn func(at, end int, m tagRole)) (open bool) {
	inside := "" // the tag of the open block, if any
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			break
		}
		i += j
		n, role, acts := readTag(text[i:], &inside)
		if n == 0 {
			i++
			continue
		}
		if acts {
			fn(i, i+n, role)
		}
		i += n
	}
	return inside != ""
}

// readTag reads the reasoning tag that s starts with, if any, after a
// block whose tag is *inside is open ("" when none is). It returns the
// tag's length, 0 when s starts none, and whether it acts, opening or
// closing a block, and how: a tag inside a block other than the block's
// own closing tag is text. *inside is then the tag of the block open
// after it.
func readTag(s string, inside *string) (n int, role tagRole, acts bool) {
	tag, closing, n := reasoningTag(s)
	switch {
	case n == 0:
		return 0, 0, false
	case *inside == "" && !closing:
		*inside = tag
		return n, opens, true
	case *inside != "" && closing && tag == *inside:
		*inside = ""
		return n, closes, true
	case *inside == "" && closing:
		return n, closesUnopened, true
	}
	return n, 0, false
}

// maxReasoningTag is the length of the longest reasoning tag: a '<' with
// fewer bytes after it may still start one.
const maxReasoningTag = len("</reasoning>")

// reasoningTag reports whether s starts with one of the reasoning tags,
// opening or closing, in any case, and returns it and its length.
func reasoningTag(s string) (tag string, closing bool, n int) {
	i := 1
	if strings.HasPrefix(s, "</") {
		closing, i = true, 2
	}
	for _, t := range reasoningTags {
		end := i + len(t)
		if end < len(s) && s[end] == '>' && strings.EqualFold(s[i:end], t) {
			return t, closing, end + 1
		}
	}
	return "", false, 0
}
