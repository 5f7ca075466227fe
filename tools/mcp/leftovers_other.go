//go:build !linux

package mcp

import "time"

// killMarked does nothing here: only Linux shows other processes'
// environments. On other systems a server's process group is killed, but
// a daemon that left it (with setsid) outlives the server.
func killMarked(marker string, wait time.Duration) {}
