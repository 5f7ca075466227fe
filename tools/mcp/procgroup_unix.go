//go:build unix

package mcp

import (
	"errors"
	"os/exec"
	"syscall"
)

// inOwnGroup makes cmd start a process group of its own, so that a Ctrl-C
// at the terminal reaches react-agent alone, which then closes the server
// in order, and makes the end of cmd's context kill the whole group.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills every process left in cmd's process group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
