package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// quietTerminal returns what turns the echo of the terminal f off and on
// again, keeping the rest of its mode: a chat turns it off while an answer
// is written, so that what the person types meanwhile does not land on
// the trace's spinner, and stays in the terminal's queue for the next
// question's prompt to show; and on for a confirmation, whose answer is
// seen as it is typed. flush drops what was typed ahead, so that it never
// answers a confirmation. They do nothing where f is no terminal.
func quietTerminal(f *os.File) (off, on, flush func()) {
	fd := int(f.Fd())
	mode, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}, func() {}, func() {}
	}
	set := func(echo bool) {
		m, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			return
		}
		m.Lflag &^= unix.ECHO | unix.ECHONL
		if echo {
			m.Lflag |= mode.Lflag & (unix.ECHO | unix.ECHONL)
		}
		unix.IoctlSetTermios(fd, unix.TCSETS, m) // TCSETS, not TCSETSF: what was typed stays
	}
	return func() { set(false) }, func() { set(true) }, func() { unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
}
