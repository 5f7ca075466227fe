package constrain

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// objectSchema returns the JSON schema of a step of the JSON object
// protocol: one object {"thought", "action", "action_input"}, the thought
// first, with a branch a tool (its name as the action, its arguments as
// the input) and, when final is true, one for the final answer ("Final
// Answer" and the answer as a string that is not empty).
//
// The schema of a tool's arguments that refers to its own parts ("$ref":
// "#/$defs/…", as pydantic and FastMCP write them) is moved to the root's
// "$defs", under a name of its own, with its references rewritten to
// where it now is: nested in a branch, its "#/…" would point at the root
// of the whole schema, where nothing is. Every tool's schema goes without
// its annotations and loops of definitions (see rewriteSchema).
func objectSchema(ts []named, final bool) any {
	var branches []any
	var defs ordered
	taken := map[string]bool{}
	for _, t := range ts {
		var input any = json.RawMessage(t.args.raw)
		base := "#"
		if hasLocalRef(t.args.raw) {
			name := ruleName(t.name)
			for i := 2; taken[name]; i++ {
				name = ruleName(t.name) + "-" + strconv.Itoa(i)
			}
			taken[name] = true
			base = "#/$defs/" + name
		}
		if written, err := rewriteSchema(t.args.raw, base, leftRecursion(t.args.tree), true); err == nil {
			input = json.RawMessage(written)
			if base != "#" {
				defs = append(defs, kv{strings.TrimPrefix(base, "#/$defs/"), input})
				input = ordered{{"$ref", base}}
			}
		}
		branches = append(branches, step(t.name, input))
	}
	if final {
		// An answer that is empty is no answer, and the parser refuses it.
		branches = append(branches, step(FinalAction, ordered{{"type", "string"}, {"minLength", 1}}))
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

// rewriteSchema returns the JSON schema raw as it goes to a server, its
// keys in their order: each "$ref" into itself ("#", "#/…") made to point
// into the schema as it is at the JSON pointer base of another document
// ("#" for where it is); each schema object whose location is in loops
// (see leftRecursion) made {}, any value; and, with strip, the
// annotations of its schema objects ("title", "description", "default",
// "examples", …) left out, which change no value a schema allows but make
// llama.cpp's converter of schemas to grammars, which Ollama and
// llama-server use, refuse an object that has nothing else
// ("Unrecognized schema", Ollama's 500 "invalid JSON schema in format").
func rewriteSchema(raw []byte, base string, loops map[string]bool, strip bool) ([]byte, error) {
	w := &schemaWriter{dec: json.NewDecoder(bytes.NewReader(raw)), base: base, loops: loops, strip: strip}
	w.dec.UseNumber()
	if err := w.value("", schemaValue); err != nil {
		return nil, err
	}
	return w.out.Bytes(), nil
}

// What a JSON value of a schema is.
type valueKind int

const (
	dataValue   valueKind = iota // an enum, a const, a type's name: copied as it is
	schemaValue                  // a schema, or an array of them (items)
	schemaMap                    // properties, $defs: schemas by name
	schemaList                   // anyOf, oneOf, allOf, prefixItems
	annotation                   // said of a schema, and left out with strip
)

// schemaKeys says what the value of each keyword of a schema object is;
// the others are data.
var schemaKeys = map[string]valueKind{
	"properties": schemaMap, "patternProperties": schemaMap, "$defs": schemaMap, "definitions": schemaMap, "dependentSchemas": schemaMap,
	"anyOf": schemaList, "oneOf": schemaList, "allOf": schemaList, "prefixItems": schemaList,
	"items": schemaValue, "additionalProperties": schemaValue, "additionalItems": schemaValue, "not": schemaValue,
	"if": schemaValue, "then": schemaValue, "else": schemaValue, "contains": schemaValue, "propertyNames": schemaValue,
	"unevaluatedProperties": schemaValue, "unevaluatedItems": schemaValue,
	"title": annotation, "description": annotation, "$comment": annotation, "default": annotation, "examples": annotation,
	"deprecated": annotation, "readOnly": annotation, "writeOnly": annotation,
}

// schemaWriter writes a schema again as rewriteSchema says.
type schemaWriter struct {
	dec   *json.Decoder
	out   bytes.Buffer
	base  string
	loops map[string]bool
	strip bool
}

// value copies one JSON value of kind at location at.
func (w *schemaWriter) value(at string, kind valueKind) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		if kind == schemaValue && w.loops[at] {
			w.out.WriteString("{}")
			return w.skipRest()
		}
		w.out.WriteByte('{')
		n := 0
		for w.dec.More() {
			t, err := w.dec.Token()
			if err != nil {
				return err
			}
			key, _ := t.(string)
			child := dataValue
			switch kind {
			case schemaValue:
				child = schemaKeys[key]
			case schemaMap:
				child = schemaValue
			}
			if child == annotation && w.strip {
				if err := w.skip(); err != nil {
					return err
				}
				continue
			}
			if n++; n > 1 {
				w.out.WriteByte(',')
			}
			w.write(key)
			w.out.WriteByte(':')
			if kind == schemaValue && key == "$ref" {
				if err := w.ref(); err != nil {
					return err
				}
				continue
			}
			if err := w.value(at+"/"+pointerToken(key), child); err != nil {
				return err
			}
		}
		w.dec.Token() // the closing brace
		w.out.WriteByte('}')
	case json.Delim('['):
		w.out.WriteByte('[')
		child := dataValue
		if kind == schemaValue || kind == schemaList {
			child = schemaValue
		}
		for i := 0; w.dec.More(); i++ {
			if i > 0 {
				w.out.WriteByte(',')
			}
			if err := w.value(at+"/"+strconv.Itoa(i), child); err != nil {
				return err
			}
		}
		w.dec.Token() // the closing bracket
		w.out.WriteByte(']')
	default:
		w.write(tok)
	}
	return nil
}

// ref copies the value of a "$ref", rebased when it points into the
// schema.
func (w *schemaWriter) ref() error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if s, ok := tok.(string); ok && strings.HasPrefix(s, "#") && w.base != "#" {
		tok = w.base + strings.TrimPrefix(s, "#")
	}
	w.write(tok)
	return nil
}

// skip reads one JSON value and writes nothing of it.
func (w *schemaWriter) skip() error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok == json.Delim('{') || tok == json.Delim('[') {
		return w.skipRest()
	}
	return nil
}

// skipRest reads the rest of an object or array whose opening was read.
func (w *schemaWriter) skipRest() error {
	for depth := 1; depth > 0; {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

func (w *schemaWriter) write(v any) {
	b, err := marshal(v)
	if err == nil {
		w.out.Write(b)
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
