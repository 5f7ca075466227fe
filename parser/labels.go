package parser

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// label is the kind of a protocol label found at the start of a line.
type label int

const (
	labelNone label = iota
	labelThought
	labelAction
	labelInput
	labelFinal
	labelObservation
	// labelQuestion is the question a model echoes back; it is left out of
	// the thought.
	labelQuestion
	// labelArgs is a generic word ("Input:", "Arguments:") that is an
	// Action Input label only right after an Action label; anywhere else
	// it is text.
	labelArgs
)

// labelWords maps a label's words, lower-cased with spaces, underscores and
// hyphens removed, to its kind.
var labelWords = map[string]label{
	"thought":         labelThought,
	"thoughts":        labelThought,
	"thinking":        labelThought,
	"reasoning":       labelThought,
	"思考":              labelThought,
	"想法":              labelThought,
	"action":          labelAction,
	"tool":            labelAction,
	"toolname":        labelAction,
	"actionname":      labelAction,
	"行动":              labelAction,
	"动作":              labelAction,
	"actioninput":     labelInput,
	"actioninputs":    labelInput,
	"actionargs":      labelInput,
	"actionargument":  labelInput,
	"actionarguments": labelInput,
	"toolinput":       labelInput,
	"toolargs":        labelInput,
	"toolarguments":   labelInput,
	"行动输入":            labelInput,
	"动作输入":            labelInput,
	"finalanswer":     labelFinal,
	"answer":          labelFinal,
	"最终答案":            labelFinal,
	"最终回答":            labelFinal,
	"答案":              labelFinal,
	"observation":     labelObservation,
	"observations":    labelObservation,
	"观察":              labelObservation,
	"观察结果":            labelObservation,
	"question":        labelQuestion,
	"问题":              labelQuestion,
	"actionoutput":    labelObservation,
	"actionresult":    labelObservation,
	"tooloutput":      labelObservation,
	"toolresult":      labelObservation,
	"input":           labelArgs,
	"inputs":          labelArgs,
	"args":            labelArgs,
	"arguments":       labelArgs,
	"parameters":      labelArgs,
	"params":          labelArgs,
	"输入":              labelArgs,
	"参数":              labelArgs,
}

// maxLabelRunes bounds how many letters a label's words may have; a line
// whose first words run longer is prose, not a label.
const maxLabelRunes = 24

// mark is one label found in a text: the kind, where its line starts and
// where its value starts.
type mark struct {
	kind  label
	line  int // offset of the start of the line
	value int // offset of the first byte of the value
}

// scanLabels returns the labels at the starts of the lines of text, in
// order. It looks at each byte a bounded number of times.
func scanLabels(text string) []mark {
	var marks []mark
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		if m, ok := lineLabel(text, start, end); ok {
			if m.kind == labelArgs {
				if len(marks) == 0 || marks[len(marks)-1].kind != labelAction {
					start = end + 1
					continue
				}
				m.kind = labelInput
			}
			marks = append(marks, m)
		}
		start = end + 1
	}
	return marks
}

// lineLabel reports whether the line text[start:end] starts with a label.
// A label is optional markdown (#, >, list bullets, **, __, `), words from
// labelWords, an optional number ("Action 1"), optional closing markup, and
// a colon, half- or full-width. "Final Answer" and "Observation" also count
// alone on their line, and "Finish[" starts the ReAct paper's final action.
func lineLabel(text string, start, end int) (mark, bool) {
	i := start
	opened := false
	// Leading white space, markup and list numbering.
	for i < end {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '#' || c == '>':
			i++
		case c == '*' || c == '_' || c == '`' || c == '~':
			opened = true
			i++
		case (c == '-' || c == '+') && i+1 < end && (text[i+1] == ' ' || text[i+1] == '\t'):
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < end && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			if j < end && (text[j] == '.' || text[j] == ')') && j-i <= 3 {
				i = j + 1
				continue
			}
			return mark{}, false
		case c >= utf8.RuneSelf:
			// An emoji before the label ("💭 Thought:").
			r, size := utf8.DecodeRuneInString(text[i:end])
			if !unicode.Is(unicode.So, r) && r != '\uFE0F' && r != '\u200D' {
				goto words
			}
			i += size
		default:
			goto words
		}
	}
	return mark{}, false

words:
	wordStart := i
	var key [maxLabelRunes * 4]byte
	n, runes := 0, 0
	for i < end {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:end])
		}
		switch {
		case isLetter(r):
			if runes == maxLabelRunes {
				return mark{}, false
			}
			runes++
			if r < utf8.RuneSelf {
				key[n] = byte(r) | 0x20
				n++
			} else {
				n += utf8.EncodeRune(key[n:], unicode.ToLower(r))
			}
			i += size
		case r == ' ' || r == '\t' || r == '_' || r == '-':
			i += size
		default:
			goto afterWords
		}
	}
afterWords:
	if runes == 0 {
		return mark{}, false
	}
	kind, ok := labelWords[string(key[:n])]
	if !ok {
		// The ReAct paper's "Finish[answer]" on a line of its own.
		if string(key[:n]) == "finish" && i < end && text[i] == '[' {
			return mark{kind: labelAction, line: start, value: wordStart}, true
		}
		return mark{}, false
	}
	// Optional number and closing markup before the colon: "Action 1:",
	// "**Action**:", "Thought #2:".
	for i < end {
		c := text[i]
		if c == ' ' || c == '\t' || c == '#' || c == '*' || c == '_' || c == '`' || c == '\r' || (c >= '0' && c <= '9') {
			i++
			continue
		}
		break
	}
	switch {
	case i < end && text[i] == ':':
		i++
	case strings.HasPrefix(text[i:end], "："):
		i += len("：")
	case i == end && (kind == labelFinal || kind == labelObservation):
		// "Final Answer" or "Observation" alone on its line, value below.
		return mark{kind: kind, line: start, value: end}, true
	default:
		return mark{}, false
	}
	// Markup closing a bold label ("**Action:** x"), then white space.
	if opened {
		for i < end && (text[i] == '*' || text[i] == '_') {
			i++
		}
	}
	for i < end && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return mark{kind: kind, line: start, value: i}, true
}

// isLetter is unicode.IsLetter with a fast path for ASCII.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	return unicode.IsLetter(r)
}
