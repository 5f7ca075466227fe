package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// logRun is a run as `react-agent logs show --json` prints it.
type logRun struct {
	Conversation string   `json:"conversation"`
	Status       string   `json:"status"`
	Question     string   `json:"question"`
	Provider     string   `json:"provider"`
	Model        string   `json:"model"`
	Protocol     string   `json:"protocol"`
	Prompt       string   `json:"prompt"`
	Tools        []string `json:"tools"`
	Answer       string   `json:"answer"`
	StopReason   string   `json:"stop_reason"`
	Usage        struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
	Events []struct {
		Kind string         `json:"kind"`
		Text string         `json:"text"`
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	} `json:"events"`
}

// logSummary is a conversation as `react-agent logs --json` lists it.
type logSummary struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Runs     int    `json:"runs"`
	Status   string `json:"status"`
	Model    string `json:"model"`
}

// dataHome returns an empty data directory and the environment that
// makes the binary keep its log there.
func dataHome(t *testing.T) (string, []string) {
	dir := t.TempDir()
	return dir, []string{"XDG_DATA_HOME=" + dir}
}

// mustRun runs the binary and fails t unless it exits 0.
func mustRun(t *testing.T, in invocation) outcome {
	t.Helper()
	got := run(t, in)
	if got.code != 0 {
		t.Fatalf("react-agent %s: exit %d\n%s", strings.Join(in.args, " "), got.code, got)
	}
	return got
}

// listLog returns the conversations `react-agent logs --json` lists with
// the extra arguments.
func listLog(t *testing.T, env []string, args ...string) []logSummary {
	t.Helper()
	got := mustRun(t, invocation{args: append([]string{"logs", "--json", "-n", "100"}, args...), env: env})
	var list []logSummary
	if err := json.Unmarshal([]byte(got.stdout), &list); err != nil {
		t.Fatalf("logs --json is not a JSON list: %v\n%s", err, got)
	}
	return list
}

// showLog returns the runs of a conversation, the latest without id.
func showLog(t *testing.T, env []string, id ...string) []logRun {
	t.Helper()
	got := mustRun(t, invocation{args: append([]string{"logs", "show", "--json"}, id...), env: env})
	var runs []logRun
	if err := json.Unmarshal([]byte(got.stdout), &runs); err != nil {
		t.Fatalf("logs show --json is not a JSON list: %v\n%s", err, got)
	}
	return runs
}

var demo = []string{"--provider", "replay", "--replay", "testdata/agent/demo.jsonl"}

func TestAStoppedRunIsMarked(t *testing.T) {
	t.Run("a run killed while the model hangs is unfinished", func(t *testing.T) {
		_, env := dataHome(t)
		s := ollama(t, "calculator.json", modeltest.Hang())
		p := start(t, invocation{args: []string{"ask", "-q", "--base-url", s.URL, "What is 17 * 23 + 4?"}, env: env})
		waitFor(t, "the model call", func() bool { return s.Calls() > 0 })
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		list := listLog(t, env)
		if len(list) != 1 || list[0].Status != "unfinished" || list[0].Question != "What is 17 * 23 + 4?" {
			t.Fatalf("want the killed run, unfinished: %+v", list)
		}
		got := mustRun(t, invocation{args: []string{"logs", "show"}, env: env})
		if !strings.Contains(got.stdout, "· unfinished\n") || !strings.Contains(got.stdout, "no recorded end") {
			t.Errorf("logs show does not mark the run\n%s", got)
		}
	})
	t.Run("a run killed during a tool call keeps its steps", func(t *testing.T) {
		_, env := dataHome(t)
		pidFile := filepath.Join(t.TempDir(), "pid")
		s := ollama(t, "shell_sleep.json")
		p := start(t, invocation{args: []string{"ask", "-q", "--allow-shell", "--yes", "--pass-env", "PIDFILE", "--base-url", s.URL, "wait"},
			env: append(env, "PIDFILE="+pidFile)})
		waitFor(t, "the shell command", func() bool { b, _ := os.ReadFile(pidFile); return len(b) > 0 })
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		var pid int
		b, _ := os.ReadFile(pidFile)
		fmt.Sscan(string(b), &pid)
		if pgid, err := syscall.Getpgid(pid); err == nil && pid > 0 {
			syscall.Kill(-pgid, syscall.SIGKILL) // the orphaned shell command and its sleep
		}
		r := showLog(t, env)[0]
		if r.Status != "unfinished" || len(r.Events) != 2 || r.Events[1].Kind != "action" || r.Events[1].Tool != "shell" {
			t.Fatalf("want an unfinished run with its thought and action: %+v", r)
		}
	})
	t.Run("a run stopped with Ctrl-C is interrupted", func(t *testing.T) {
		_, env := dataHome(t)
		s := ollama(t, "calculator.json", modeltest.Hang())
		got := interrupt(t, invocation{args: []string{"ask", "-q", "--base-url", s.URL, "hi"}, env: env}, func() bool { return s.Calls() > 0 })
		if got.code != 130 {
			t.Fatalf("exit %d, want 130\n%s", got.code, got)
		}
		r := showLog(t, env)[0]
		if r.Status != "interrupted" || r.StopReason != "cancelled" || len(r.Events) != 1 || r.Events[0].Kind != "error" {
			t.Fatalf("want an interrupted run ending with its error event: %+v", r)
		}
	})
}

// TestOtherTestsKeepTheirLogsInTheirTempHome checks that a run in the
// environment every test starts from (cleanEnv: HOME in a temporary
// folder, no XDG_DATA_HOME) logs there, not in the data directory of the
// person running the tests.
func TestOtherTestsKeepTheirLogsInTheirTempHome(t *testing.T) {
	cmd := command(t, invocation{args: append(append([]string{"ask", "-q"}, demo...), "What is 17 * 23 + 4?")})
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var home string
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
		if strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			t.Fatalf("the common environment sets %s", kv)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "share", "react-agent", "logs.db")); err != nil {
		t.Fatalf("the run's log is not in the test's own HOME: %v", err)
	}
}

// demoAbs is the demo's replay flags with the cassette's absolute path,
// for runs in another folder.
func demoAbs(t *testing.T) []string {
	abs, err := filepath.Abs(filepath.Join(root, "testdata/agent/demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--provider", "replay", "--replay", abs}
}

// TestLogDBTakesAnyPath logs runs at relative paths, given with
// --log-db or REACT_AGENT_LOG_DB, and at names that mean something in a
// URI: each log is the file the path names, and logs reads it back.
func TestLogDBTakesAnyPath(t *testing.T) {
	for _, path := range []string{"rel.db", "./x.db", "sub/x.db", "my logs?#%.db"} {
		for _, how := range []string{"--log-db", "REACT_AGENT_LOG_DB"} {
			t.Run(how+" "+path, func(t *testing.T) {
				dir := t.TempDir()
				_, env := dataHome(t)
				args := append([]string{"ask", "-q"}, demoAbs(t)...)
				logs := []string{"logs", "--json"}
				if how == "--log-db" {
					args = append(args, "--log-db", path)
					logs = append(logs, "--log-db", path)
				} else {
					env = append(env, "REACT_AGENT_LOG_DB="+path)
				}
				got := mustRun(t, invocation{args: append(args, "What is 17 * 23 + 4?"), env: env, dir: dir})
				if strings.Contains(got.stderr, "not logging") {
					t.Fatalf("the run was not logged\n%s", got)
				}
				if _, err := os.Stat(filepath.Join(dir, path)); err != nil {
					t.Fatalf("no log at %s: %v", path, err)
				}
				list := mustRun(t, invocation{args: logs, env: env, dir: dir})
				if !strings.Contains(list.stdout, "What is 17 * 23 + 4?") {
					t.Errorf("logs does not list the run\n%s", list)
				}
				where := mustRun(t, invocation{args: append([]string{"logs", "path"}, logs[2:]...), env: env, dir: dir})
				if want := filepath.Join(dir, path) + "\n"; where.stdout != want {
					t.Errorf("logs path = %q, want %q", where.stdout, want)
				}
			})
		}
	}
}

// TestTheLogIsPrivate runs with the usual umask, under which files are
// readable by all unless created otherwise.
func TestTheLogIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir, env := dataHome(t)
	mustRun(t, invocation{args: append(append([]string{"ask", "-q"}, demo...), "What is 17 * 23 + 4?"), env: env})
	folder := filepath.Join(dir, "react-agent")
	files, _ := filepath.Glob(filepath.Join(folder, "logs.db*"))
	if len(files) == 0 {
		t.Fatal("no log written")
	}
	for _, f := range append(files, folder) {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %o, want %o", f, fi.Mode().Perm(), want)
		}
	}
}
