package cli

import (
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// hideSecrets keeps the API key from the processes the tools start,
// which run as the same user: the shell a model writes commands for could
// otherwise read it in /proc/PPID, where its parent shows its environment
// and its arguments.
//
// The process is made non-dumpable, which closes its environ, mem and
// the like to the user's other processes (not to root). An --api-key
// value is overwritten with x's where the kernel reads the arguments
// from, in the memory os.Args lies in; args, which the command line is
// read from, is copied first, and it returns the copy. A program that
// runs the command line with arguments of its own is not changed.
func hideSecrets(args []string) []string {
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
	copied := make([]string, len(args))
	for i, a := range args {
		copied[i] = strings.Clone(a)
	}
	for i := 1; i < len(os.Args); i++ {
		a := os.Args[i]
		switch {
		case a == "--":
			return copied
		case a == "--api-key" && i+1 < len(os.Args):
			i++
			overwrite(os.Args[i])
		case strings.HasPrefix(a, "--api-key="):
			overwrite(a[len("--api-key="):])
		}
	}
	return copied
}

// overwrite writes x over the bytes of s, an argument of the process.
func overwrite(s string) {
	if len(s) == 0 {
		return
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	for i := range b {
		b[i] = 'x'
	}
}
