// Package mcp makes the tools of MCP (Model Context Protocol) servers
// tools of react-agent, which any model can call through the text
// protocol. It speaks MCP with the official Go SDK.
//
// [LoadConfig] reads the servers a config file declares, in the layout
// Claude Desktop and Cursor write or in the "mcp" section of a tools file;
// [Start] starts them in parallel and lists their tools; [Set.Tools]
// returns those tools, to register beside the built-in ones; [Set.Close]
// ends the servers:
//
//	servers, err := mcp.LoadConfig("servers.json")
//	...
//	set, err := mcp.Start(ctx, servers, mcp.Options{Reserved: reg.ToolNames()})
//	if err != nil {
//		return err
//	}
//	defer set.Close()
//	for _, t := range set.Tools() {
//		reg.Register(t)
//	}
//
// A tool's arguments come from the input schema its server declares, so
// the registry checks them before each call. Calls are confirmed as
// shell's are, unless the server's config says otherwise. A call's text
// content is its observation; images, audio and resources are summed up
// in a line each, and a result the server marks as an error is an error
// with its message. A server that stops in the middle of a run is started
// again, once, and the call made again.
package mcp
