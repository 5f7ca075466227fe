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

// links returns how many names the file fi describes has: a file with
// more is also elsewhere, perhaps where it must keep its mode.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
