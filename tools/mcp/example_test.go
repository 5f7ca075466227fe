package mcp_test

import (
	"fmt"

	"github.com/react-agent/react-agent/tools/mcp"
)

// A log is handed the credentials of the MCP servers, to keep them out of
// what it stores.
func ExampleServer_Secrets() {
	s := mcp.Server{
		Name:    "tickets",
		URL:     "https://mcp.example.com/mcp",
		Headers: map[string]string{"Authorization": "Bearer tk-8f2a9c", "X-Team": "support"},
	}
	fmt.Printf("%q\n", s.Secrets())
	// Output: ["Bearer tk-8f2a9c" "tk-8f2a9c" "support"]
}
