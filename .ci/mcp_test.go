package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools/mcp/mcptest"
)

// writeConfig writes text to a file called name in a temporary folder.
func writeConfig(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// children returns the processes whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if f := strings.Fields(s[i+1:]); i > 0 && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(e.Name())
			out = append(out, child)
		}
	}
	return out
}

func TestMCPInterrupt(t *testing.T) {
	dir := mcptest.ReferenceServers(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("finding the server's process needs /proc")
	}
	config := writeConfig(t, "everything.json", fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q]}}}`,
		filepath.Join(dir, "server-everything", "dist", "index.js")))
	s := start(t, invocation{args: []string{"tool", "--yes", "--mcp-config", config, "trigger-long-running-operation", `{"duration": 60, "steps": 2}`}})
	defer s.cmd.Process.Kill()
	var server []int
	waitFor(t, "the server to start", func() bool { server = children(s.cmd.Process.Pid); return len(server) > 0 })
	time.Sleep(2 * time.Second) // its start, and the call's
	begin := time.Now()
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10s after Ctrl-C\n--- stderr:\n%s", s.stderr.String())
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("took %s to stop after Ctrl-C", d)
	}
	if got := s.outcome(); got.code != 130 || !strings.Contains(got.stderr, "interrupted") {
		t.Fatalf("want exit 130 and \"interrupted\"\n%s", got)
	}
	for _, pid := range server {
		waitFor(t, fmt.Sprintf("the MCP server (pid %d) to end", pid), func() bool { return !alive(pid) })
	}
}
