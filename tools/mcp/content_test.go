package mcp

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestObservation(t *testing.T) {
	n := int64(2048)
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"text parts are joined by lines", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two"}}}, "one\ntwo"},
		{"an image is one line with its type and size", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 12<<10)}}}, "[image image/png, 12 KB]"},
		{"audio is one line too", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 300)}}}, "[audio audio/wav, 300 bytes]"},
		{"a resource link is named", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Size: &n}}}, "[resource link a.txt file:///a.txt, text/plain, 2 KB]"},
		{"an embedded resource is summed up, not dumped", &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://x", MIMEType: "application/zip", Blob: make([]byte, 3<<20)}}}}, "[resource mem://x, application/zip, 3.0 MB]"},
		{"structured content shows when there is no other", &mcp.CallToolResult{StructuredContent: map[string]any{"t": 33}}, `{"t":33}`},
		{"nothing is empty", &mcp.CallToolResult{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := observation(tt.res); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
