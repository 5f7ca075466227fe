//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockDir takes an exclusive lock on the folder dir, held until unlock is
// called: the commands that change the config file hold it over the whole
// read, change and rename, so that two of them at once each keep the
// other's change. It waits up to wait for another process to let go,
// then says who to wait for.
func lockDir(dir string, wait time.Duration) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing lets the lock go
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another react-agent has been changing the settings in %s for %s; try again once it is done", dir, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
