package constrain

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

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

func TestRebasedRefsPointIntoTheMovedSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a definition", `{"a":{"$ref":"#/$defs/X"},"$defs":{"X":{"type":"string"}}}`,
			`{"a":{"$ref":"#/$defs/t/$defs/X"},"$defs":{"X":{"type":"string"}}}`},
		{"the root itself, in an array", `{"items":[{"$ref":"#"},{"type":"integer","maximum":1e3}]}`,
			`{"items":[{"$ref":"#/$defs/t"},{"type":"integer","maximum":1e3}]}`},
		{"keys in their order", `{"z":1,"a":[true,null,"s"],"m":{"$ref":"#/definitions/y"}}`,
			`{"z":1,"a":[true,null,"s"],"m":{"$ref":"#/$defs/t/definitions/y"}}`},
		{"a property named $ref, and a remote reference", `{"properties":{"$ref":{"type":"string"}},"x":{"$ref":"https://example.com/s.json"}}`,
			`{"properties":{"$ref":{"type":"string"}},"x":{"$ref":"https://example.com/s.json"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rebaseRefs([]byte(tt.in), "#/$defs/t")
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
