package score_test

import (
	"errors"
	"fmt"
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

func TestARequiredListNamesEachArgumentOnce(t *testing.T) {
	schema := map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "integer"}},
		"required": []any{"b", "a", "b", "c", "a"}}
	tools, err := score.NewTools(score.Tool{Name: "t", InputSchema: schema})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := tools.ToolArgs("t")
	if !reflect.DeepEqual(tools.RequiredArgs("t"), []string{"b", "a"}) || !reflect.DeepEqual(args, []string{"b", "a"}) {
		t.Errorf("required %v, args %v; want [b a] for both: each once, in order, and only properties", tools.RequiredArgs("t"), args)
	}
}

// BenchmarkManyRequiredArguments reads a schema whose properties are all
// required, of growing size: the cost per property stays flat (it grew
// with the list when each was looked up in it).
func BenchmarkManyRequiredArguments(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		props := make(map[string]any, n)
		required := make([]any, n)
		for i := range n {
			name := fmt.Sprintf("arg%06d", i)
			props[name] = map[string]any{"type": "string"}
			required[i] = name
		}
		schema := map[string]any{"properties": props, "required": required}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := score.NewTools(score.Tool{Name: "t", InputSchema: schema}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/property")
		})
	}
}
