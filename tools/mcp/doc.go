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
//	for _, w := range set.Warnings() {
//		fmt.Fprintln(os.Stderr, "warning:", w)
//	}
//	for _, t := range set.Tools() {
//		reg.Register(t)
//	}
//
// A tool's arguments come from the input schema its server declares, so
// the registry checks them before each call. Calls are confirmed as
// shell's are, unless the server's config says otherwise. A call's text
// content is its observation; images, audio and resources are summed up
// in a line each, and a result the server marks as an error is an error
// with its message, cut at [Options.MaxError]. A server that stops in
// the middle of a run is started again, once, at the next call; the call
// it stopped during is made again only if its tool says that is safe
// (readOnlyHint or idempotentHint), since the server may have done it.
//
// What a server sends is bounded: a reply of a remote server at
// [Options.MaxReply] (8 MiB by default: a JSON body, an event, an
// error's text), a message of a server that runs a command at 16 MiB, a
// list of tools at 1,000 tools, 100 pages or MaxReply bytes. A remote
// server's headers go to its own origin only, and one configured at a
// public address reaches only public addresses, as http_request does.
// Tools named as models write a final answer are renamed ([Set.Warnings]),
// and [Server.Secrets] gives the values a log should redact.
package mcp
