package constrain

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/react-agent/react-agent/tools"
)

// argsSchema is the JSON schema of one tool's arguments, as JSON (its
// properties in their order) and decoded.
type argsSchema struct {
	raw  json.RawMessage
	tree map[string]any
}

// schemaOf returns the schema of t's arguments: the one its server
// declared, when it is an object schema, else one made of its
// tools.Schema.
func schemaOf(t tools.Tool) argsSchema {
	if js, ok := t.(tools.SchemaDeclarer); ok {
		raw := bytes.TrimSpace(js.JSONSchema())
		var tree map[string]any
		if json.Unmarshal(raw, &tree) == nil && tree != nil {
			return argsSchema{raw: raw, tree: tree}
		}
	}
	return fromArgs(t.Schema())
}

// fromArgs makes the JSON schema of a tools.Schema: an object of its
// arguments, in their order, with their types ("any" leaves a value free),
// the required ones required, and no others.
func fromArgs(s tools.Schema) argsSchema {
	props := ordered{}
	tree := map[string]any{}
	required := []string{}
	seen := map[string]bool{}
	for _, a := range s.Args {
		p := ordered{}
		if a.Type != "" && a.Type != "any" {
			p = append(p, kv{"type", a.Type})
		}
		if a.Type == "string" && a.Required {
			// The registry refuses a required string that is blank.
			p = append(p, kv{"minLength", 1.0})
		}
		props = append(props, kv{a.Name, p})
		tree[a.Name] = p.tree()
		if a.Required && !seen[a.Name] {
			seen[a.Name] = true
			required = append(required, a.Name)
		}
	}
	o := ordered{{"type", "object"}, {"properties", props}, {"required", required}, {"additionalProperties", false}}
	raw, _ := marshal(o)
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return argsSchema{raw: raw, tree: map[string]any{"type": "object", "properties": tree,
		"required": req, "additionalProperties": false}}
}

// kv is one key of an ordered JSON object.
type kv struct {
	key   string
	value any
}

// ordered is a JSON object whose keys keep their order, which is the order
// in which servers that turn a schema into a grammar ask for properties.
type ordered []kv

// MarshalJSON writes the object with its keys in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(p.key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(p.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// tree returns the object decoded, as a map.
func (o ordered) tree() map[string]any {
	m := make(map[string]any, len(o))
	for _, p := range o {
		switch v := p.value.(type) {
		case ordered:
			m[p.key] = v.tree()
		default:
			m[p.key] = v
		}
	}
	return m
}

// marshal encodes v as JSON without escaping HTML characters, so that a
// value a grammar spells out reads as the model would write it.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// propertyOrder returns the properties of an object schema in the order a
// grammar asks for them: the required ones as "required" lists them, then
// the others by name (a decoded schema has lost the order of its
// properties), and which of them are required.
func propertyOrder(props map[string]any, requiredList []any) (names []string, required map[string]bool) {
	required = map[string]bool{}
	for _, r := range requiredList {
		if name, ok := r.(string); ok && !required[name] {
			required[name] = true
			names = append(names, name)
		}
	}
	var rest []string
	for name := range props {
		if !required[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(names, rest...), required
}
