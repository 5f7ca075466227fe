package constrain

import (
	"encoding/json"
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
