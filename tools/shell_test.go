//go:build unix

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools/escape/escapetest"
)

func TestShellIsOffWithoutAllowShell(t *testing.T) {
	_, err := newShell(Options{}).Call(context.Background(), map[string]any{"command": "echo hi"})
	if !errors.Is(err, ErrShellDisabled) || strings.Contains(err.Error(), "--") {
		t.Errorf("disabled shell: error = %v, want ErrShellDisabled naming no flag", err)
	}
	reg, err := Builtins(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Get("shell"); ok {
		t.Error("the registry offers shell without --allow-shell")
	}
	if _, err := reg.Lookup("shell"); !errors.Is(err, ErrShellDisabled) {
		t.Errorf("Lookup(shell) error = %v, want ErrShellDisabled", err)
	}
	_, err = reg.Call(context.Background(), "shell", map[string]any{"command": "echo hi"})
	if !errors.Is(err, ErrShellDisabled) || !strings.Contains(err.Error(), "use another tool") {
		t.Errorf("registry call: error = %v, want one telling the model what to do instead", err)
	}
}

func TestShellOutput(t *testing.T) {
	tests := []struct {
		name    string
		command string
		max     int64
		want    string
	}{
		{name: "stdout and stderr are labelled", command: "echo out; echo err >&2", want: "stdout:\nout\nstderr:\nerr"},
		{name: "a non-zero exit is reported with the output", command: "echo partial; echo oops >&2; exit 3", want: "stdout:\npartial\nstderr:\noops\nexit status 3"},
		{name: "silence says so", command: "true", want: "(no output)"},
		{name: "a silent failure gives its status", command: "exit 1", want: "exit status 1"},
		{name: "pipes and quotes reach sh", command: `printf '%s\n' "a b" | tr a-z A-Z`, want: "stdout:\nA B"},
		{name: "a flood of output is capped", command: "yes | head -c 100000", max: 1000, want: "[stdout cut: 99000 bytes omitted]"},
		{name: "stdin is empty, not the terminal", command: "cat; echo done", want: "stdout:\ndone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShell(Options{AllowShell: true, MaxResponse: tt.max})
			got, err := s.Call(context.Background(), map[string]any{"command": tt.command})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("output = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// alive reports whether process pid runs (a zombie does not count).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		_, rest, _ := strings.Cut(string(stat), ") ")
		return !strings.HasPrefix(rest, "Z")
	}
	if !os.IsNotExist(err) {
		return syscall.Kill(pid, 0) == nil
	}
	return false
}

// waitGone waits up to two seconds for pid to end.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPID reads the pid a command wrote to path.
func readPID(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the command wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestShellTimeoutKillsTheProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	reg, err := Builtins(Options{AllowShell: true, ToolTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = reg.Call(context.Background(), "shell", map[string]any{
		"command": "sleep 30 & echo $! > " + pidFile + "; sleep 30",
	})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("error = %v, want ErrTimeout", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("took %s with a 500ms timeout", elapsed)
	}
	waitGone(t, readPID(t, pidFile))
}

func TestShellCancellationKillsTheProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			// The shell creates the file before it writes the pid: wait
			// for the pid itself.
			if info, err := os.Stat(pidFile); err == nil && info.Size() > 0 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := newShell(Options{AllowShell: true}).Call(ctx, map[string]any{
		"command": "sh -c 'sleep 30' & echo $! > " + pidFile + "; wait",
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "process group killed") {
		t.Fatalf("error = %v, want a cancellation that killed the group", err)
	}
	waitGone(t, readPID(t, pidFile))
}

func TestShellKillsWhatTheCommandLeavesBehind(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	start := time.Now()
	got, err := newShell(Options{AllowShell: true}).Call(context.Background(), map[string]any{
		"command": "sleep 30 & echo $! > " + pidFile + "; echo started",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "started") {
		t.Errorf("output = %q", got)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("took %s: the background child held the call", elapsed)
	}
	waitGone(t, readPID(t, pidFile))
}

func TestShellConfirmation(t *testing.T) {
	tests := []struct {
		name       string
		shell      *shellTool
		args       map[string]any
		wantNeeded bool
		want       []string
	}{
		{
			name:       "the prompt shows the exact command and its programs",
			shell:      newShell(Options{AllowShell: true}),
			args:       map[string]any{"command": "rm -rf build && make | tee log"},
			wantNeeded: true,
			want:       []string{"\n    rm -rf build && make | tee log\n", "It runs: rm, make, tee.", "Run it?"},
		},
		{
			name:       "a command that does not parse is still shown",
			shell:      newShell(Options{AllowShell: true}),
			args:       map[string]any{"command": "echo 'unclosed"},
			wantNeeded: true,
			want:       []string{"    echo 'unclosed", "does not parse"},
		},
		{
			name:  "a disabled shell asks nothing",
			shell: newShell(Options{}),
			args:  map[string]any{"command": "ls"},
		},
		{
			name:  "bad arguments ask nothing",
			shell: newShell(Options{AllowShell: true}),
			args:  map[string]any{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prompt, needed := tt.shell.Confirmation(tt.args)
			if needed != tt.wantNeeded {
				t.Fatalf("needed = %v, want %v", needed, tt.wantNeeded)
			}
			for _, w := range tt.want {
				if !strings.Contains(prompt, w) {
					t.Errorf("prompt lacks %q:\n%s", w, prompt)
				}
			}
		})
	}
}

func TestShellRefusesCommandsItCannotShow(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    string
	}{
		{"a carriage return and an erase hide the start", "rm -rf ~/x # \r\x1b[K ls -la", "control character U+000D"},
		{"an escape sequence", "echo \x1b[2J", "control character U+001B"},
		{"a right-to-left override", "echo safe \u202e;hr- mr", "text-direction character U+202E"},
		{"bytes that are not UTF-8", "echo \xff", "not UTF-8"},
		{"400,000 nested substitutions", strings.Repeat("$(", 400_000), "more than the"},
		{"substitutions nested too deep", strings.Repeat("$(", 100) + "ls" + strings.Repeat(")", 100), "nests brackets or substitutions 100 deep"},
	}
	shell := newShell(Options{AllowShell: true})
	reg, err := NewRegistry(shell)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"command": tt.command}
			if prompt, needed := shell.Confirmation(args); needed {
				t.Errorf("asked to confirm a command it cannot show:\n%q", prompt)
			}
			_, err := reg.Call(context.Background(), "shell", args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
	if _, needed := shell.Confirmation(map[string]any{"command": "printf 'a\\tb\\n' | wc -l"}); !needed {
		t.Error("an ordinary command is not confirmed")
	}
}

// TestShellRefusesEveryInvisibleCharacter has the model hide a character
// in a path: "cd /tmp/safe<U+200B>; touch MARK" once showed as
// "cd /tmp/safe; touch MARK", and after "y" the cd failed and MARK landed
// in the working folder. Nobody is asked to confirm it, and it does not
// run.
func TestShellRefusesEveryInvisibleCharacter(t *testing.T) {
	shell := newShell(Options{AllowShell: true})
	reg, err := NewRegistry(shell)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range escapetest.Invisibles {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			command := "cd " + dir + "/safe" + string(c.R) + "; touch MARK"
			args := map[string]any{"command": command}
			if prompt, needed := shell.Confirmation(args); needed {
				t.Errorf("asked to confirm a command it cannot show:\n%q", prompt)
			}
			_, err := reg.Call(context.Background(), "shell", args)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%U", c.R)) || !strings.Contains(err.Error(), "write the command without it") {
				t.Errorf("error = %v, want the character named and what to do", err)
			}
		})
	}
}

// TestShellRefusesJoinersEvenInEmoji has the model cd into a folder whose
// name joins two emoji, "😀\u200d😀", which shows as "😀😀": the display
// keeps such joiners, but a command that runs with one is refused, since
// the folder it names is not the one shown.
func TestShellRefusesJoinersEvenInEmoji(t *testing.T) {
	shell := newShell(Options{AllowShell: true})
	for _, command := range []string{"cd /tmp/\U0001F600\u200D\U0001F600; rm -rf *", "echo \u2764\uFE0F", "mkdir می\u200Cخواهم"} {
		if prompt, needed := shell.Confirmation(map[string]any{"command": command}); needed {
			t.Errorf("asked to confirm %q:\n%s", command, prompt)
		}
		if err := checkCommand(command); err == nil || !strings.Contains(err.Error(), "invisible character U+") {
			t.Errorf("checkCommand(%q) = %v, want the joiner named", command, err)
		}
	}
}

func TestShellConfirmationListsEveryProgram(t *testing.T) {
	tests := []struct{ name, command, want string }{
		{"plain names", "cd /tmp && ls | wc -l", "It runs: cd, ls, wc."},
		{"inside substitutions", "echo $(date) `whoami`", "It runs: echo, date, whoami."},
		{"a program named by a variable is shown as written", `CMD=rm; "$CMD" -rf x`, `It runs: "$CMD".`},
		{"a program a substitution names", "$(which rm) -rf x", "It runs: $(which rm), which."},
		{"emoji in arguments show as they are", "echo \U0001F44D \U0001F389 \U0001F1EF\U0001F1F5", "It runs: echo."},
	}
	shell := newShell(Options{AllowShell: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prompt, needed := shell.Confirmation(map[string]any{"command": tt.command})
			if !needed || !strings.Contains(prompt, tt.want) || !strings.Contains(prompt, "    "+tt.command+"\n") {
				t.Errorf("needed = %v, prompt:\n%s\nwant the command as it is and %q", needed, prompt, tt.want)
			}
		})
	}
}

// TestShellLeavesNoDaemonBehind starts a child that leaves the command's
// process group with setsid, as a daemon does: it must be gone when the
// call returns, whether the command ends or times out.
func TestShellLeavesNoDaemonBehind(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs Linux and setsid")
	}
	for _, timeout := range []time.Duration{0, 300 * time.Millisecond} {
		pidFile := filepath.Join(t.TempDir(), "pid")
		reg, err := Builtins(Options{AllowShell: true, ToolTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		command := "setsid sh -c 'echo $$ > " + pidFile + ".new; mv " + pidFile + ".new " + pidFile + "; exec sleep 30' > /dev/null 2>&1 < /dev/null & " +
			"while [ ! -s " + pidFile + " ]; do sleep 0.01; done;"
		if timeout > 0 {
			command += " sleep 5"
		}
		reg.Call(context.Background(), "shell", map[string]any{"command": command})
		var data []byte
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && len(data) == 0; time.Sleep(20 * time.Millisecond) {
			data, _ = os.ReadFile(pidFile)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatalf("the daemon wrote no pid: %q", data)
		}
		for deadline := time.Now().Add(3 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("timeout %s: the daemon %d outlived the call", timeout, pid)
			}
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		observation string
		want        int
	}{
		{"stdout:\nhi", 0},
		{"stdout:\nhi\nexit status 3", 3},
		{"exit status 1", 1},
		{"stderr:\nkilled\nsignal: killed", 1},
		{"=4", 0},
		{"stdout:\nexit status 3\nmore", 0},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.observation); got != tt.want {
			t.Errorf("ExitCode(%q) = %d, want %d", tt.observation, got, tt.want)
		}
	}
}

// TestTheMarkerTellsTheOriginalSize is the reproduction: a shell
// command prints 50,000 bytes, the shell keeps 10,000 (MaxResponse) and
// the registry 100 (MaxObservation). The marker counts the 50,000 bytes
// less those shown, not the 10,000 the shell kept.
func TestTheMarkerTellsTheOriginalSize(t *testing.T) {
	reg, err := Builtins(Options{AllowShell: true, MaxResponse: 10000, MaxObservation: 100})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reg.Call(context.Background(), "shell", map[string]any{"command": "head -c 50000 /dev/zero | tr '\\0' x"})
	if err != nil {
		t.Fatal(err)
	}
	shown := strings.Count(got, "x")
	var omitted int
	if _, err := fmt.Sscanf(got[strings.Index(got, "[truncated: "):], "[truncated: %d bytes omitted]", &omitted); err != nil {
		t.Fatalf("no marker with a count in %q: %v", got, err)
	}
	if missing := 50000 - shown; omitted != missing {
		t.Errorf("the marker says %d bytes were left out; %d of 50000 are missing:\n%s", omitted, missing, got)
	}
}

// running lists the running processes whose command line holds token.
func runningWith(token string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(cmdline), token) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestShellLeavesNoForkingDaemonBehind starts a daemon that left the
// command's process group and keeps starting children, as the command ends
// or as it times out: when the call returns, none of them runs any more.
// The kill looks again until it finds none, and waits for them to be gone.
func TestShellLeavesNoForkingDaemonBehind(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs Linux and setsid")
	}
	for _, timeout := range []time.Duration{0, 300 * time.Millisecond} {
		token := fmt.Sprintf("3%d.%d", time.Now().UnixNano()%1000, os.Getpid()) // sleep's unique argument
		t.Cleanup(func() {
			for _, pid := range runningWith(token) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		reg, err := Builtins(Options{AllowShell: true, ToolTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		command := "setsid sh -c 'while :; do sleep " + token + " & sleep 0.002; done' > /dev/null 2>&1 < /dev/null & sleep 0.2;"
		if timeout > 0 {
			command += " sleep 5"
		}
		reg.Call(context.Background(), "shell", map[string]any{"command": command})
		if left := runningWith(token); len(left) > 0 {
			t.Errorf("timeout %s: %d of the daemon's processes run after the call returned", timeout, len(left))
		}
	}
}
