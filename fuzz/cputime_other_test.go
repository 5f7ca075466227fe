//go:build !linux

package fuzz

import "time"

// start is when the package's tests started.
var start = time.Now()

// threadTime returns the time since the tests started: where the CPU
// time of a thread is not read, the time on the clock stands for it.
func threadTime() time.Duration {
	return time.Since(start)
}
