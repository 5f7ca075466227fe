package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// observation renders the content of a tool's result as text for the
// model: text as it is, one line for each image, audio clip or resource,
// whose bytes a text model cannot read. A result with no content but
// structured content shows that as JSON.
func observation(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %s]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %s]", orUnknown(c.MIMEType), size(len(c.Data))))
		case *mcp.ResourceLink:
			parts = append(parts, "[resource link "+describeResource(c.URI, c.Name, c.MIMEType, int(ptrValue(c.Size)))+"]")
		case *mcp.EmbeddedResource:
			r := c.Resource
			if r == nil {
				parts = append(parts, "[resource]")
				continue
			}
			n := len(r.Text)
			if r.Blob != nil {
				n = len(r.Blob)
			}
			parts = append(parts, "[resource "+describeResource(r.URI, "", r.MIMEType, n)+"]")
		default:
			parts = append(parts, fmt.Sprintf("[content of an unknown kind %T]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// describeResource says what a resource is in a few words.
func describeResource(uri, name, mime string, n int) string {
	s := uri
	if name != "" && name != uri {
		s = name + " " + uri
	}
	if mime != "" {
		s += ", " + mime
	}
	if n > 0 {
		s += ", " + size(n)
	}
	return s
}

func orUnknown(mime string) string {
	if mime == "" {
		return "of an unknown type"
	}
	return mime
}

func ptrValue(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// size renders a byte count for people: 512 bytes, 12 KB, 3.4 MB.
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
