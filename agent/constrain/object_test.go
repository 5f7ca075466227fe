package constrain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools"
)

// meeting is a tool whose schema refers to its own definitions, as
// pydantic and FastMCP write them.
var meeting = schemaTool{"book_meeting", `{"type":"object","properties":{"host":{"$ref":"#/$defs/Attendee"},` +
	`"guests":{"type":"array","items":{"$ref":"#/$defs/Attendee"}}},"required":["host"],` +
	`"$defs":{"Attendee":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"}},"required":["name"]}}}`}

func TestTheRefsOfAToolsSchemaResolveInTheSchemaOfAStep(t *testing.T) {
	for _, ts := range [][]tools.Tool{{meeting}, {meeting, schemaTool{"other", `{"type":"object","properties":{"q":{"type":"string"}}}`}}} {
		reg, err := tools.NewRegistry(ts...)
		if err != nil {
			t.Fatal(err)
		}
		raw := For(reg).Step().Schema
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("the schema of a step with %d tools does not resolve: %v\n%s", len(ts), err, raw)
		}
		for _, tt := range []struct {
			step string
			fit  bool
		}{
			{`{"thought":"t","action":"book_meeting","action_input":{"host":{"name":"Ann"},"guests":[{"name":"Bo","email":"b@x"}]}}`, true},
			{`{"thought":"t","action":"book_meeting","action_input":{"host":{"email":"a@x"}}}`, false},
			{`{"thought":"t","action":"book_meeting","action_input":{"host":{"name":"Ann"},"guests":[{}]}}`, false},
			{`{"thought":"t","action":"Final Answer","action_input":"done"}`, true},
		} {
			var v any
			json.Unmarshal([]byte(tt.step), &v)
			if err := resolved.Validate(v); (err == nil) != tt.fit {
				t.Errorf("with %d tools, %s: %v, want fit %v", len(ts), tt.step, err, tt.fit)
			}
		}
	}
}

func TestASchemaIsWrittenAgainForTheServer(t *testing.T) {
	tests := []struct {
		name, in string
		loops    map[string]bool
		want     string
	}{
		{"a definition", `{"properties":{"a":{"$ref":"#/$defs/X"}},"$defs":{"X":{"type":"string"}}}`, nil,
			`{"properties":{"a":{"$ref":"#/$defs/t/$defs/X"}},"$defs":{"X":{"type":"string"}}}`},
		{"the root itself, in an alternative", `{"anyOf":[{"$ref":"#"},{"type":"integer","maximum":1e3}]}`, nil,
			`{"anyOf":[{"$ref":"#/$defs/t"},{"type":"integer","maximum":1e3}]}`},
		{"keys in their order", `{"type":"object","required":["z","a"],"properties":{"z":{"enum":[1,true,null,"s"]},"a":{"items":[{"$ref":"#/definitions/y"}]}}}`, nil,
			`{"type":"object","required":["z","a"],"properties":{"z":{"enum":[1,true,null,"s"]},"a":{"items":[{"$ref":"#/$defs/t/definitions/y"}]}}}`},
		{"a property named $ref or title, data that looks like a $ref, and a remote reference",
			`{"properties":{"$ref":{"type":"string"},"title":{"const":{"$ref":"#/x"}}},"additionalProperties":{"$ref":"https://example.com/s.json"}}`, nil,
			`{"properties":{"$ref":{"type":"string"},"title":{"const":{"$ref":"#/x"}}},"additionalProperties":{"$ref":"https://example.com/s.json"}}`},
		{"annotations, left out", `{"title":"Args","description":"d","properties":{"x":{"title":"X","default":{"a":1},"examples":[1]},"y":{"type":"string","description":"why"}}}`, nil,
			`{"properties":{"x":{},"y":{"type":"string"}}}`},
		{"a loop, broken where it closes", `{"anyOf":[{"type":"string"},{"$ref":"#","description":"again"}]}`, map[string]bool{"/anyOf/1": true},
			`{"anyOf":[{"type":"string"},{}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rewriteSchema([]byte(tt.in), "#/$defs/t", tt.loops, true)
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s (%v)\nwant %s", got, err, tt.want)
			}
		})
	}
}

func TestAToolWithoutRefsKeepsItsSchemaInPlace(t *testing.T) {
	reg, err := tools.NewRegistry(schemaTool{"plain", `{"type":"object","properties":{"q":{"type":"string"}}}`})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(For(reg).Step().Schema); strings.Contains(s, "$defs") || !strings.Contains(s, `"action_input":{"type":"object","properties":{"q":{"type":"string"}}}`) {
		t.Errorf("the schema of a step is %s", s)
	}
}

func TestADefinitionLoopIsAnyValueInTheSchemaOfAStepAndItsTag(t *testing.T) {
	// Two definitions, each an alternative of the other: Ollama's runner
	// crashed on it in a format, and a validator follows it forever.
	expr := schemaTool{"expr", `{"type":"object","properties":{"e":{"$ref":"#/$defs/Expr"}},"required":["e"],` +
		`"$defs":{"Expr":{"anyOf":[{"$ref":"#/$defs/Term"},{"type":"string"}]},"Term":{"anyOf":[{"$ref":"#/$defs/Expr"},{"type":"number"}]}}}`}
	reg, err := tools.NewRegistry(expr, meeting)
	if err != nil {
		t.Fatal(err)
	}
	step := For(reg).Step()
	if s := string(step.Schema); !strings.Contains(s, `"Term":{"anyOf":[{},{"type":"number"}]}`) ||
		!strings.Contains(s, `"Expr":{"anyOf":[{"$ref":"#/$defs/expr/$defs/Term"},`) {
		t.Errorf("the loop is not broken once in the schema of a step: %s", s)
	}
	for _, st := range step.Tag.Structures {
		if s := string(st.Schema); strings.HasPrefix(st.Begin, "Action: expr\n") &&
			!strings.Contains(s, `"Term":{"anyOf":[{},{"type":"number"}]}`) {
			t.Errorf("the loop is not broken in the structural tag: %s", s)
		}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(step.Schema, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal([]byte(`{"thought":"t","action":"expr","action_input":{"e":"x"}}`), &v)
	if err := resolved.Validate(v); err != nil {
		t.Errorf("a call that fits is refused: %v", err)
	}
}

func TestTheLoopsOfDefinitionsAreFoundWhereTheyClose(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"a definition that is itself", `{"$defs":{"a":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, []string{"/$defs/a"}},
		{"two, each an alternative of the other", `{"properties":{"e":{"$ref":"#/$defs/E"}},"$defs":{"E":{"anyOf":[{"$ref":"#/$defs/T"}]},"T":{"oneOf":[{"type":"number"},{"$ref":"#/$defs/E"}]}}}`,
			[]string{"/$defs/T/oneOf/1"}},
		{"the root, in an alternative of its own", `{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, []string{"/anyOf/1"}},
		{"a tree, whose recursion is inside an object", `{"properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`, nil},
		{"two, the first reached under a property, the second under a property of the first",
			`{"properties":{"x":{"$ref":"#/$defs/A"}},"$defs":{"A":{"anyOf":[{"properties":{"q":{"$ref":"#/$defs/C"}}},{"$ref":"#/$defs/C"}]},"C":{"anyOf":[{"$ref":"#/$defs/A"},{"type":"string"}]}}}`,
			[]string{"/$defs/C/anyOf/0"}},
		{"a definition reached only from another never reached", `{"$defs":{"U":{"$ref":"#/$defs/V"},"V":{"anyOf":[{"$ref":"#/$defs/U"}]}}}`,
			[]string{"/$defs/U"}},
		{"a pointer into an alternative of another definition", `{"properties":{"p":{"$ref":"#/$defs/B/anyOf/1"}},"$defs":{"B":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/B"}]}}}`,
			[]string{"/$defs/B/anyOf/1"}},
		{"a name with a slash, written as JSON pointers write it", `{"properties":{"x":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{"anyOf":[{"$ref":"#/$defs/a~1b"}]}}}`,
			[]string{"/$defs/a~1b/anyOf/0", "/properties/x"}},
		{"a name that holds ~1, which llama.cpp reads as it is", `{"properties":{"x":{"$ref":"#/$defs/a~1b"}},"$defs":{"a~1b":{"anyOf":[{"$ref":"#/$defs/a~1b"},{"type":"string"}]}}}`,
			[]string{"/$defs/a~01b/anyOf/0", "/properties/x"}},
		{"an index written 01, and a $ref to nothing", `{"properties":{"x":{"$ref":"#/$defs/B/anyOf/01"},"y":{"$ref":"#/$defs/none"}},"$defs":{"B":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/B"}]}}}`,
			[]string{"/$defs/B/anyOf/1", "/properties/x", "/properties/y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s map[string]any
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(maps.Keys(leftRecursion(s)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("loops at %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTheFinalAnswerOfAStepIsNeverEmpty(t *testing.T) {
	// A model held to Ollama's format wrote {"thought": "", "action":
	// "Final Answer", "action_input": ""}, which the parser refuses.
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*model.Constraint{For(reg).Step(), For(reg).Final()} {
		var s jsonschema.Schema
		if err := json.Unmarshal(c.Schema, &s); err != nil {
			t.Fatal(err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		for step, fit := range map[string]bool{
			`{"thought":"","action":"Final Answer","action_input":""}`:   false,
			`{"thought":"","action":"Final Answer","action_input":"42"}`: true,
		} {
			var v any
			json.Unmarshal([]byte(step), &v)
			if err := resolved.Validate(v); (err == nil) != fit {
				t.Errorf("%s: %v, want fit %v", step, err, fit)
			}
		}
	}
}

// leftLoop returns a location of schema s from which a chain of
// references and alternatives, writing nothing, comes back to it, or "":
// a check of leftRecursion's work that tries every start by brute force.
func leftLoop(s map[string]any) string {
	var back func(v any, loc, start string, seen map[string]bool) bool
	back = func(v any, loc, start string, seen map[string]bool) bool {
		if seen[loc] {
			return false
		}
		seen[loc] = true
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if ref, ok := m["$ref"].(string); ok {
			target, where, ok := resolvePointer(s, ref)
			return ok && (where == start || back(target, where, start, seen))
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			alts, _ := m[k].([]any)
			for i, alt := range alts {
				if back(alt, fmt.Sprintf("%s/%s/%d", loc, k, i), start, seen) {
					return true
				}
			}
		}
		return false
	}
	var all func(v any, loc string) string
	all = func(v any, loc string) string {
		switch v := v.(type) {
		case map[string]any:
			if back(v, loc, loc, map[string]bool{}) {
				return loc
			}
			for _, k := range sortedKeys(v) {
				if found := all(v[k], loc+"/"+pointerToken(k)); found != "" {
					return found
				}
			}
		case []any:
			for i, x := range v {
				if found := all(x, fmt.Sprintf("%s/%d", loc, i)); found != "" {
					return found
				}
			}
		}
		return ""
	}
	return all(s, "")
}

// TestNoLoopIsLeftInTheSchemasSent checks, for every awkward schema, that
// the schema of a step (Ollama's format, response_format) and of its
// structural tag hold no loop that writes nothing. Once, a loop of two
// definitions whose first was reached under a property went to Ollama
// intact.
func TestNoLoopIsLeftInTheSchemasSent(t *testing.T) {
	for _, a := range awkward {
		reg, err := tools.NewRegistry(a.tool())
		if err != nil {
			t.Fatal(err)
		}
		step := For(reg).Step()
		schemas := map[string][]byte{"the schema of a step": step.Schema}
		for _, st := range step.Tag.Structures {
			schemas["the structural tag"] = st.Schema
		}
		for what, raw := range schemas {
			var s map[string]any
			if err := json.Unmarshal(raw, &s); err != nil {
				continue // "true", a schema that is no object
			}
			if loc := leftLoop(s); loc != "" {
				t.Errorf("%s: %s loops back to %s writing nothing: %s", a.name, what, loc, raw)
			}
		}
	}
}
