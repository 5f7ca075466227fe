package tools_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/react-agent/react-agent/tools"
)

func ExampleRegistry_Call() {
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	obs, err := reg.Call(context.Background(), "calculator", map[string]any{"expression": "(2 + 3) ** 2 / 5"})
	fmt.Println(obs, err)

	_, err = reg.Call(context.Background(), "calculator", map[string]any{"expr": "1 + 1"})
	fmt.Println(err)
	// Output:
	// 5 <nil>
	// calculator: unknown argument "expr"; expected {"expression": string}
}

// upper is a tool written in Go: it upper-cases its text.
type upper struct{}

func (upper) Name() string        { return "upper" }
func (upper) Description() string { return "Upper-case a text." }
func (upper) Schema() tools.Schema {
	return tools.Schema{
		Args:    []tools.Arg{{Name: "text", Type: "string", Required: true, Description: "The text."}},
		Primary: "text",
	}
}
func (upper) Call(_ context.Context, args map[string]any) (string, error) {
	return strings.ToUpper(args["text"].(string)), nil
}

func ExampleRegistry_Register() {
	reg, err := tools.Builtins(tools.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.Register(upper{}); err != nil {
		fmt.Println(err)
		return
	}
	obs, err := reg.Call(context.Background(), "upper", map[string]any{"text": "hello"})
	fmt.Println(obs, err)
	fmt.Println(reg.ToolNames())
	// Output:
	// HELLO <nil>
	// [calculator http_request upper web_search]
}

func ExampleConfirm() {
	reg, err := tools.Builtins(tools.Options{AllowShell: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	shell, _ := reg.Get("shell")
	args := map[string]any{"command": "echo hello"}

	// With --yes every call is allowed without asking.
	yes := tools.NewTerminalConfirmer(os.Stdin, os.Stderr, true)
	if err := tools.Confirm(context.Background(), yes, shell, args); err != nil {
		fmt.Println(err)
		return
	}
	obs, err := reg.Call(context.Background(), "shell", args)
	fmt.Println(obs, err)

	// Without a confirmer nothing that needs confirmation runs.
	err = tools.Confirm(context.Background(), nil, shell, args)
	fmt.Println(errors.Is(err, tools.ErrNotConfirmed))
	// Output:
	// stdout:
	// hello <nil>
	// true
}

func ExampleTruncate() {
	fmt.Println(tools.Truncate("The quick brown fox", 9))
	// Output:
	// The quick
	// [truncated: 10 bytes omitted]
}

func ExampleCheckArgs() {
	schema := tools.Schema{
		Args: []tools.Arg{
			{Name: "query", Type: "string", Required: true},
			{Name: "max_results", Type: "integer"},
		},
		Primary: "query",
	}
	args, err := tools.CheckArgs("web_search", schema, map[string]any{"query": "go", "max_results": "3"})
	fmt.Println(args, err)
	_, err = tools.CheckArgs("web_search", schema, map[string]any{"max_results": 3})
	fmt.Println(err)
	// Output:
	// map[max_results:3 query:go] <nil>
	// web_search: missing argument "query"; expected {"query": string, "max_results": integer (optional)}
}

func ExampleSchema_String() {
	fmt.Println(tools.Schema{Args: []tools.Arg{
		{Name: "url", Type: "string", Required: true},
		{Name: "headers", Type: "object"},
	}})
	// Output: {"url": string, "headers": object (optional)}
}
