//go:build unix

package bounded

import "syscall"

// nonBlock keeps an open from waiting, on a FIFO that became one after
// it was checked, say.
const nonBlock = syscall.O_NONBLOCK
