package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// root is the project's root, seen from this package's folder.
const root = "../.."

// demo are the flags that answer from the demo cassette.
var demo = []string{"--provider", "replay", "--replay", root + "/testdata/agent/demo.jsonl"}

// fakeSignals stands for the process's signals: a test presses Ctrl-C
// with interrupt.
type fakeSignals struct {
	mu    sync.Mutex
	chans map[chan<- os.Signal]bool
}

func (f *fakeSignals) notify(c chan<- os.Signal) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.chans == nil {
		f.chans = map[chan<- os.Signal]bool{}
	}
	f.chans[c] = true
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.chans, c)
	}
}

// interrupt sends Ctrl-C's signal to those listening, and reports whether
// anyone was.
func (f *fakeSignals) interrupt() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.chans {
		select {
		case c <- os.Interrupt:
		default:
		}
	}
	return len(f.chans) > 0
}

// invocation is one command line run in-process.
type invocation struct {
	args  []string
	stdin string
	// env is the environment, KEY=VALUE items, beside HOME in a folder
	// of the test's own, where the log is kept and no config is read.
	env []string
	// terminal makes stdin, stdout and stderr terminals of width columns.
	terminal bool
	width    int
	// signals, when set, stands for the process's Ctrl-C.
	signals *fakeSignals
	// now, when set, is the clock.
	now func() time.Time
}

// outcome is what a run produced.
type outcome struct {
	stdout, stderr string
	code           int
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s\n--- stderr:\n%s", o.code, o.stdout, o.stderr)
}

// testEnv returns the env of in, writing to stdout and stderr.
func testEnv(t *testing.T, in invocation, stdout, stderr io.Writer) *env {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"HOME": dir}
	for _, kv := range in.env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	sigs := in.signals
	if sigs == nil {
		sigs = &fakeSignals{}
	}
	now := in.now
	if now == nil {
		now = time.Now
	}
	return &env{
		stdin:  strings.NewReader(in.stdin),
		stdout: stdout, stderr: stderr,
		getenv:   func(k string) string { return vars[k] },
		notify:   sigs.notify,
		terminal: func(any) bool { return in.terminal },
		width: func(any) int {
			if in.terminal {
				return in.width
			}
			return 0
		},
		openTTY: func() (*os.File, error) { return nil, errors.New("no terminal in tests") },
		configDir: func() (string, error) {
			if d := vars["XDG_CONFIG_HOME"]; d != "" {
				return d, nil
			}
			return filepath.Join(dir, ".config"), nil
		},
		defaultLog: func() (string, error) {
			// Where the binary keeps it: under XDG_DATA_HOME, or the
			// test's own folder.
			if d := vars["XDG_DATA_HOME"]; d != "" {
				return filepath.Join(d, "react-agent", "logs.db"), nil
			}
			return filepath.Join(dir, ".local", "share", "react-agent", "logs.db"), nil
		},
		now: now,
	}
}

// run runs in, in-process, to its end.
func run(t *testing.T, in invocation) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := testEnv(t, in, &stdout, &stderr).run(in.args)
	return outcome{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// args is an invocation of args alone.
func args(a ...string) invocation { return invocation{args: a} }

// run runs in.
func (in invocation) run(t *testing.T) outcome {
	t.Helper()
	return run(t, in)
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

// ollama starts a fake Ollama server answering with the script in name,
// from testdata/agent/server.
func ollama(t *testing.T, name string, opts ...modeltest.Option) *modeltest.Server {
	t.Helper()
	s := modeltest.NewOllama(replies(t, name), opts...)
	t.Cleanup(s.Close)
	return s
}

func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		run    invocation
		code   int
		stdout string // a substring of stdout; "=" + text for the whole of it
		stderr string // a substring of stderr
	}{
		{"a question is answered from the demo cassette", args(append(append([]string{"-q"}, demo...), "What is 17 * 23 + 4?")...),
			0, "=17 * 23 + 4 = 395\n", ""},
		{"the trace goes to stderr", args(append(append([]string{"ask"}, demo...), "What is 17 * 23 + 4?")...),
			0, "=17 * 23 + 4 = 395\n", "[2] Observation: 395"},
		{"parse prints an action", invocation{args: []string{"parse"}, stdin: "Thought: add\nAction: Calculator\nAction Input: 2+2"},
			0, `={"kind":"action","thought":"add","action":"calculator","args":{"expression":"2+2"}}` + "\n", ""},
		{"tool runs the calculator", args("tool", "calculator", "2**10 / 4"), 0, "=256\n", ""},
		{"a mistyped command is a usage error", args("tols"), 2, "=", `did you mean "tools"?`},
		{"an unknown flag is a usage error", args("parse", "--nope"), 2, "=", "react-agent parse: unknown flag --nope (see --help)"},
		{"help lists the commands", args("help"), 0, "\n  chat ", ""},
		{"--version names the program", args("--version"), 0, "react-agent ", ""},
		{"a setting comes from the environment", invocation{args: []string{"settings"}, env: []string{"REACT_AGENT_MODEL=from-env"}},
			0, "from-env                (REACT_AGENT_MODEL)\n", ""},
		{"the provider's variable gives the server", invocation{args: []string{"settings"}, env: []string{"OLLAMA_HOST=http://127.0.0.1:9"}},
			0, "http://127.0.0.1:9  (OLLAMA_HOST)\n", ""},
		{"-q and -v contradict each other", args(append(append([]string{"-q", "-v"}, demo...), "hi")...), 2, "=", "--quiet and --verbose contradict each other"},
		{"an unreachable server is explained", args("-q", "--provider", "ollama", "--base-url", "http://127.0.0.1:9", "hi"), 1, "=", "cannot reach Ollama at http://127.0.0.1:9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.run.run(t)
			if got.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", got.code, tt.code, got)
			}
			if want, whole := strings.CutPrefix(tt.stdout, "="); whole && got.stdout != want || !whole && !strings.Contains(got.stdout, tt.stdout) {
				t.Errorf("stdout is not what it should be (want %q)\n%s", tt.stdout, got)
			}
			if !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("stderr lacks %q\n%s", tt.stderr, got)
			}
		})
	}
}

func TestAskAnOllamaServer(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Model("qwen2.5:7b"))
	got := invocation{args: []string{"What is 17 * 23 + 4?"}, env: []string{"OLLAMA_HOST=" + s.URL}}.run(t)
	if got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" {
		t.Fatalf("want the answer and exit 0\n%s", got)
	}
	if s.Calls() != 2 {
		t.Errorf("the server got %d calls, want 2", s.Calls())
	}
}

func TestCtrlCStopsAModelCall(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Hang())
	sigs := &fakeSignals{}
	done := make(chan outcome, 1)
	go func() { done <- invocation{args: []string{"ask", "--base-url", s.URL, "hi"}, signals: sigs}.run(t) }()
	for deadline := time.Now().Add(10 * time.Second); s.Calls() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the model was never called")
		}
	}
	if !sigs.interrupt() {
		t.Fatal("nobody listens for Ctrl-C during a model call")
	}
	select {
	case got := <-done:
		if got.code != exitInterrupted || !strings.Contains(got.stderr, "interrupted") || got.stdout != "" {
			t.Fatalf("want exit 130, \"interrupted\" on stderr and nothing on stdout\n%s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10s after Ctrl-C")
	}
}
