package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/mcp/mcptest"
)

// testdata is the folder of the reference servers' package.json.
const testdata = "../../testdata/mcp"

func TestFilesystemServer(t *testing.T) {
	mcptest.ReferenceServers(t)
	servers, err := LoadConfig(filepath.Join(testdata, "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	set := start(t, Options{}, servers...)
	reg := registry(t, set, tools.Limits{})
	notes, err := filepath.Abs(filepath.Join(testdata, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(notes)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string // the observation, or a substring of the error
		wantErr    bool
		confirm    bool
	}{
		{"a file in the allowed folder is read", "read_text_file", map[string]any{"path": notes}, string(want), false, false},
		{"a file outside it is an error the model reads", "read_text_file", map[string]any{"path": "/etc/hostname"}, "read_text_file: Access denied - path outside allowed directories", true, false},
		{"a tool not in allow is confirmed", "write_file", nil, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, ok := reg.Get(tt.tool)
			if !ok {
				t.Fatalf("no tool %s; the tools are %s", tt.tool, reg.ToolNames())
			}
			if _, needed := tl.(tools.Confirmable).Confirmation(tt.args); needed != tt.confirm {
				t.Errorf("confirmation needed: %v, want %v", needed, tt.confirm)
			}
			if tt.args == nil {
				return
			}
			got, err := reg.Call(context.Background(), tt.tool, tt.args)
			switch {
			case tt.wantErr && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %q, %v; want an error with %q", got, err, tt.want)
			case !tt.wantErr && (err != nil || got != tt.want):
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestEverythingServer(t *testing.T) {
	dir := mcptest.ReferenceServers(t)
	index := filepath.Join(dir, "server-everything", "dist", "index.js")
	stdio := Server{Name: "everything", Transport: Stdio, Command: "node", Args: []string{index, "stdio"}}

	// The same server over streamable HTTP, on a free port of loopback.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "node", index, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the everything server did not listen on %s", addr)
		}
	}
	remote := Server{Name: "remote", Transport: HTTP, URL: "http://" + addr + "/mcp"}

	reg := registry(t, start(t, Options{}, stdio, remote), tools.Limits{Timeout: 2 * time.Second})
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string
		wantErr    bool
	}{
		{"echo answers over stdio", "everything_echo", map[string]any{"message": "hi"}, "Echo: hi", false},
		{"echo answers over HTTP", "remote_echo", map[string]any{"message": "hi"}, "Echo: hi", false},
		{"numbers reach the server as numbers", "everything_get-sum", map[string]any{"a": "2", "b": 40}, "The sum of 2 and 40 is 42.", false},
		{"an image is summed up", "everything_get-tiny-image", map[string]any{}, "[image image/png, ", false},
		{"a call longer than the limit times out", "remote_trigger-long-running-operation", map[string]any{"duration": 30, "steps": 2}, "timed out after 2s", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reg.Call(context.Background(), tt.tool, tt.args)
			switch {
			case tt.wantErr && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %q, %v; want an error with %q", got, err, tt.want)
			case !tt.wantErr && (err != nil || !strings.Contains(got, tt.want)):
				t.Errorf("got %q, %v; want %q in it", got, err, tt.want)
			}
			if tt.wantErr && !errors.Is(err, tools.ErrTimeout) {
				t.Errorf("got %v, want a timeout", err)
			}
		})
	}
}

// TestReferenceStartTime measures how long the two reference servers take
// to start together, node's own start included.
func TestReferenceStartTime(t *testing.T) {
	dir := mcptest.ReferenceServers(t)
	servers := []Server{
		{Name: "files", Transport: Stdio, Command: "node", Args: []string{filepath.Join(dir, "server-filesystem", "dist", "index.js"), t.TempDir()}},
		{Name: "everything", Transport: Stdio, Command: "node", Args: []string{filepath.Join(dir, "server-everything", "dist", "index.js")}},
	}
	begin := time.Now()
	set := start(t, Options{}, servers...)
	t.Logf("the filesystem and everything servers started in %s, with %d tools", time.Since(begin).Round(time.Millisecond), len(set.Tools()))
}
