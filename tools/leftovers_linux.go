package tools

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// killMarked kills every process whose environment holds marker, the
// variable runCommand gave the command it started: whatever the command
// left running, daemons that left its process group with setsid
// included. Linux shows every process's environment in /proc; a process
// that cleared its environment is not found.
func killMarked(marker string) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	want := append([]byte(marker), 0)
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), append([]byte{0}, want...)) {
			continue
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
