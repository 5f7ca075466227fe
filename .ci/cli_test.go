// Package cli tests the built react-agent binary as people use it: as a
// subprocess, with its exit status, stdout and stderr apart, stdin, the
// environment, a config file, signals, a terminal, and model servers on
// loopback that speak the real protocols (agent/modeltest). .ci/run runs
// it with: go test .ci/*_test.go
//
// It lives in .ci/ rather than beside main.go so that the project's top
// level stays as the README describes it.
package cli

import (
	"bytes"
	"encoding/json"
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

func TestCommandLine(t *testing.T) {
	demo := []string{"--provider", "replay", "--replay", "testdata/agent/demo.jsonl"}
	question := "What is 17 * 23 + 4?"
	models := modeltest.NewOpenAI(nil, modeltest.Model("m-one"))
	t.Cleanup(models.Close)
	tests := []struct {
		name   string
		in     invocation
		code   int
		stdout string // a substring of stdout; "=" + text for the whole of it
		stderr string // a substring of stderr
	}{
		{"parse prints an action", invocation{args: []string{"parse"}, stdin: "Thought: add\nAction: Calculator\nAction Input: 2+2"},
			0, `={"kind":"action","thought":"add","action":"calculator","args":{"expression":"2+2"}}` + "\n", ""},
		{"parse prints a final answer", invocation{args: []string{"parse"}, stdin: "Thought：好\nFinal Answer：四"},
			0, `{"kind":"final","thought":"好","final_answer":"四"}`, ""},
		{"parse exits 1 on an error", invocation{args: []string{"parse"}, stdin: "Thought: hmm"},
			1, `{"kind":"error","error":"Your reply has a Thought`, ""},
		{"parse knows the built-in tools", invocation{args: []string{"parse"}, stdin: "Action: web_search\nAction Input: go\n"},
			0, `"args":{"query":"go"}`, ""},
		{"parse --jsonl keeps ids", invocation{args: []string{"parse", "--jsonl"}, stdin: "{\"id\":1,\"text\":\"Final Answer: 4\"}\n{\"id\":\"b\",\"text\":\"Action: web search[go]\"}\n"},
			0, `{"id":"b","kind":"action","thought":"","action":"web_search","args":{"query":"go"}}`, ""},
		{"parse --jsonl reports a bad line and goes on", invocation{args: []string{"parse", "--jsonl"}, stdin: "not json\n{\"id\":3,\"text\":\"\"}\n"},
			0, `{"id":3,"kind":"error","error":"Your reply was empty.`, ""},
		{"parse --timing adds parse_ns", invocation{args: []string{"parse", "--jsonl", "--timing", "--repeat", "3"}, stdin: `{"id":1,"text":"Final Answer: 4"}`},
			0, `"parse_ns":`, ""},
		{"parse rejects an unknown flag", invocation{args: []string{"parse", "--nope"}}, 2, "=", "unknown flag --nope"},

		{"tools lists the built-in tools with their arguments", invocation{args: []string{"tools"}}, 0, "expression  string  required, primary", ""},
		{"tools shows shell with --allow-shell", invocation{args: []string{"tools", "--allow-shell"}}, 0, "\nshell\n", ""},
		{"tool runs the calculator on raw input", invocation{args: []string{"tool", "calculator", "2**10 / 4"}}, 0, "=256\n", ""},
		{"tool takes a JSON object", invocation{args: []string{"tool", "Calculator", `{"expression": "3+4"}`}}, 0, "=7\n", ""},
		{"tool reports a tool error with exit 1", invocation{args: []string{"tool", "calculator", "1/0"}}, 1, "=", "division by zero"},
		{"tool names the flag that enables shell", invocation{args: []string{"tool", "shell", "echo hi"}}, 1, "=", "pass --allow-shell"},
		{"tool refuses shell with no terminal and no --yes", invocation{args: []string{"tool", "--allow-shell", "shell", "echo hi"}}, 1, "=", "pass --yes"},
		{"tool runs shell with --yes", invocation{args: []string{"tool", "--allow-shell", "--yes", "shell", "echo hi"}}, 0, "hi", ""},
		{"tool exits with the status of a command that failed", invocation{args: []string{"tool", "--allow-shell", "--yes", "shell", "echo out; exit 3"}}, 3, "exit status 3", ""},
		{"tool lists the tools for an unknown one", invocation{args: []string{"tool", "nope", "x"}}, 1, "=", "available tools: calculator"},
		{"tool refuses loopback addresses", invocation{args: []string{"tool", "http_request", "http://127.0.0.1:1/"}}, 1, "=", "127.0.0.1"},
		{"tool needs a name", invocation{args: []string{"tool"}}, 2, "=", "tool takes a tool name and its input"},

		{"a bare question is asked", invocation{args: append(append([]string{}, demo...), "-q", question)}, 0, "=17 * 23 + 4 = 395\n", ""},
		{"ask prints only the answer on stdout and the trace on stderr", invocation{args: append(append([]string{"ask"}, demo...), question)},
			0, "=17 * 23 + 4 = 395\n", "[2] Observation: 395"},
		{"-v shows the prompts and whole observations", invocation{args: append(append([]string{"ask", "-v"}, demo...), question)},
			0, "=17 * 23 + 4 = 395\n", "--- system ---"},
		{"-q leaves stderr empty", invocation{args: append(append([]string{"ask", "-q"}, demo...), question)}, 0, "=17 * 23 + 4 = 395\n", ""},
		{"ask reads the question from stdin", invocation{args: append([]string{"ask", "-q"}, demo...), stdin: question + "\n"}, 0, " = 395", ""},
		{"ask reads the question from stdin when it is -", invocation{args: append(append([]string{"ask", "-q"}, demo...), "-"), stdin: question}, 0, " = 395", ""},
		{"chat answers a line", invocation{args: append([]string{"chat", "-q"}, demo...), stdin: question + "\n"}, 0, " = 395", ""},
		{"ask explains an unreachable server", invocation{args: []string{"ask", "-q", "--base-url", "http://127.0.0.1:9", "hi"}},
			1, "=", "cannot reach Ollama at http://127.0.0.1:9"},
		{"the trace shows an unreachable server once", invocation{args: []string{"ask", "--base-url", "http://127.0.0.1:9", "hi"}},
			1, "=", "cannot reach Ollama"},
		{"ask explains a missing key", invocation{args: []string{"ask", "--provider", "openai", "hi"}}, 1, "=", "set OPENAI_API_KEY or pass --api-key"},
		{"ask rejects an unknown provider", invocation{args: []string{"--provider", "nope", "hi"}}, 2, "=", `unknown provider "nope"`},
		{"--replay implies the replay provider", invocation{args: []string{"-q", "--replay", "testdata/agent/demo.jsonl", question}}, 0, "=17 * 23 + 4 = 395\n", ""},
		{"the demo cassette replays only its own conversation", invocation{args: []string{"-q", "--replay", "testdata/agent/demo.jsonl", "What is 2+2?"}},
			1, "=", "replays only the conversation it recorded"},
		{"a command may come after flags", invocation{args: append(append([]string{"-q"}, demo...), "chat"), stdin: question + "\n"}, 0, " = 395", ""},
		{"a setting before a command that does not use it is ignored", invocation{args: []string{"--base-url", "http://127.0.0.1:9", "-q", "tools"}}, 0, "calculator\n    Evaluate", ""},
		{"a flag's value is not taken for a command", invocation{args: []string{"--model", "tools", "--base-url", "http://127.0.0.1:9", "hello there"}}, 1, "=", "cannot reach Ollama"},
		{"a setting before a command that uses it is taken", invocation{args: []string{"--json", "--provider", "openai", "--base-url", models.URL, "models"}}, 0, "=[\n  {\n    \"name\": \"m-one\"\n  }\n]\n", ""},
		{"a mistyped command after flags is a usage error", invocation{args: []string{"-q", "tols"}}, 2, "=", `did you mean "tools"?`},
		{"a command of another tool is a usage error", invocation{args: []string{"keys", "set", "openai"}}, 2, "=", "OPENAI_API_KEY"},
		{"a question of three words is asked", invocation{args: []string{"-q", "--base-url", "http://127.0.0.1:9", "what", "is", "zig?"}}, 1, "=", "cannot reach Ollama"},
		{"help names a command", invocation{args: []string{"help", "logs"}}, 0, "Usage: react-agent logs", ""},
		{"models --help lists its own flags only", invocation{args: []string{"models", "--help"}}, 0, "--base-url", ""},
		{"tools --json lists the tools as JSON", invocation{args: []string{"tools", "--json"}}, 0, `"input_schema": {`, ""},
		{"a flag value is checked in words", invocation{args: []string{"--timeout", "5", "hi"}}, 2, "=", "--timeout takes a time with its unit, like 30s"},
		{"a tool that takes arguments needs an input", invocation{args: []string{"tool", "calculator"}}, 2, "=", "calculator needs an input"},
		{"a mistyped command is a usage error", invocation{args: []string{"tols"}}, 2, "=", `did you mean "tools"?`},
		{"a swapped pair of letters is a typo too", invocation{args: []string{"chta"}}, 2, "=", `did you mean "chat"?`},
		{"a one-word question far from any command is asked", invocation{args: []string{"-q", "--base-url", "http://127.0.0.1:9", "hello"}}, 1, "=", "cannot reach Ollama"},
		{"models lists what an OpenAI-compatible server serves", invocation{args: []string{"models", "--provider", "openai", "--base-url", models.URL}}, 0, "=m-one\n", ""},
		{"-u prints the tokens after the answer", invocation{args: append(append([]string{"-q", "-u"}, demo...), question)}, 0, "=17 * 23 + 4 = 395\n", "usage: 1722 tokens in, 98 out, 3 model calls"},
		{"ask rejects an unknown language", invocation{args: []string{"--lang", "fr", "hi"}}, 2, "=", "--lang"},
		{"ask needs a question", invocation{args: []string{"ask"}}, 2, "=", "no question"},
		{"-q and -v together are a usage error", invocation{args: append(append([]string{"ask", "-q", "-v"}, demo...), question)}, 2, "=", "contradict"},
		{"--version names the program", invocation{args: []string{"--version"}}, 0, "react-agent ", ""},
		{"help with no command", invocation{args: []string{"--help"}}, 0, "Examples:", ""},
	}
	for _, cmd := range []string{"ask", "chat", "parse", "tool", "tools"} {
		tests = append(tests, struct {
			name   string
			in     invocation
			code   int
			stdout string
			stderr string
		}{cmd + " --help shows examples on stdout", invocation{args: []string{cmd, "--help"}}, 0, "Examples:\n  ", ""})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := run(t, tt.in)
			if got.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", got.code, tt.code, got)
			}
			if want, whole := strings.CutPrefix(tt.stdout, "="); whole && got.stdout != want || !whole && !strings.Contains(got.stdout, tt.stdout) {
				t.Errorf("stdout is not what it should be (want %q)\n%s", tt.stdout, got)
			}
			if !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("stderr lacks %q\n%s", tt.stderr, got)
			}
			if strings.Contains(got.stderr, "\x1b") {
				t.Errorf("stderr is not a terminal but has escape codes\n%s", got)
			}
			if n := strings.Count(got.stderr, "cannot reach"); n > 1 {
				t.Errorf("the error is printed %d times\n%s", n, got)
			}
		})
	}
}

func TestOllamaServerOnLoopback(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Model("qwen2.5:7b"))
	got := run(t, invocation{args: []string{"What is 17 * 23 + 4?"}, env: []string{"OLLAMA_HOST=" + s.URL}})
	if got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" {
		t.Fatalf("want the answer and exit 0\n%s", got)
	}
	if s.Calls() != 2 {
		t.Errorf("the server got %d calls, want 2", s.Calls())
	}
	for _, want := range []string{"[1] Action: calculator", "[1] Observation: 395"} {
		if !strings.Contains(got.stderr, want) {
			t.Errorf("the trace lacks %q\n%s", want, got)
		}
	}
	if strings.Contains(got.stdout+got.stderr, "999") {
		t.Errorf("the made-up observation after the action was used\n%s", got)
	}
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
			"", "did not give a final answer"},
		{"a model the server does not have exits 1", "calculator.json", []modeltest.Option{modeltest.Model("other")}, nil, 1,
			"", "not found"},
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

func TestJSONEvents(t *testing.T) {
	s := ollama(t, "calculator.json")
	got := run(t, invocation{args: []string{"ask", "--json", "--base-url", s.URL, "What is 17 * 23 + 4?"}})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	var types []string
	var events []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stdout line %d is not JSON: %v\n%s", i+1, err, line)
		}
		switch e["type"] {
		case "thought", "action", "observation", "final", "error":
			types = append(types, e["type"].(string))
			events = append(events, e)
		case "model", "warning", "parse_error":
		default:
			t.Errorf("line %d has an undocumented type: %s", i+1, line)
		}
	}
	if want := "thought action observation thought final"; strings.Join(types, " ") != want {
		t.Fatalf("events are %q, want %q\n%s", strings.Join(types, " "), want, got.stdout)
	}
	action, obs, final := events[1], events[2], events[4]
	if action["tool"] != "calculator" || action["iteration"] != 1.0 || action["args"].(map[string]any)["expression"] == nil {
		t.Errorf("action event: %v", action)
	}
	if obs["tool"] != "calculator" || obs["content"] != "395" || obs["error"] != false || obs["duration_ms"] == nil {
		t.Errorf("observation event: %v", obs)
	}
	if final["answer"] != "17 * 23 + 4 = 395" || final["iterations"] != 2.0 || final["forced"] != false {
		t.Errorf("final event: %v", final)
	}
	if !strings.Contains(got.stderr, "[1] Action: calculator") {
		t.Errorf("the trace should still go to stderr\n%s", got)
	}

	t.Run("a failed run ends with an error event", func(t *testing.T) {
		got := run(t, invocation{args: []string{"ask", "--json", "-q", "--base-url", "http://127.0.0.1:9", "hi"}})
		lines := strings.Split(strings.TrimSpace(got.stdout), "\n")
		var last map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || got.code != 1 {
			t.Fatalf("exit %d, last line %q: %v\n%s", got.code, lines[len(lines)-1], err, got)
		}
		if last["type"] != "error" || !strings.Contains(fmt.Sprint(last["message"]), "cannot reach Ollama") {
			t.Errorf("last event: %v", last)
		}
		if !strings.Contains(got.stderr, "cannot reach Ollama") {
			t.Errorf("with -q the error must still be on stderr\n%s", got)
		}
	})
}

func TestSettings(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	s := ollama(t, "calculator.json", modeltest.Model("from-config"), modeltest.Repeat())
	if err := os.WriteFile(config, []byte("provider: ollama\nmodel: from-config\nbase-url: "+s.URL+"\nmax-iterations: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ask := []string{"ask", "-q", "--config", config, "What is 17 * 23 + 4?"}
	tests := []struct {
		name string
		args []string
		env  []string
		code int
		want string // on stdout, or on stderr when code is not 0
	}{
		{"the config file sets provider, model and base URL", ask, nil, 0, " = 395"},
		{"REACT_AGENT_CONFIG names the file", []string{"-q", "What is 17 * 23 + 4?"}, []string{"REACT_AGENT_CONFIG=" + config}, 0, " = 395"},
		{"the environment beats the config file", ask, []string{"REACT_AGENT_MODEL=from-env"}, 1, "from-env"},
		{"a flag beats the environment", append([]string{"--model", "from-config"}, ask...), []string{"REACT_AGENT_MODEL=from-env"}, 0, " = 395"},
		{"the provider's own variable beats the file's base URL", ask, []string{"OLLAMA_HOST=http://127.0.0.1:9"}, 1, "cannot reach Ollama at http://127.0.0.1:9"},
		{"a bad environment value is a usage error", ask, []string{"REACT_AGENT_MAX_ITERATIONS=many"}, 2, "REACT_AGENT_MAX_ITERATIONS"},
		{"a missing config file named on the command line is an error", []string{"ask", "--config", filepath.Join(dir, "nope.yaml"), "hi"}, nil, 2, "nope.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: tt.args, env: tt.env})
			out := got.stdout
			if tt.code != 0 {
				out = got.stderr
			}
			if got.code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("want exit %d and %q\n%s", tt.code, tt.want, got)
			}
		})
	}

	t.Run("the default config file is read from the user's config directory", func(t *testing.T) {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "react-agent"), 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(config)
		os.WriteFile(filepath.Join(home, "react-agent", "config.yaml"), data, 0o644)
		got := run(t, invocation{args: []string{"-q", "What is 17 * 23 + 4?"}, env: []string{"XDG_CONFIG_HOME=" + home}})
		if got.code != 0 || !strings.Contains(got.stdout, " = 395") {
			t.Fatalf("want the answer\n%s", got)
		}
	})

	t.Run("bad config files say what is wrong", func(t *testing.T) {
		for body, want := range map[string]string{
			"modle: x\n":          `unknown setting "modle"`,
			"yes: true\n":         `"yes" cannot be set in a config file`,
			"max-iterations: [\n": "not a YAML mapping",
			"timeout: 30\n":       "timeout",
		} {
			bad := filepath.Join(t.TempDir(), "config.yaml")
			os.WriteFile(bad, []byte(body), 0o644)
			got := run(t, invocation{args: []string{"ask", "--config", bad, "hi"}})
			if got.code == 0 || !strings.Contains(got.stderr, want) || !strings.Contains(got.stderr, bad) {
				t.Errorf("config %q: want an error naming the file and %q\n%s", body, want, got)
			}
		}
	})
}

func TestChat(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Repeat())
	got := run(t, invocation{
		args:  []string{"chat", "-q", "--base-url", s.URL},
		stdin: "What is 17 * 23 + 4?\n/tools\n\n/reset\nAnd plus one?\n/nope\n/exit\nnever asked\n",
	})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	if n := strings.Count(got.stdout, "17 * 23 + 4 = 395\n"); n != 2 {
		t.Errorf("want two answers, got %d\n%s", n, got)
	}
	if !strings.Contains(got.stderr, "expression") || strings.Contains(got.stdout, "expression") {
		t.Errorf("/tools did not list the tools on stderr, away from the answers\n%s", got)
	}
	if !strings.Contains(got.stderr, "unknown command /nope") {
		t.Errorf("an unknown command is not explained\n%s", got)
	}
	if s.Calls() != 4 {
		t.Fatalf("the server got %d calls, want 4 (nothing after /exit)", s.Calls())
	}
	// /reset forgot the first question: the second one's first call does
	// not carry it.
	if body, _ := json.Marshal(s.Request(2)); strings.Contains(string(body), "17 * 23 + 4?") {
		t.Errorf("after /reset the first question is still sent: %s", body)
	}

	t.Run("without /reset the conversation is remembered", func(t *testing.T) {
		s := ollama(t, "calculator.json", modeltest.Repeat())
		got := run(t, invocation{args: []string{"chat", "-q", "--base-url", s.URL}, stdin: "What is 17 * 23 + 4?\nAnd plus one?\n"})
		body, _ := json.Marshal(s.Request(2))
		if got.code != 0 || !strings.Contains(string(body), "17 * 23 + 4?") || !strings.Contains(string(body), "And plus one?") {
			t.Fatalf("the second question's call lacks the first question\n%s\n%s", body, got)
		}
	})
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
			args: []string{"ask", "-q", "--allow-shell", "--yes", "--base-url", s.URL, "wait"},
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
