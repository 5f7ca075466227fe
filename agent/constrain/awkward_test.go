package constrain

import (
	"context"
	"encoding/json"

	"github.com/react-agent/react-agent/tools"
)

// schemaTool is a tool whose arguments have a JSON schema of its own, as
// an MCP tool's have.
type schemaTool struct {
	name   string
	schema string
}

func (t schemaTool) Name() string                { return t.name }
func (t schemaTool) Description() string         { return "A tool with an awkward schema." }
func (t schemaTool) Schema() tools.Schema        { return tools.Schema{} }
func (t schemaTool) JSONSchema() json.RawMessage { return json.RawMessage(t.schema) }
func (t schemaTool) Call(context.Context, map[string]any) (string, error) {
	return "", nil
}

// awkwardSchema is a tool with a schema that is hard to write a grammar
// for, and arguments it must allow and refuse.
type awkwardSchema struct {
	name, toolName, schema string
	fit, misfit            []string // argument objects that fit the schema, and that do not
}

func (a awkwardSchema) tool() tools.Tool { return schemaTool{a.toolName, a.schema} }

var awkward = []awkwardSchema{
	{name: "deep nesting", toolName: "deep",
		schema: `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object","properties":{"d":{"type":"array","items":{"type":"object","properties":{"e":{"type":"integer"}},"required":["e"]}}},"required":["d"]}},"required":["c"]}},"required":["b"]}},"required":["a"]}`,
		fit:    []string{`{"a":{"b":{"c":{"d":[{"e":1},{"e":-20}]}}}}`, `{"a": {"b": {"c": {"d": []}}}}`},
		misfit: []string{`{"a":{"b":{"c":{"d":[{"e":1.5}]}}}}`, `{"a":{"b":{}}}`}},
	{name: "enums with quotes and backslashes", toolName: "quote",
		schema: `{"type":"object","properties":{"style":{"enum":["say \"hi\"","back\\slash","it's","<b>&amp;</b>",3,null,true]}},"required":["style"]}`,
		fit:    []string{`{"style":"say \"hi\""}`, `{"style":"back\\slash"}`, `{"style":"<b>&amp;</b>"}`, `{"style":3}`, `{"style":null}`},
		misfit: []string{`{"style":"say hi"}`, `{"style":"it\u0027s "}`, `{"style":4}`}},
	{name: "unicode property names", toolName: "unicode",
		schema: `{"type":"object","properties":{"城市":{"type":"string"},"température":{"type":"number"},"emoji 🙂":{"type":"boolean"}},"required":["城市"]}`,
		fit:    []string{`{"城市":"北京"}`, `{"城市":"Paris","emoji 🙂":true,"température":-1.5e3}`},
		misfit: []string{`{"température":1}`, `{"城市":"x","other":1}`}},
	{name: "names with dots, dashes, spaces and non-ASCII letters", toolName: "files.read-text file 读",
		schema: `{"type":"object","properties":{"path.to-file":{"type":"string"}},"required":["path.to-file"]}`,
		fit:    []string{`{"path.to-file":"a.txt"}`},
		misfit: []string{`{"path_to_file":"a.txt"}`}},
	{name: "an empty object", toolName: "empty",
		schema: `{"type":"object","properties":{}}`,
		fit:    []string{`{}`, `{ }`},
		misfit: []string{`{"a":1}`, `[]`}},
	{name: "arrays of objects", toolName: "batch",
		schema: `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["id"],"additionalProperties":false}}},"required":["items"]}`,
		fit:    []string{`{"items":[{"id":1,"tags":["a","b"]},{"id":2}]}`, `{"items":[]}`},
		misfit: []string{`{"items":[{"tags":[]}]}`, `{"items":[{"id":1,"x":2}]}`}},
	{name: "only optional properties", toolName: "optional",
		schema: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}}}`,
		fit:    []string{`{}`, `{"b":1}`, `{"a":"x","c":true}`, `{"a":"x","b":2,"c":false}`},
		misfit: []string{`{,"b":1}`, `{"b":1,}`, `{"c":true,"a":"x"}`}},
	{name: "additional properties of a schema", toolName: "headers",
		schema: `{"type":"object","properties":{"url":{"type":"string"},"headers":{"type":"object","additionalProperties":{"type":"string"}}},"required":["url"]}`,
		fit:    []string{`{"url":"u","headers":{"Accept":"text/html","X-Y":"z"}}`, `{"url":"u","headers":{}}`},
		misfit: []string{`{"url":"u","headers":{"n":1}}`}},
	{name: "additional properties allowed beside declared ones", toolName: "open",
		schema: `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":true}`,
		fit:    []string{`{}`, `{"q":"x"}`, `{"q":"x","other":[1,{"k":null}]}`, `{"other":1}`},
		misfit: []string{`{"q":"x",}`, `{"q"}`}},
	{name: "nullable and multi-typed values", toolName: "nullable",
		schema: `{"type":"object","properties":{"n":{"type":["integer","null"]},"s":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}},"required":["n","s"]}`,
		fit:    []string{`{"n":null,"s":"x"}`, `{"n":3,"s":["a"]}`},
		misfit: []string{`{"n":"3","s":"x"}`, `{"n":1,"s":[1]}`}},
	{name: "recursive definitions", toolName: "tree",
		schema: `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}}}`,
		fit:    []string{`{"root":{"name":"a","children":[{"name":"b","children":[]}]}}`},
		misfit: []string{`{"root":{"children":[]}}`}},
	{name: "features a grammar cannot say narrow to any value", toolName: "narrow",
		schema: `{"type":"object","properties":{"x":{"allOf":[{"type":"string"},{"minLength":2}]},"y":{"$ref":"https://example.com/schema.json"},"z":{"not":{"type":"string"}},"w":{"const":{"a":[1,2]}}},"required":["x","y","w"]}`,
		fit:    []string{`{"x":"s","y":1,"w":{"a":[1,2]}}`, `{"x":[true],"y":"s","w":{"a":[1,2]},"z":"any"}`},
		misfit: []string{`{"x":"s","y":1}`, `{"x":"s","y":1,"w":{"a":[2,1]}}`}},
	{name: "definitions that refer to themselves before anything is written", toolName: "loop",
		schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/a"},"b":{"$ref":"#/$defs/b"},"c":{"$ref":"#/$defs/a"}},"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"string"}]},"b":{"$ref":"#/$defs/c"},"c":{"$ref":"#/$defs/b"}}}`,
		fit:    []string{`{"a":"x"}`, `{}`},
		misfit: []string{`{"d":1}`}},
	{name: "two definitions each an alternative of the other, the first reached under a property", toolName: "mutual",
		schema: `{"type":"object","properties":{"x":{"$ref":"#/$defs/A"}},"required":["x"],"$defs":{"A":{"anyOf":[{"type":"object","properties":{"q":{"$ref":"#/$defs/C"}}},{"$ref":"#/$defs/C"}]},"C":{"anyOf":[{"$ref":"#/$defs/A"},{"type":"string"}]}}}`,
		fit:    []string{`{"x":"s"}`, `{"x":{"q":"t"}}`, `{"x":{}}`, `{"x":{"q":{"q":"t"}}}`},
		misfit: []string{`{}`, `{"y":"s"}`}},
	{name: "a loop through a pointer into another definition, and through the root", toolName: "pointer",
		schema: `{"anyOf":[{"type":"object","properties":{"p":{"$ref":"#/$defs/B/anyOf/1"}},"required":["p"]},{"$ref":"#/$defs/B"}],"$defs":{"B":{"anyOf":[{"type":"integer"},{"$ref":"#"}]}}}`,
		fit:    []string{`{"p":{"p":{}}}`, `{"p":3}`},
		misfit: []string{`{"p":3,}`, `{"p"}`}},
	{name: "a schema that is not an object schema", toolName: "bare",
		schema: `true`,
		fit:    []string{`{}`},
		misfit: []string{`{"a":1}`}},
}

// narrowed names the awkward schemas whose grammar allows more than the
// schema, by design: what it cannot say is any value.
var narrowed = map[string]bool{"features a grammar cannot say narrow to any value": true,
	"definitions that refer to themselves before anything is written":                      true,
	"two definitions each an alternative of the other, the first reached under a property": true,
	"a loop through a pointer into another definition, and through the root":               true}
