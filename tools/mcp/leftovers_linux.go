package mcp

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// killMarked kills every process whose environment holds marker, the
// variable connect gave a server's process: whatever the server left
// running, daemons that left its process group with setsid or a double
// fork included. It kills again what appears meanwhile, until none is
// left or wait has passed. Linux shows every process's environment in
// /proc; a process that cleared its environment is not found. A killed
// process whose parent has not reaped it yet (a zombie) shows no
// environment, and counts as gone.
func killMarked(marker string, wait time.Duration) {
	want := append([]byte(marker), 0)
	self := os.Getpid()
	for deadline := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !(bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
				continue
			}
			found = true
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if !found || time.Now().After(deadline) {
			return
		}
	}
}
