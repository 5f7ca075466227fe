//go:build unix

package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// spawn starts a sleeping process in a session of its own and, with
// double, another that is orphaned at once (a daemon's double fork:
// setsid, fork, exit), and adds their IDs to file. They are in no process
// group of the server's: only a look at the environment of every process
// finds them.
func spawn(file string, double bool) error {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil { // the child has called setsid when Start returns
		return err
	}
	go cmd.Wait()
	fmt.Fprintln(f, cmd.Process.Pid)
	if !double {
		return nil
	}
	cmd = exec.Command("/bin/sh", "-c", `sleep 301 >/dev/null 2>&1 & echo $!`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.Output()
	if err != nil {
		return err
	}
	fmt.Fprintln(f, strings.TrimSpace(string(out)))
	return nil
}
