package cli

import (
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// hideSecrets keeps the API key, and the passwords of servers' URLs, from
// the processes the tools start, which run as the same user: the shell a
// model writes commands for could otherwise read them in /proc/PPID,
// where its parent shows its environment and its arguments.
//
// The process is made non-dumpable, which closes its environ, mem and
// the like to the user's other processes (not to root). Each secret of
// the command line (see argSecrets: an --api-key value, the password of
// a URL given with --base-url, --search-url or eval's --models) is
// overwritten with x's where the kernel reads the arguments from, in the
// memory os.Args lies in; args, which the command line is read from, is
// copied first, and it returns the copy. A program that runs the command
// line with arguments of its own is not changed.
func hideSecrets(args []string) []string {
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
	copied := make([]string, len(args))
	for i, a := range args {
		copied[i] = strings.Clone(a)
	}
	if len(os.Args) == 0 {
		return copied
	}
	for _, s := range argSecrets(os.Args[1:]) {
		overwrite(os.Args[1+s.arg][s.start:s.end])
	}
	return copied
}

// overwrite writes x over the bytes of s, a part of an argument of the
// process.
func overwrite(s string) {
	if len(s) == 0 {
		return
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	for i := range b {
		b[i] = 'x'
	}
}
