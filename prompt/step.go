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
