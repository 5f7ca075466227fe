//go:build !unix

package cli

import "time"

// lockDir takes no lock where the system has no flock: two commands that
// change the config file at once may lose one's change.
func lockDir(dir string, wait time.Duration) (unlock func(), err error) { return func() {}, nil }
