//go:build unix

package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools"
)

// gone reports whether no process has the ID pid, a zombie aside: an
// orphan's zombie waits for an init that may not reap it in a container.
func gone(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
			return true
		}
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// waitGone fails the test unless the process pid ends within 5 seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if gone(pid) {
			return
		}
	}
	t.Errorf("process %d is still running", pid)
}

// TestCancelEndsServers checks that the end of Start's context, as Ctrl-C
// makes it, stops a call and kills the server and the processes it
// started, leaving none behind.
func TestCancelEndsServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	childFile := filepath.Join(t.TempDir(), "child")
	// A server started by a shell that leaves a child running, as npx does.
	s := Server{Name: "test", Transport: Stdio, Command: "/bin/sh",
		Args: []string{"-c", `sleep 300 & echo $! > "$CHILD"; exec "$SERVER"`},
		Env:  serverEnv()}
	s.Env["CHILD"], s.Env["SERVER"] = childFile, exe
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	set, err := Start(ctx, []Server{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	reg := registry(t, set, tools.Limits{Timeout: time.Minute})
	pid := callPid(t, reg, "pid")
	b, err := os.ReadFile(childFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := reg.Call(ctx, "hang", nil)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the call ended with %v, want context.Canceled", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the call did not end with its context")
	}
	waitGone(t, pid)
	waitGone(t, child)
	if _, err := reg.Call(context.Background(), "echo", map[string]any{"text": "x"}); err == nil {
		t.Error("a call after the end of the context succeeded")
	}
}

// TestCloseEndsServers checks that Close ends the servers' processes and
// their children.
func TestCloseEndsServers(t *testing.T) {
	set, err := Start(context.Background(), []Server{testServer(t, "a"), testServer(t, "b")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry(t, set, tools.Limits{})
	pids := []int{callPid(t, reg, "a_pid"), callPid(t, reg, "b_pid")}
	begin := time.Now()
	if err := set.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(begin); d >= terminateWait {
		t.Errorf("Close took %s: a server that exits when its stdin closes is not waited for", d)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if err := set.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestFailedStartEndsTheOthers checks that when one server fails to
// start, the ones that started are ended.
func TestFailedStartEndsTheOthers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	good := Server{Name: "good", Transport: Stdio, Command: "/bin/sh",
		Args: []string{"-c", `echo $$ > "$PIDFILE"; exec "$SERVER"`},
		Env:  serverEnv()}
	good.Env["PIDFILE"], good.Env["SERVER"] = pidFile, exe
	_, err = Start(context.Background(), []Server{good, testServer(t, "bad", "-fail-start")}, Options{})
	var se *StartError
	if !errors.As(err, &se) || se.Server != "bad" {
		t.Fatalf("got %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitGone(t, pid)
}

// lines returns the lines of the file at path.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func TestRestart(t *testing.T) {
	t.Run("a call the server stopped during is not made again, and the next call starts the server again", func(t *testing.T) {
		reg := registry(t, start(t, Options{}, testServer(t, "test")), tools.Limits{})
		first := callPid(t, reg, "pid")
		marker := filepath.Join(t.TempDir(), "crashed")
		_, err := reg.Call(context.Background(), "crash_once", map[string]any{"marker": marker})
		if !errors.Is(err, ErrCallInterrupted) || !strings.Contains(err.Error(), `crash_once: the MCP server "test" stopped (exit status 3) during the call, which may or may not have taken effect; it was not made again`) ||
			!strings.Contains(err.Error(), "\n    crashing once on purpose") {
			t.Fatalf("got %v", err)
		}
		if got := lines(t, marker); len(got) != 1 {
			t.Errorf("the call was made %d times, by processes %q", len(got), got)
		}
		waitGone(t, first)
		second := callPid(t, reg, "pid")
		if second == first {
			t.Errorf("the server was not started again")
		}
		_, err = reg.Call(context.Background(), "crash", nil)
		if !errors.Is(err, ErrServerStopped) || !strings.Contains(err.Error(), `crash: the MCP server "test" stopped (exit status 3) during the call, which may or may not have taken effect, and was restarted once already, so its tools cannot be used`) ||
			!strings.Contains(err.Error(), "\n    crashing on purpose") {
			t.Fatalf("a second stop: got %v", err)
		}
		_, err = reg.Call(context.Background(), "echo", map[string]any{"text": "x"})
		if !errors.Is(err, ErrServerStopped) || !strings.Contains(err.Error(), "do not call them again") {
			t.Errorf("a call after the server stopped for good: got %v", err)
		}
		waitGone(t, second)
	})
	t.Run("a call of a tool that says it is idempotent is made again on a new process", func(t *testing.T) {
		reg := registry(t, start(t, Options{}, testServer(t, "test")), tools.Limits{})
		first := callPid(t, reg, "pid")
		marker := filepath.Join(t.TempDir(), "crashed")
		out, err := reg.Call(context.Background(), "crash_once_idempotent", map[string]any{"marker": marker})
		if err != nil {
			t.Fatalf("a server that stopped during a call was not restarted: %v", err)
		}
		second := callPid(t, reg, "pid")
		if second == first || out != "still here, as process "+strconv.Itoa(second) {
			t.Errorf("got %q from process %d, then %d: want the call made again by a new process", out, first, second)
		}
		if got := lines(t, marker); len(got) != 2 || got[0] != strconv.Itoa(first) || got[1] != strconv.Itoa(second) {
			t.Errorf("the call was made by processes %q, want %d then %d", got, first, second)
		}
		waitGone(t, first)
	})
}
