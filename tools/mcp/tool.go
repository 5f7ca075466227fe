package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
)

// tool is a tool of an MCP server, as the registry sees it.
type tool struct {
	srv         *server
	name        string // as the model calls it
	remote      string // as the server calls it
	description string
	schema      tools.Schema
	input       json.RawMessage // the input schema as the server declared it
	confirm     bool
	// repeatable is true for a tool that says it changes nothing, or
	// nothing more when called again (readOnlyHint, idempotentHint): a
	// call its server stopped during is made again.
	repeatable bool
}

func (t *tool) Name() string         { return t.name }
func (t *tool) Description() string  { return t.description }
func (t *tool) Schema() tools.Schema { return t.schema }

// JSONSchema returns the JSON schema of the tool's arguments as its server
// declared it, which binds more than Schema says (enums, nested objects).
func (t *tool) JSONSchema() json.RawMessage { return t.input }

// Server names the MCP server the tool runs on, for listings.
func (t *tool) Server() string { return t.srv.cfg.Name }

// Confirmation shows the server, the tool and the arguments it gets,
// unless the server's tools need no confirmation or this one is allowed.
func (t *tool) Confirmation(args map[string]any) (string, bool) {
	if !t.confirm {
		return "", false
	}
	b, err := json.MarshalIndent(args, "    ", "  ")
	if err != nil {
		b = []byte(fmt.Sprint(args))
	}
	what := fmt.Sprintf("its tool %s", t.remote)
	if t.remote != t.name {
		what += fmt.Sprintf(" (%s here)", t.name)
	}
	return fmt.Sprintf("The MCP server %q is to run %s with these arguments:\n\n    %s\n\nRun it?",
		escape.Visible(t.srv.cfg.Name), escape.Visible(what), escape.Literal(string(b))), true
}

// Call calls the tool on its server. A result the server marks as an
// error becomes an error with the server's message, for the model. The
// text of an error is cut at the server's MaxError.
func (t *tool) Call(ctx context.Context, args map[string]any) (string, error) {
	res, err := t.srv.call(ctx, t.remote, args, t.repeatable)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s: %w", t.name, context.Cause(ctx))
		}
		return "", &cutError{msg: tools.Truncate(t.name+": "+err.Error(), t.srv.maxError), err: err}
	}
	text := observation(res)
	if res.IsError {
		if strings.TrimSpace(text) == "" {
			text = "the tool failed and said nothing about why"
		}
		return "", errors.New(tools.Truncate(t.name+": "+text, t.srv.maxError))
	}
	if strings.TrimSpace(text) == "" {
		return "(no output)", nil
	}
	return text, nil
}

// cutError is an error whose text was cut; it unwraps to the whole one.
type cutError struct {
	msg string
	err error
}

func (e *cutError) Error() string { return e.msg }
func (e *cutError) Unwrap() error { return e.err }
