package tools

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// killWait bounds how long killing a command's processes waits for them
// to be gone. A killed process is normally gone within a millisecond; one
// stuck in the kernel (in uninterruptible sleep, as on a hung network
// file system) dies only when it leaves it, which no signal can hurry,
// and a process that forks faster than it is found may outlast it.
const killWait = 250 * time.Millisecond

// killMarked kills every process whose environment holds marker, the
// variable runCommand gave the command it started: whatever the command
// left running, daemons that left its process group with setsid
// included. See KillMarked.
func killMarked(marker string) { KillMarked(marker, killWait) }

// KillMarked kills, with SIGKILL, every process whose environment holds
// marker ("NAME=value"), a variable given to a process that was started:
// whatever it left running, daemons that left its process group with
// setsid or a double fork included. It looks again until none runs, so
// that a process started while it looked is killed too, for at most
// wait. Linux shows every process's environment in /proc; a process that
// cleared its environment is not found. On other systems it does nothing.
func KillMarked(marker string, wait time.Duration) {
	want := append([]byte(marker), 0)
	kill(wait, func(pid string) bool {
		env, err := os.ReadFile("/proc/" + pid + "/environ")
		return err == nil && bytes.Contains(append(append([]byte{0}, env...), 0), append([]byte{0}, want...))
	})
}

// reapGroup kills what is left of process group pgid, as killMarked does.
func reapGroup(pgid int) {
	group := strconv.Itoa(pgid)
	kill(killWait, func(pid string) bool { return pgrpOf(pid) == group })
}

// kill kills, with SIGKILL, every running process other than this one that
// match reports, again and again until none is left or wait has passed. A
// zombie does not count: it runs no more, and its parent or init reaps it.
func kill(wait time.Duration, match func(pid string) bool) {
	self := os.Getpid()
	deadline := time.Now().Add(wait)
	for {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := 0
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self || !running(e.Name()) || !match(e.Name()) {
				continue
			}
			syscall.Kill(pid, syscall.SIGKILL)
			found++
		}
		if found == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// stat returns the fields of /proc/pid/stat after the command's name, or
// nil.
func stat(pid string) [][]byte {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return bytes.Fields(b[i+1:])
}

// running reports whether process pid exists and is not a zombie.
func running(pid string) bool {
	f := stat(pid)
	return len(f) > 0 && !bytes.Equal(f[0], []byte("Z")) && !bytes.Equal(f[0], []byte("X"))
}

// pgrpOf returns the process group of process pid, or "".
func pgrpOf(pid string) string {
	if f := stat(pid); len(f) > 2 {
		return string(f[2])
	}
	return ""
}
