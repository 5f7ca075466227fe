//go:build unix

package tools

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
)

// inOwnGroup makes cmd start a process group of its own, and makes the
// cancellation of its context kill that whole group, children included,
// and the processes of the command that left the group (see killMarked),
// so that none of them outlives the call that the caller sees end.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := killGroup(cmd)
		if marker := markerOf(cmd); marker != "" {
			killMarked(marker)
		}
		return err
	}
}

// killGroup kills every process left in cmd's process group and, where
// the system shows them (Linux), waits until none of them runs, for at
// most killWait.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	reapGroup(cmd.Process.Pid)
	return err
}

// markerOf returns the variable that marks the processes of cmd (see
// callMarker), or "".
func markerOf(cmd *exec.Cmd) string {
	for i := len(cmd.Env) - 1; i >= 0; i-- {
		if strings.HasPrefix(cmd.Env[i], callMarker+"=") {
			return cmd.Env[i]
		}
	}
	return ""
}
