package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Arg describes one argument of a tool.
type Arg struct {
	// Name is the key in the argument object.
	Name string `json:"name"`
	// Type is a JSON type name: "string", "number", "integer", "boolean",
	// "object" or "array", or "any" (also when empty) for a free value.
	Type string `json:"type"`
	// Description says what the argument is for, for the prompt.
	Description string `json:"description,omitempty"`
	// Required is true when a call without it is an error.
	Required bool `json:"required,omitempty"`
}

// Schema describes the arguments of a tool.
type Schema struct {
	// Args lists the arguments, primary first by convention.
	Args []Arg `json:"args"`
	// Primary names the argument that takes an input which is not an
	// object (raw text, a quoted string, a number).
	Primary string `json:"primary"`
}

// Tool is something the agent can do. Implementations must be safe for
// concurrent use and must honour ctx cancellation.
type Tool interface {
	// Name is the tool's canonical name, as the model writes it after "Action:".
	Name() string
	// Description is one paragraph telling the model what the tool does.
	Description() string
	// Schema describes the arguments.
	Schema() Schema
	// Call runs the tool and returns the observation for the model.
	Call(ctx context.Context, args map[string]any) (string, error)
}

// String renders the schema the way error messages and tool listings show
// it, in argument order, for example
// {"query": string, "max_results": integer (optional)}.
func (s Schema) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, a := range s.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := a.Type
		if typ == "" {
			typ = "any"
		}
		fmt.Fprintf(&b, "%q: %s", a.Name, typ)
		if !a.Required {
			b.WriteString(" (optional)")
		}
	}
	b.WriteByte('}')
	return b.String()
}

// SchemaDeclarer is implemented by tools that keep the JSON schema of
// their arguments as their server declared it, such as MCP tools: it says
// more (enums, nested objects, array items) than their Schema.
type SchemaDeclarer interface {
	// JSONSchema returns the JSON schema of the tool's argument object.
	JSONSchema() json.RawMessage
}

// InputSchema returns the JSON schema of t's arguments: the one its
// server declared, when it has one, else its Schema's.
func InputSchema(t Tool) json.RawMessage {
	if d, ok := t.(SchemaDeclarer); ok {
		if raw := bytes.TrimSpace(d.JSONSchema()); len(raw) > 0 && raw[0] == '{' {
			return raw
		}
	}
	raw, _ := json.Marshal(t.Schema().JSONSchema()) // strings and lists of them
	return raw
}

// JSONSchema returns the schema as a JSON Schema object, the form MCP
// and OpenAI-style tool definitions take: {"type": "object",
// "properties": {...}, "required": [...]}.
func (s Schema) JSONSchema() map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, a := range s.Args {
		p := map[string]any{}
		if a.Type != "" && a.Type != "any" {
			p["type"] = a.Type
		}
		if a.Description != "" {
			p["description"] = a.Description
		}
		props[a.Name] = p
		if a.Required {
			required = append(required, a.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// arg returns the declared argument called name.
func (s Schema) arg(name string) (Arg, bool) {
	for _, a := range s.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

// Served is implemented by tools that run on a server of their own, such
// as the tools of an MCP server; listings name the server.
type Served interface {
	// Server names the server the tool runs on.
	Server() string
}
