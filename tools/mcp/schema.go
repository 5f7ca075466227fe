package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/react-agent/react-agent/tools"
)

// jsonTypes are the JSON schema types a [tools.Arg] can declare.
var jsonTypes = []string{"string", "number", "integer", "boolean", "object", "array"}

// schemaOf converts the input schema of an MCP tool, a JSON schema object
// as the SDK decodes it, into the arguments the registry checks and the
// prompt shows. The required arguments come first, in the order the
// schema lists them, then the others by name (a decoded schema has lost
// the order of its properties). The primary argument is the first required
// string, else the first string, else the only argument.
func schemaOf(input any) tools.Schema {
	obj, _ := input.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	var required []string
	isRequired := map[string]bool{}
	if list, ok := obj["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok && !isRequired[name] {
				required = append(required, name)
				isRequired[name] = true
			}
		}
	}
	var s tools.Schema
	for _, name := range required {
		prop, _ := props[name].(map[string]any)
		s.Args = append(s.Args, argOf(name, prop, true))
	}
	var rest []string
	for name := range props {
		if !isRequired[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		prop, _ := props[name].(map[string]any)
		s.Args = append(s.Args, argOf(name, prop, false))
	}
	for _, wantRequired := range []bool{true, false} {
		for _, a := range s.Args {
			if a.Type == "string" && (a.Required || !wantRequired) && s.Primary == "" {
				s.Primary = a.Name
			}
		}
	}
	if s.Primary == "" && len(s.Args) == 1 {
		s.Primary = s.Args[0].Name
	}
	return s
}

// argOf describes the property name of a schema.
func argOf(name string, prop map[string]any, required bool) tools.Arg {
	a := tools.Arg{Name: name, Type: typeOf(prop), Required: required}
	desc, _ := prop["description"].(string)
	if desc == "" {
		desc, _ = prop["title"].(string)
	}
	desc = strings.Join(strings.Fields(desc), " ")
	var notes []string
	if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
		notes = append(notes, "one of "+values(enum))
	}
	if items, ok := prop["items"].(map[string]any); ok && a.Type == "array" {
		if t := typeOf(items); t != "any" {
			notes = append(notes, "items: "+t)
		}
	}
	if def, ok := prop["default"]; ok {
		notes = append(notes, "default "+values([]any{def}))
	}
	if len(notes) > 0 {
		desc = strings.TrimSpace(desc + " (" + strings.Join(notes, "; ") + ")")
	}
	a.Description = desc
	return a
}

// typeOf returns the JSON type a property's schema declares, or "any"
// when it declares none or several.
func typeOf(prop map[string]any) string {
	switch t := prop["type"].(type) {
	case string:
		if slices.Contains(jsonTypes, t) {
			return t
		}
	case []any:
		var found []string
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" && slices.Contains(jsonTypes, s) {
				found = append(found, s)
			}
		}
		if len(found) == 1 {
			return found[0]
		}
		return "any"
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, ok := prop[key].([]any)
		if !ok {
			continue
		}
		typ := ""
		for _, alt := range alts {
			m, _ := alt.(map[string]any)
			t := typeOf(m)
			if m["type"] == "null" {
				continue
			}
			if typ != "" && t != typ {
				return "any"
			}
			typ = t
		}
		if typ != "" {
			return typ
		}
	}
	if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
		t := valueType(enum[0])
		for _, v := range enum[1:] {
			if valueType(v) != t {
				return "any"
			}
		}
		return t
	}
	if c, ok := prop["const"]; ok {
		return valueType(c)
	}
	return "any"
}

// valueType names the JSON type of a decoded value.
func valueType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, json.Number:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "any"
}

// values renders a few values as JSON, for a description.
func values(vs []any) string {
	var parts []string
	for i, v := range vs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-i))
			break
		}
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", ")
}
