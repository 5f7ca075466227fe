//go:build !linux

package parser_test

import "time"

// threadTime reports that the CPU time of a thread is not read here.
func threadTime() (time.Duration, bool) {
	return 0, false
}
