package score_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/parser/score"
)

func TestReadToolsInTheShapesToolListsCome(t *testing.T) {
	schema := `{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}`
	tests := []struct {
		name string
		json string
	}{
		{"MCP and Anthropic's input_schema", `[{"name": "weather", "description": "The weather.", "input_schema": ` + schema + `}]`},
		{"MCP's inputSchema", `[{"name": "weather", "inputSchema": ` + schema + `}]`},
		{"MCP's tools/list result", `{"tools": [{"name": "weather", "inputSchema": ` + schema + `}]}`},
		{"OpenAI's function tools", `[{"type": "function", "function": {"name": "weather", "description": "The weather.", "parameters": ` + schema + `}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := score.ReadTools([]byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			tools, err := score.NewTools(list...)
			if err != nil {
				t.Fatal(err)
			}
			args, primary := tools.ToolArgs("weather")
			if !reflect.DeepEqual(tools.ToolNames(), []string{"weather"}) || !reflect.DeepEqual(args, []string{"city", "days"}) ||
				primary != "city" || !reflect.DeepEqual(tools.RequiredArgs("weather"), []string{"city"}) {
				t.Errorf("names %v, args %v, primary %q, required %v", tools.ToolNames(), args, primary, tools.RequiredArgs("weather"))
			}
			st, err := parser.New(tools).Parse("Action: Weather\nAction Input: Oslo")
			if err != nil || st.Action != "weather" || st.Args["city"] != "Oslo" {
				t.Errorf("the parser reads %+v, %v; want weather with city Oslo", st, err)
			}
		})
	}
}

func TestThePrimaryArgument(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		want   string
	}{
		{"the first required string", map[string]any{"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "string"}, "c": map[string]any{"type": "string"}},
			"required": []any{"a", "c", "b"}}, "c"},
		{"else the first string", map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer"}, "q": map[string]any{"type": "string"}}, "required": []any{"n"}}, "q"},
		{"else the only argument", map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer"}}}, "n"},
		{"else none", map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer"}, "m": map[string]any{"type": "integer"}}}, ""},
	}
	for _, tt := range tests {
		tools, err := score.NewTools(score.Tool{Name: "t", InputSchema: tt.schema})
		if err != nil {
			t.Fatal(err)
		}
		if _, primary := tools.ToolArgs("t"); primary != tt.want {
			t.Errorf("%s: primary %q, want %q", tt.name, primary, tt.want)
		}
	}
}

func TestBadToolLists(t *testing.T) {
	for _, bad := range []string{`{`, `{"name": "x"}`, `[{"name": 3}]`, `[{"description": "no name"}]`, `[{"name": "x"}, {"name": "x"}]`} {
		list, err := score.ReadTools([]byte(bad))
		if err == nil {
			_, err = score.NewTools(list...)
		}
		if !errors.Is(err, score.ErrTools) {
			t.Errorf("%s: error %v, want ErrTools", bad, err)
		}
	}
	if tools, err := score.ReadTools([]byte(`["Search", "Calculator"]`)); err != nil || len(tools) != 2 || tools[1].Name != "Calculator" {
		t.Errorf("names alone: %v, %v", tools, err)
	}
}
