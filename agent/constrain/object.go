package constrain

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
)

// objectSchema returns the JSON schema of a step of the JSON object
// protocol: one object {"thought", "action", "action_input"}, the thought
// first, with a branch a tool (its name as the action, its arguments as
// the input) and, when final is true, one for the final answer ("Final
// Answer" and the answer as a string).
//
// The schema of a tool's arguments that refers to its own parts ("$ref":
// "#/$defs/…", as pydantic and FastMCP write them) is moved to the root's
// "$defs", under a name of its own, with its references rewritten to
// where it now is: nested in a branch, its "#/…" would point at the root
// of the whole schema, where nothing is.
func objectSchema(ts []named, final bool) any {
	var branches []any
	var defs ordered
	taken := map[string]bool{}
	for _, t := range ts {
		var input any = json.RawMessage(t.args.raw)
		if hasLocalRef(t.args.raw) {
			name := ruleName(t.name)
			for i := 2; taken[name]; i++ {
				name = ruleName(t.name) + "-" + strconv.Itoa(i)
			}
			taken[name] = true
			if moved, err := rebaseRefs(t.args.raw, "#/$defs/"+name); err == nil {
				defs = append(defs, kv{name, json.RawMessage(moved)})
				input = ordered{{"$ref", "#/$defs/" + name}}
			}
		}
		branches = append(branches, step(t.name, input))
	}
	if final {
		branches = append(branches, step(FinalAction, ordered{{"type", "string"}}))
	}
	var root ordered
	if len(branches) == 1 {
		root = branches[0].(ordered)
	} else {
		root = ordered{{"anyOf", branches}}
	}
	if len(defs) > 0 {
		root = append(root, kv{"$defs", defs})
	}
	return root
}

// hasLocalRef reports whether a schema has a "$ref" into itself.
func hasLocalRef(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"$ref"`)) && bytes.Contains(raw, []byte(`"#`))
}

// rebaseRefs returns the schema raw with each "$ref" into itself ("#",
// "#/…") made to point into the schema as it is at the JSON pointer base
// of another document. The keys keep their order.
func rebaseRefs(raw []byte, base string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	// An open object or array: its items so far, and in an object whether
	// the next token is a key's value, and the last key.
	type frame struct {
		object, afterKey bool
		items            int
		key              string
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if tok == json.Delim('}') || tok == json.Delim(']') {
			out.WriteString(tok.(json.Delim).String())
			stack = stack[:len(stack)-1]
			continue
		}
		key := top != nil && top.object && !top.afterKey
		switch {
		case top == nil:
		case key:
			if top.items > 0 {
				out.WriteByte(',')
			}
			top.items++
		case top.object:
			top.afterKey = false
		default:
			if top.items > 0 {
				out.WriteByte(',')
			}
			top.items++
		}
		if key {
			top.afterKey, top.key = true, tok.(string)
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteString(t.String())
			stack = append(stack, frame{object: t == '{'})
			continue
		case string:
			if !key && top != nil && top.object && top.key == "$ref" && strings.HasPrefix(t, "#") {
				tok = base + strings.TrimPrefix(t, "#")
			}
		}
		b, err := marshal(tok)
		if err != nil {
			return nil, err
		}
		out.Write(b)
		if key {
			out.WriteByte(':')
		}
	}
}

// step is one branch of the JSON object protocol's schema.
func step(action string, input any) ordered {
	return ordered{
		{"type", "object"},
		{"properties", ordered{
			{"thought", ordered{{"type", "string"}}},
			{"action", ordered{{"type", "string"}, {"enum", []string{action}}}},
			{"action_input", input},
		}},
		{"required", []string{"thought", "action", "action_input"}},
		{"additionalProperties", false},
	}
}

// strictObjectSchema returns the schema of a step in the subset of JSON
// schema that OpenAI's strict mode takes, whose root must be one object
// with every property required: the action is one of the names, and the
// input fits one of the tools' arguments (or is the final answer's text),
// which strict mode cannot tie to the action. ok is false when a tool's
// arguments do not fit the subset (a value of any type, an object of any
// keys).
func strictObjectSchema(ts []named, final bool) (schema any, ok bool) {
	var names []string
	var inputs []any
	for _, t := range ts {
		s, ok := strict(t.args.tree, 0)
		if !ok {
			return nil, false
		}
		names = append(names, t.name)
		inputs = append(inputs, s)
	}
	if final {
		names = append(names, FinalAction)
		inputs = append(inputs, ordered{{"type", "string"}})
	}
	var input any = ordered{{"anyOf", inputs}}
	if len(inputs) == 1 {
		input = inputs[0]
	}
	return ordered{
		{"type", "object"},
		{"properties", ordered{
			{"thought", ordered{{"type", "string"}}},
			{"action", ordered{{"type", "string"}, {"enum", names}}},
			{"action_input", input},
		}},
		{"required", []string{"thought", "action", "action_input"}},
		{"additionalProperties", false},
	}, true
}

// strict returns schema s in strict mode's subset: objects with all their
// properties required (the optional ones may be null) and no others,
// arrays with their items, scalars with their enums. ok is false for what
// the subset cannot say.
func strict(s any, depth int) (any, bool) {
	m, ok := s.(map[string]any)
	if !ok || depth > maxDepth {
		return nil, false
	}
	out := ordered{}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		out = append(out, kv{"enum", enum})
	}
	if alts, ok := m["anyOf"].([]any); ok {
		var xs []any
		for _, a := range alts {
			x, ok := strict(a, depth+1)
			if !ok {
				return nil, false
			}
			xs = append(xs, x)
		}
		return append(out, kv{"anyOf", xs}), true
	}
	types := typesOf(m)
	if len(types) != 1 {
		if len(out) > 0 && len(types) == 0 {
			return out, true // an enum alone
		}
		return nil, false
	}
	out = append(ordered{{"type", types[0]}}, out...)
	switch types[0] {
	case "string", "number", "integer", "boolean", "null":
		return out, true
	case "array":
		items, ok := strict(m["items"], depth+1)
		if !ok {
			return nil, false
		}
		return append(out, kv{"items", items}), true
	case "object":
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 || m["additionalProperties"] == true {
			return nil, false
		}
		if _, ok := m["additionalProperties"].(map[string]any); ok {
			return nil, false
		}
		req, _ := m["required"].([]any)
		names, required := propertyOrder(props, req)
		ps := ordered{}
		for _, n := range names {
			p, ok := strict(props[n], depth+1)
			if !ok {
				return nil, false
			}
			if !required[n] {
				p = ordered{{"anyOf", []any{p, ordered{{"type", "null"}}}}}
			}
			ps = append(ps, kv{n, p})
		}
		return append(out, kv{"properties", ps}, kv{"required", slices.Clone(names)}, kv{"additionalProperties", false}), true
	}
	return nil, false
}
