//go:build !linux

package tools

import "time"

// killMarked does nothing here: only Linux shows other processes'
// environments. On other systems a command's process group is killed, but
// a daemon that left it (with setsid) outlives the call.
func killMarked(marker string) {}

// KillMarked does nothing here, for the same reason as killMarked.
func KillMarked(marker string, wait time.Duration) {}

// reapGroup does nothing here: without /proc, the processes of a group
// that was sent SIGKILL are not waited for; they die as the system gets
// to them.
func reapGroup(pgid int) {}
