package mcp

import (
	"context"
	"testing"

	"github.com/react-agent/react-agent/tools"
)

// BenchmarkCall measures one call of the test server's echo tool over
// stdio, through the registry as the agent makes it: the arguments
// checked, the request and its answer through the server's pipes.
func BenchmarkCall(b *testing.B) {
	reg := registry(b, start(b, Options{}, testServer(b, "test")), tools.Limits{})
	args := map[string]any{"text": "hello"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if out, err := reg.Call(ctx, "echo", args); err != nil || out != "hello" {
			b.Fatalf("got %q, %v", out, err)
		}
	}
}

// BenchmarkStart measures the start of two test servers together: their
// processes, the MCP handshakes and the listings of their tools, then
// their close.
func BenchmarkStart(b *testing.B) {
	servers := []Server{testServer(b, "a"), testServer(b, "b")}
	for b.Loop() {
		set, err := Start(context.Background(), servers, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		set.Close()
		b.StartTimer()
	}
}
