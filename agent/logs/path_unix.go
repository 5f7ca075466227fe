//go:build unix

package logs

import (
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes an open fail on a symbolic link, and nonBlock keeps an
// open from waiting (on a FIFO, say).
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)

// ownedByUser reports whether the file fi describes belongs to the user
// the program runs as.
func ownedByUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}
