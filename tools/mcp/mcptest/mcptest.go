// Package mcptest finds, for a test, the reference MCP servers of the
// Model Context Protocol's own repository, which npm ci installs in the
// module's testdata/mcp.
package mcptest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ReferenceServers returns the folder where npm installed the reference
// MCP servers, node_modules/@modelcontextprotocol under the module's
// testdata/mcp, or skips t when they or node are missing, unless
// REACT_AGENT_REQUIRE_MCP=1, as .ci/run sets, makes that a failure.
func ReferenceServers(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "mcp", "node_modules", "@modelcontextprotocol")
	_, err = os.Stat(filepath.Join(dir, "server-everything"))
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err == nil {
		return dir
	}
	if os.Getenv("REACT_AGENT_REQUIRE_MCP") == "1" {
		t.Fatalf("REACT_AGENT_REQUIRE_MCP is set, and the reference MCP servers must be installed, with node on PATH: %v; run npm ci in testdata/mcp", err)
	}
	t.Skipf("the reference MCP servers are not installed (%v); run npm ci in testdata/mcp to test with them", err)
	return ""
}

// moduleRoot returns the folder of the nearest go.mod at or above the
// working directory, which a test runs in: the module's root.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("mcptest: no go.mod at or above the working directory")
		}
		dir = parent
	}
}
