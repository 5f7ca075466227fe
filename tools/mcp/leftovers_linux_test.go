package mcp

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/react-agent/react-agent/tools"
)

// TestCloseKillsWhatLeftTheGroup checks that the processes a server
// started outside its process group (a setsid child at start, a double
// fork, a setsid child of a call) are gone when Close returns, and when a
// server that stopped is started again.
func TestCloseKillsWhatLeftTheGroup(t *testing.T) {
	pids := func(t *testing.T, file string) []int {
		t.Helper()
		var out []int
		for _, l := range lines(t, file) {
			pid, err := strconv.Atoi(l)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pid)
		}
		return out
	}
	t.Run("Close kills them, and returns once they are gone", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "children")
		set, err := Start(context.Background(), []Server{testServer(t, "test", "-spawn", file)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		reg := registry(t, set, tools.Limits{})
		server := callPid(t, reg, "pid")
		if _, err := reg.Call(context.Background(), "spawn", map[string]any{"file": file}); err != nil {
			t.Fatal(err)
		}
		children := pids(t, file)
		if len(children) != 3 {
			t.Fatalf("the server started %d processes, want 3", len(children))
		}
		for _, pid := range children {
			if gone(pid) {
				t.Fatalf("process %d ended before Close", pid)
			}
		}
		set.Close()
		for _, pid := range append(children, server) {
			if !gone(pid) {
				t.Errorf("process %d is still running after Close", pid)
			}
		}
	})
	t.Run("a start again kills what the stopped process left", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "children")
		reg := registry(t, start(t, Options{}, testServer(t, "test")), tools.Limits{})
		if _, err := reg.Call(context.Background(), "spawn", map[string]any{"file": file}); err != nil {
			t.Fatal(err)
		}
		marker := filepath.Join(t.TempDir(), "crashed")
		reg.Call(context.Background(), "crash_once", map[string]any{"marker": marker})
		callPid(t, reg, "pid") // starts the server again
		for _, pid := range pids(t, file) {
			if !gone(pid) {
				t.Errorf("process %d, started by the server that stopped, is still running", pid)
			}
		}
	})
}
