package score

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Tool is a tool the replies of a corpus may call: a name and, in the
// JSON schema of its arguments, what the parser reads them by.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON schema of the arguments, an object with
	// "properties" and "required"; nil for a tool known by name alone.
	InputSchema map[string]any
}

// Tools is the parser.Tools of a list of tools.
type Tools struct {
	names []string
	info  map[string]toolInfo
}

// toolInfo is what the parser asks about one tool.
type toolInfo struct {
	args     []string
	primary  string
	required []string
}

// ErrTools is matched by the errors of a tool list that cannot be read.
var ErrTools = errors.New("bad tool list")

// NewTools returns the parser.Tools of tools. Names must be given and
// distinct. The arguments of a tool are its schema's properties, the
// required ones first; its primary argument, onto which an input that is
// not an object goes, is the first required string, else the first
// string, else its only argument, as for the loop's MCP tools.
func NewTools(tools ...Tool) (*Tools, error) {
	t := &Tools{info: map[string]toolInfo{}}
	for i, tool := range tools {
		name := strings.TrimSpace(tool.Name)
		if name == "" {
			return nil, fmt.Errorf("%w: tool %d has no name", ErrTools, i+1)
		}
		if _, dup := t.info[name]; dup {
			return nil, fmt.Errorf("%w: the tool %q is listed twice", ErrTools, name)
		}
		t.names = append(t.names, name)
		t.info[name] = schemaInfo(tool.InputSchema)
	}
	return t, nil
}

// Names returns the parser.Tools of tools known by name alone, which take
// a text input under "input".
func Names(names ...string) (*Tools, error) {
	tools := make([]Tool, len(names))
	for i, n := range names {
		tools[i] = Tool{Name: n}
	}
	return NewTools(tools...)
}

// ToolNames returns the names of the tools, in the order given.
func (t *Tools) ToolNames() []string { return slices.Clone(t.names) }

// ToolArgs returns the argument names of a tool and its primary argument.
func (t *Tools) ToolArgs(name string) ([]string, string) {
	info := t.info[name]
	return slices.Clone(info.args), info.primary
}

// RequiredArgs returns the names of a tool's required arguments.
func (t *Tools) RequiredArgs(name string) []string { return slices.Clone(t.info[name].required) }

// schemaInfo reads the arguments of a JSON schema object.
func schemaInfo(schema map[string]any) toolInfo {
	props, _ := schema["properties"].(map[string]any)
	var info toolInfo
	required := map[string]bool{} // a set, so that a long list is read in linear time
	if list, ok := schema["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok && props[name] != nil && !required[name] {
				required[name] = true
				info.required = append(info.required, name)
			}
		}
	}
	info.args = slices.Clone(info.required)
	var rest []string
	for name := range props {
		if !required[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	info.args = append(info.args, rest...)
	isString := func(name string) bool {
		prop, _ := props[name].(map[string]any)
		return prop["type"] == "string"
	}
	for _, group := range [][]string{info.required, info.args} {
		for _, a := range group {
			if info.primary == "" && isString(a) {
				info.primary = a
			}
		}
	}
	if info.primary == "" && len(info.args) == 1 {
		info.primary = info.args[0]
	}
	return info
}

// ReadTools reads a tool list: a JSON list (or an object with a "tools"
// list, as MCP's tools/list answers) whose items are {"name",
// "description", "input_schema"} (also "inputSchema", as MCP writes it,
// or "parameters"), OpenAI's {"type": "function", "function": {"name",
// "description", "parameters"}}, or names alone.
func ReadTools(data []byte) ([]Tool, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		var wrapped struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if werr := json.Unmarshal(data, &wrapped); werr != nil || wrapped.Tools == nil {
			return nil, fmt.Errorf("%w: want a JSON list of tools, each {\"name\", \"description\", \"input_schema\"}: %v", ErrTools, err)
		}
		list = wrapped.Tools
	}
	tools := make([]Tool, 0, len(list))
	for i, raw := range list {
		var name string
		if json.Unmarshal(raw, &name) == nil {
			tools = append(tools, Tool{Name: name}) // a name alone
			continue
		}
		var item toolItem
		if err := json.Unmarshal(raw, &item); err != nil {
			return nil, fmt.Errorf("%w: tool %d: %v", ErrTools, i+1, err)
		}
		if item.Function != nil && item.Name == "" {
			// OpenAI's shape: the tool inside "function".
			fn := item.Function
			item = toolItem{}
			if err := json.Unmarshal(fn, &item); err != nil {
				return nil, fmt.Errorf("%w: tool %d: \"function\": %v", ErrTools, i+1, err)
			}
		}
		schema := item.InputSchema
		for _, alt := range []map[string]any{item.MCPSchema, item.Parameters} {
			if schema == nil {
				schema = alt
			}
		}
		tools = append(tools, Tool{Name: item.Name, Description: item.Description, InputSchema: schema})
	}
	return tools, nil
}

// toolItem is one item of a tool list, in any of the shapes ReadTools
// reads.
type toolItem struct {
	Function    json.RawMessage `json:"function"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema map[string]any  `json:"input_schema"`
	MCPSchema   map[string]any  `json:"inputSchema"`
	Parameters  map[string]any  `json:"parameters"`
}
