//go:build !unix

package tools

import "os/exec"

// inOwnGroup leaves cmd as it is: without Unix process groups, cancelling
// the context kills the process itself (exec's default), not its children.
func inOwnGroup(cmd *exec.Cmd) {}

// killGroup kills the process, the closest this platform gets to a group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// dieWithUs leaves cmd as it is: without Unix process groups and a shell
// to watch for this process's end, a command may outlive it.
func dieWithUs(cmd *exec.Cmd) (started func(), done func()) { return func() {}, func() {} }
