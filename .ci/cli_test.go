// Package cli tests the built react-agent binary in what only a real
// process shows: exit statuses, signals, terminals (a pseudo-terminal),
// the shell's completion, files' modes, the working directory, and every
// command of the README. The commands themselves are tested in-process,
// against the same model servers on loopback (agent/modeltest), in the
// package agent/cli. .ci/run runs these with: go test .ci/*_test.go
//
// It lives in .ci/ rather than beside main.go so that the project's top
// level stays as the README describes it.
package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// binary is the react-agent built once for all the tests.
var binary string

// goEnv is the Go toolchain's environment (its caches, proxy and
// toolchain), kept in the clean environment of each run so that README
// commands such as "go run ." reuse what is built and downloaded.
var goEnv []string

// root is the project's root, where the binary runs unless a test says
// otherwise, so that paths like testdata/agent/demo.jsonl resolve.
const root = ".."

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "react-agent-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "react-agent")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building react-agent:", err)
		os.Exit(1)
	}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB", "GOFLAGS", "GOTOOLCHAIN").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env:", err)
		os.Exit(1)
	}
	for i, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB", "GOFLAGS", "GOTOOLCHAIN"} {
		goEnv = append(goEnv, name+"="+strings.Split(string(out), "\n")[i])
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// invocation is one run of the binary.
type invocation struct {
	args  []string
	stdin string
	// env is added to a clean environment: PATH, and HOME and
	// XDG_CONFIG_HOME in an empty folder, so no user config is read.
	env []string
	dir string
}

// outcome is what a run of the binary produced.
type outcome struct {
	stdout, stderr string
	code           int
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s\n--- stderr:\n%s", o.code, o.stdout, o.stderr)
}

// cleanEnv is the environment every run starts from.
func cleanEnv(t *testing.T) []string {
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	return append(env, goEnv...)
}

func command(t *testing.T, in invocation) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, in.args...)
	cmd.Dir = root
	if in.dir != "" {
		cmd.Dir = in.dir
	}
	cmd.Env = append(cleanEnv(t), in.env...)
	cmd.Stdin = strings.NewReader(in.stdin)
	return cmd
}

// started is the binary running, with what it writes so far.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

// start starts the binary.
func start(t *testing.T, in invocation) *started {
	t.Helper()
	s := &started{cmd: command(t, in)}
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

// outcome returns what the binary produced; call it once it has ended.
func (s *started) outcome() outcome {
	return outcome{stdout: s.stdout.String(), stderr: s.stderr.String(), code: s.cmd.ProcessState.ExitCode()}
}

// run runs the binary to its end, within a minute.
func run(t *testing.T, in invocation) outcome {
	t.Helper()
	s := start(t, in)
	timer := time.AfterFunc(time.Minute, func() { s.cmd.Process.Kill() })
	defer timer.Stop()
	var exit *exec.ExitError
	if err := s.cmd.Wait(); err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return s.outcome()
}

// replies loads a model server script from testdata/agent/server.
func replies(t *testing.T, name string) []string {
	t.Helper()
	r, err := modeltest.LoadReplies(filepath.Join(root, "testdata", "agent", "server", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ollama starts a fake Ollama server answering with the script in name.
func ollama(t *testing.T, name string, opts ...modeltest.Option) *modeltest.Server {
	t.Helper()
	s := modeltest.NewOllama(replies(t, name), opts...)
	t.Cleanup(s.Close)
	return s
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		name   string
		script string
		opts   []modeltest.Option
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"an answer exits 0", "calculator.json", nil, nil, 0, "17 * 23 + 4 = 395\n", ""},
		{"a forced answer is printed and exits 3", "calculator.json", nil, []string{"--max-iterations", "1"}, 3,
			"17 * 23 + 4 = 395\n", "max_iterations"},
		{"no answer at all exits 3", "endless_actions.json", []modeltest.Option{modeltest.Repeat()}, []string{"--max-iterations", "2"}, 3,
			"", "no final answer when asked"},
		{"a model the server does not have exits 1", "calculator.json", []modeltest.Option{modeltest.Model("other")}, []string{"-m", "qwen2.5:7b"}, 1,
			"", `the model "qwen2.5:7b" is not installed`},
		{"a bad flag exits 2", "calculator.json", nil, []string{"--max-iterations", "zero"}, 2, "", `--max-iterations takes a whole number, like 10; got "zero"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ollama(t, tt.script, tt.opts...)
			args := append([]string{"ask", "--base-url", s.URL}, tt.args...)
			got := run(t, invocation{args: append(args, "What is 17 * 23 + 4?")})
			if got.code != tt.code || got.stdout != tt.stdout || !strings.Contains(got.stderr, tt.stderr) {
				t.Fatalf("want exit %d, stdout %q and %q on stderr\n%s", tt.code, tt.stdout, tt.stderr, got)
			}
		})
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// interrupt starts in, waits for ready, sends Ctrl-C's signal and returns
// the outcome, which must come within ten seconds.
func interrupt(t *testing.T, in invocation, ready func() bool) outcome {
	t.Helper()
	s := start(t, in)
	defer s.cmd.Process.Kill()
	waitFor(t, "the run to start", ready)
	begin := time.Now()
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10s after Ctrl-C\n--- stderr:\n%s", s.stderr.String())
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("took %s to stop after Ctrl-C", d)
	}
	return s.outcome()
}

func TestInterrupt(t *testing.T) {
	t.Run("Ctrl-C cancels a model call and exits 130", func(t *testing.T) {
		s := ollama(t, "calculator.json", modeltest.Hang())
		got := interrupt(t, invocation{args: []string{"ask", "--base-url", s.URL, "hi"}}, func() bool { return s.Calls() > 0 })
		if got.code != 130 || !strings.Contains(got.stderr, "interrupted") || got.stdout != "" {
			t.Fatalf("want exit 130, \"interrupted\" on stderr and nothing on stdout\n%s", got)
		}
	})

	t.Run("Ctrl-C kills a running shell command and its children", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		s := ollama(t, "shell_sleep.json")
		got := interrupt(t, invocation{
			args: []string{"ask", "-q", "--allow-shell", "--yes", "--pass-env", "PIDFILE", "--base-url", s.URL, "wait"},
			env:  []string{"PIDFILE=" + pidFile},
		}, func() bool { b, _ := os.ReadFile(pidFile); return len(bytes.TrimSpace(b)) > 0 })
		if got.code != 130 || !strings.Contains(got.stderr, "interrupted") {
			t.Fatalf("want exit 130 and \"interrupted\"\n%s", got)
		}
		b, _ := os.ReadFile(pidFile)
		var pid int
		fmt.Sscan(string(b), &pid)
		waitFor(t, fmt.Sprintf("the background sleep (pid %d) to end", pid), func() bool { return !alive(pid) })
	})

	t.Run("--json ends with an error event", func(t *testing.T) {
		s := ollama(t, "calculator.json", modeltest.Hang())
		got := interrupt(t, invocation{args: []string{"ask", "-q", "--json", "--base-url", s.URL, "hi"}}, func() bool { return s.Calls() > 0 })
		lines := strings.Split(strings.TrimSpace(got.stdout), "\n")
		if got.code != 130 || !strings.Contains(lines[len(lines)-1], `"type":"error"`) || !strings.Contains(lines[len(lines)-1], `"stop_reason":"cancelled"`) {
			t.Fatalf("want exit 130 and a last error event\n%s", got)
		}
	})
}

// alive reports whether process pid is running (a zombie is not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in brackets.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// sgr matches a colour escape sequence.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func TestNoColorWithoutTerminal(t *testing.T) {
	got := run(t, invocation{args: []string{"ask", "--provider", "replay", "--replay", "testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"}})
	if got.code != 0 || sgr.MatchString(got.stderr) {
		t.Fatalf("stderr is a pipe: no colour\n%s", got)
	}
}

// TestVersionNamesTheCommit builds the binary from the checkout with its
// VCS stamp: --version names the commit, not "(devel)" alone.
func TestVersionNamesTheCommit(t *testing.T) {
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "react-agent")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Dir = root
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if commit := strings.TrimSpace(string(head))[:12]; !strings.Contains(string(out), commit) {
		t.Errorf("--version prints %q, want the commit %s", out, commit)
	}
}
