package parser_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadTime returns the CPU time the calling thread has used: the time
// it ran, not the time it waited for a processor on a loaded machine.
// The caller locks its goroutine to the thread.
func threadTime() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
