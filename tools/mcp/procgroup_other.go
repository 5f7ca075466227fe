//go:build !unix

package mcp

import "os/exec"

// inOwnGroup leaves cmd as it is: without Unix process groups, the end of
// cmd's context kills the process itself (exec's default), not its
// children.
func inOwnGroup(cmd *exec.Cmd) {}

// killGroup kills the process, the closest this platform gets to a group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
