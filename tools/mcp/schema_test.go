package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/react-agent/react-agent/tools"
)

func TestSchemaOf(t *testing.T) {
	tests := []struct {
		name, schema string
		want         tools.Schema
	}{
		{"required arguments come first in their order, the others by name", `{"type": "object",
			"properties": {"z": {"type": "integer"}, "path": {"type": "string", "description": "The file."}, "a": {"type": "boolean"}, "head": {"type": "number"}},
			"required": ["path", "head"]}`,
			tools.Schema{Primary: "path", Args: []tools.Arg{
				{Name: "path", Type: "string", Description: "The file.", Required: true},
				{Name: "head", Type: "number", Required: true},
				{Name: "a", Type: "boolean"},
				{Name: "z", Type: "integer"}}}},
		{"the primary argument is the first required string", `{"properties": {"n": {"type": "integer"}, "q": {"type": "string"}, "b": {"type": "string"}}, "required": ["n", "q"]}`,
			tools.Schema{Primary: "q", Args: []tools.Arg{{Name: "n", Type: "integer", Required: true}, {Name: "q", Type: "string", Required: true}, {Name: "b", Type: "string"}}}},
		{"without a required string, the first string is primary", `{"properties": {"n": {"type": "integer"}, "q": {"type": "string"}}, "required": ["n"]}`,
			tools.Schema{Primary: "q", Args: []tools.Arg{{Name: "n", Type: "integer", Required: true}, {Name: "q", Type: "string"}}}},
		{"without a string, the only argument is primary", `{"properties": {"n": {"type": "integer"}}}`,
			tools.Schema{Primary: "n", Args: []tools.Arg{{Name: "n", Type: "integer"}}}},
		{"a tool without arguments has an empty schema", `{"type": "object"}`, tools.Schema{}},
		{"a missing schema is an empty one", `null`, tools.Schema{}},
		{"enums, items and defaults are told in the description", `{"properties": {
			"mode": {"enum": ["fast", "slow"], "default": "fast", "description": "How.\n  Carefully."},
			"tags": {"type": "array", "items": {"type": "string"}}}}`,
			tools.Schema{Primary: "mode", Args: []tools.Arg{
				{Name: "mode", Type: "string", Description: `How. Carefully. (one of "fast", "slow"; default "fast")`},
				{Name: "tags", Type: "array", Description: "(items: string)"}}}},
		{"a nullable type is its other type, and a union is any", `{"properties": {
			"a": {"type": ["string", "null"]}, "b": {"type": ["string", "number"]},
			"c": {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "d": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
			"e": {"const": true}, "f": {}, "g": {"type": "weird"}}}`,
			tools.Schema{Primary: "a", Args: []tools.Arg{
				{Name: "a", Type: "string"}, {Name: "b", Type: "any"}, {Name: "c", Type: "integer"}, {Name: "d", Type: "any"},
				{Name: "e", Type: "boolean"}, {Name: "f", Type: "any"}, {Name: "g", Type: "any"}}}},
		{"a required argument the properties lack is any", `{"required": ["x"]}`,
			tools.Schema{Primary: "x", Args: []tools.Arg{{Name: "x", Type: "any", Required: true}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema any
			if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
				t.Fatal(err)
			}
			if got := schemaOf(schema); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// BenchmarkSchemaOfRequired reads schemas that list n required properties
// (and n more that are optional): the time per property stays the same as
// n grows, where checking each name against a list made it grow with n.
func BenchmarkSchemaOfRequired(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		props := map[string]any{}
		var required []any
		for i := range n {
			name := fmt.Sprintf("p%d", i)
			props[name] = map[string]any{"type": "string"}
			props["o"+name] = map[string]any{"type": "integer"}
			required = append(required, name)
		}
		input := map[string]any{"type": "object", "properties": props, "required": required}
		b.Run(fmt.Sprintf("%d required", n), func(b *testing.B) {
			for b.Loop() {
				if s := schemaOf(input); len(s.Args) != 2*n {
					b.Fatalf("%d arguments, want %d", len(s.Args), 2*n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/required")
		})
	}
}
