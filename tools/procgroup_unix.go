//go:build unix

package tools

import (
	"errors"
	"os"
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

// watchdog is the shell script that runs a command with a process of its
// group that waits for the end of a pipe whose other end only react-agent
// holds: when react-agent ends, however it ends (SIGKILL included), the
// pipe closes, and the watchdog kills the whole group. It then runs the
// command in its place, as "$@".
const watchdog = `(read _ <&3; kill -9 0) </dev/null >/dev/null 2>&1 & exec 3<&-; exec "$@"`

// dieWithUs makes cmd, not yet started, run under watchdog, so that its
// process group dies with this process. It returns the function to call
// once the command has started (or failed to): it closes this process's
// copy of the watchdog's end, and keeps the other until done is called,
// once the command's group is done with. A command that cannot start
// (its program is not found) is left as it is, to fail as it would.
func dieWithUs(cmd *exec.Cmd) (started func(), done func()) {
	nothing := func() {}
	if cmd.Err != nil || len(cmd.ExtraFiles) > 0 {
		return nothing, nothing
	}
	if _, err := exec.LookPath(cmd.Path); err != nil {
		return nothing, nothing // not there, or not executable: Start says so
	}
	sh, err := exec.LookPath("/bin/sh")
	if err != nil {
		return nothing, nothing
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nothing, nothing
	}
	cmd.Args = append([]string{"sh", "-c", watchdog, "sh", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sh
	cmd.ExtraFiles = []*os.File{r} // fd 3
	return func() { r.Close() }, func() { w.Close() }
}
