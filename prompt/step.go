package prompt

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/react-agent/react-agent/parser"
)

// FormatStep renders s in the canonical protocol, the form the prompt
// teaches and the scratchpad shows:
//
//	Thought: ...
//	Action: tool_name
//	Action Input: {"arg": "value"}
//
// or, for a final answer,
//
//	Thought: ...
//	Final Answer: ...
//
// The Thought line is left out when the thought is empty. Parsing the
// result with the parser gives s back.
func FormatStep(s parser.Step) string {
	var b strings.Builder
	if s.Thought != "" {
		b.WriteString("Thought: ")
		b.WriteString(s.Thought)
		b.WriteByte('\n')
	}
	if s.Kind == parser.KindFinal {
		b.WriteString("Final Answer: ")
		b.WriteString(s.FinalAnswer)
		return b.String()
	}
	b.WriteString("Action: ")
	b.WriteString(s.Action)
	b.WriteString("\nAction Input: ")
	b.WriteString(FormatArgs(s.Args))
	return b.String()
}

// Canonical reports whether reply, a text-protocol reply the parser read
// as s, is in the canonical form, which any strict parser reads: an
// optional one-line "Thought:", then "Action:" with the exact tool name
// and "Action Input:" with a JSON object, or "Final Answer:", outside any
// reasoning block. The JSON may be spaced and ordered as it likes.
func Canonical(reply string, s parser.Step) bool {
	_, visible := parser.SplitReasoning(reply)
	text := strings.TrimSpace(visible)
	if rest, ok := strings.CutPrefix(text, "Thought: "); ok {
		nl := strings.IndexByte(rest, '\n')
		if nl <= 0 {
			return false
		}
		text = rest[nl+1:]
	}
	if answer, ok := strings.CutPrefix(text, "Final Answer: "); ok {
		return s.Kind == parser.KindFinal && answer != ""
	}
	name, ok := strings.CutPrefix(text, "Action: ")
	if !ok || s.Kind != parser.KindAction {
		return false
	}
	name, input, ok := strings.Cut(name, "\nAction Input: ")
	return ok && name == s.Action && strings.HasPrefix(input, "{") && json.Valid([]byte(input))
}

// StopSequences returns the starts of an "Observation:" line, in the
// spellings models use, that a model must not write itself: sent as stop
// sequences, they end its reply before an observation it would make up.
// OpenAI-compatible servers accept at most four.
func StopSequences() []string {
	return []string{"\nObservation", "\nobservation", "\n**Observation", "\n观察"}
}

// FormatArgs renders tool arguments as one line of JSON with sorted keys
// and no HTML escaping.
func FormatArgs(args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		// Arguments come from JSON or from strings; an unencodable value
		// is a programming error upstream. Render it visibly rather than lose it.
		return "{}"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// FormatStep renders s as the template's protocol writes steps: with
// [FormatObject] for the [JSONObject] template, else [FormatStep].
func (t *Template) FormatStep(s parser.Step) string {
	if t.words.object {
		return FormatObject(s)
	}
	return FormatStep(s)
}

// FormatObject renders s as one line of the JSON object protocol, the
// form the [JSONObject] template teaches:
//
//	{"thought": "...", "action": "tool_name", "action_input": {"arg": "value"}}
//
// or, for a final answer, with "action": "Final Answer" and the answer as
// "action_input". Parsing the result with the parser gives s back.
func FormatObject(s parser.Step) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	field := func(key string, v any) {
		enc.Encode(key)
		b.Truncate(b.Len() - 1)
		b.WriteString(": ")
		if err := enc.Encode(v); err != nil {
			b.WriteString("null\n") // not reached: steps hold JSON values
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('{')
	field("thought", s.Thought)
	b.WriteString(", ")
	if s.Kind == parser.KindFinal {
		field("action", "Final Answer")
		b.WriteString(", ")
		field("action_input", s.FinalAnswer)
	} else {
		field("action", s.Action)
		b.WriteString(", ")
		args := s.Args
		if args == nil {
			args = map[string]any{}
		}
		field("action_input", args)
	}
	b.WriteByte('}')
	return b.String()
}
