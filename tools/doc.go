// Package tools holds what the agent can do: the [Tool] interface, the
// [Registry] that maps names to tools, the built-in tools (calculator,
// web_search, http_request and shell) and plugin tools declared in a YAML
// or JSON file that run an external command.
//
// A caller builds a registry with [Builtins] from the command-line
// [Options], asks for confirmation with [Confirm] when a tool needs it (shell
// and plugin tools), and runs the tool with [Registry.Call], which checks the
// arguments against the tool's [Schema], applies the per-call timeout and caps
// the observation handed back to the model:
//
//	reg, err := tools.Builtins(opts)
//	...
//	tool, args, err := reg.Prepare(name, args) // the arguments, checked
//	if err != nil {
//		return err
//	}
//	confirmer := tools.NewTerminalConfirmer(os.Stdin, os.Stderr, yes)
//	if err := tools.Confirm(ctx, confirmer, tool, args); err != nil {
//		return err
//	}
//	obs, err := reg.Call(ctx, name, args)
//
// A tool error is an observation for the model, never a crash: errors name
// what was wrong and what to write instead.
//
// Users add their own tools from Go with [Registry.Register], or without Go
// through a plugin file; see [LoadPlugins] for its format.
// The tools of MCP servers come from package tools/mcp, which registers
// them beside these; they say which server they run on with [Served].
package tools
