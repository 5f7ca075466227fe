package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

func TestCommandLine(t *testing.T) {
	t.Parallel()
	demo := []string{"--provider", "replay", "--replay", root + "/testdata/agent/demo.jsonl"}
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
		{"tool refuses shell with no terminal and no --yes", invocation{args: []string{"tool", "--allow-shell", "shell", "echo hi"}}, 1, "=",
			"react-agent: shell: not run: the call needs your confirmation, and there is no terminal to ask on; pass --yes to allow tool commands without asking\n"},
		{"tool runs shell with --yes", invocation{args: []string{"tool", "--allow-shell", "--yes", "shell", "echo hi"}}, 0, "hi", ""},
		{"tool exits with the status of a command that failed", invocation{args: []string{"tool", "--allow-shell", "--yes", "shell", "echo out; exit 3"}}, 3, "exit status 3", ""},
		{"tool lists the tools for an unknown one", invocation{args: []string{"tool", "nope", "x"}}, 2, "=", "the tools are calculator, http_request and web_search"},
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
		{"ask explains an unreachable server", invocation{args: []string{"ask", "-q", "--provider", "ollama", "--base-url", "http://127.0.0.1:9", "hi"}},
			1, "=", "cannot reach Ollama at http://127.0.0.1:9"},
		{"ask says that nothing answered where a server was to be found, and how to start one",
			invocation{args: []string{"ask", "-q", "--base-url", "http://127.0.0.1:9", "hi"}}, 1, "=",
			"react-agent: nothing answered at http://127.0.0.1:9 (connection refused); start a model server there, such as Ollama (OLLAMA_HOST=127.0.0.1:9 ollama serve), " +
				"llama.cpp (llama-server -m MODEL.gguf --port 9) or vLLM (vllm serve MODEL --port 9), or check --base-url\n"},
		{"the trace shows an unreachable server once", invocation{args: []string{"ask", "--provider", "ollama", "--base-url", "http://127.0.0.1:9", "hi"}},
			1, "=", "cannot reach Ollama"},
		{"ask explains a missing key", invocation{args: []string{"ask", "--provider", "openai", "hi"}}, 1, "=", "set OPENAI_API_KEY or pass --api-key"},
		{"ask rejects an unknown provider", invocation{args: []string{"--provider", "nope", "hi"}}, 2, "=", `unknown provider "nope"`},
		{"--replay implies the replay provider", invocation{args: []string{"-q", "--replay", root + "/testdata/agent/demo.jsonl", question}}, 0, "=17 * 23 + 4 = 395\n", ""},
		{"the demo cassette replays only its own conversation", invocation{args: []string{"-q", "--replay", root + "/testdata/agent/demo.jsonl", "What is 2+2?"}},
			1, "=", "replays only the conversation it recorded"},
		{"a command may come after flags", invocation{args: append(append([]string{"-q"}, demo...), "chat"), stdin: question + "\n"}, 0, " = 395", ""},
		{"a setting before a command that does not use it is ignored", invocation{args: []string{"--base-url", "http://127.0.0.1:9", "-q", "tools"}}, 0, "calculator\n    Evaluate", ""},
		{"a flag's value is not taken for a command", invocation{args: []string{"--model", "tools", "--base-url", "http://127.0.0.1:9", "hello there"}}, 1, "=", "nothing answered at http://127.0.0.1:9"},
		{"a setting before a command that uses it is taken", invocation{args: []string{"--json", "--provider", "openai", "--base-url", models.URL, "models"}}, 0, "=[\n  {\n    \"name\": \"m-one\"\n  }\n]\n", ""},
		{"a mistyped command after flags is a usage error", invocation{args: []string{"-q", "tols"}}, 2, "=", `did you mean "tools"?`},
		{"a command of another tool is a usage error", invocation{args: []string{"keys", "set", "openai"}}, 2, "=", "OPENAI_API_KEY"},
		{"a question of three words is asked", invocation{args: []string{"-q", "--base-url", "http://127.0.0.1:9", "what", "is", "zig?"}}, 1, "=", "nothing answered at http://127.0.0.1:9"},
		{"help names a command", invocation{args: []string{"help", "logs"}}, 0, "Usage: react-agent logs", ""},
		{"models --help lists its own flags only", invocation{args: []string{"models", "--help"}}, 0, "--base-url", ""},
		{"tools --json lists the tools as JSON", invocation{args: []string{"tools", "--json"}}, 0, `"input_schema": {`, ""},
		{"a flag value is checked in words", invocation{args: []string{"--timeout", "5", "hi"}}, 2, "=", "--timeout takes a time with its unit, like 30s"},
		{"a tool that takes arguments needs an input", invocation{args: []string{"tool", "calculator"}}, 2, "=", "calculator needs an input"},
		{"a mistyped command is a usage error", invocation{args: []string{"tols"}}, 2, "=", `did you mean "tools"?`},
		{"a swapped pair of letters is a typo too", invocation{args: []string{"chta"}}, 2, "=", `did you mean "chat"?`},
		{"a one-word question far from any command is asked", invocation{args: []string{"-q", "--base-url", "http://127.0.0.1:9", "hello"}}, 1, "=", "nothing answered at http://127.0.0.1:9"},
		{"models lists what an OpenAI-compatible server serves", invocation{args: []string{"models", "--provider", "openai", "--base-url", models.URL}}, 0, "=m-one\n", ""},
		{"-u prints the tokens after the answer", invocation{args: append(append([]string{"-q", "-u"}, demo...), question)}, 0, "=17 * 23 + 4 = 395\n", "usage: 1722 tokens in, 98 out, 3 model calls"},
		{"ask rejects an unknown language", invocation{args: []string{"--lang", "fr", "hi"}}, 2, "=", "--lang"},
		{"the compact prompt is in English only", invocation{args: []string{"--prompt", "compact", "--lang", "zh", "hi"}}, 2, "=", "--prompt compact is written in English only"},
		{"--prompt-file wins over --prompt", invocation{args: []string{"--prompt", "compact", "--prompt-file", "/nonexistent/p.tmpl", "hi"}}, 1, "=", "/nonexistent/p.tmpl"},
		{"ask rejects an unknown prompt", invocation{args: []string{"--prompt", "nope", "hi"}}, 2, "=", "the prompts are full and compact"},
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

func TestExitStatus(t *testing.T) {
	t.Parallel()
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

func TestJSONEvents(t *testing.T) {
	t.Parallel()
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
		got := run(t, invocation{args: []string{"ask", "--json", "-q", "--provider", "ollama", "--base-url", "http://127.0.0.1:9", "hi"}})
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

// TestToolOptionsAreUsageErrors checks that tool settings no tool can
// work with exit 2 and name their flag.
func TestToolOptionsAreUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown search engine", []string{"tools", "--search-engine", "bing"}, "--search-engine"},
		{"a negative tool timeout", []string{"tools", "--tool-timeout", "-5s"}, "--tool-timeout"},
		{"searxng without its address", []string{"tools", "--search-engine", "searxng"}, "--search-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: tt.args})
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit 2 naming %s\n%s", tt.want, got)
			}
		})
	}
}

// TestTimeoutBoundsTheWholeRun runs against a server that never answers:
// --timeout 2s ends the run, forced answer included, within a second of
// it, with exit status 3.
func TestTimeoutBoundsTheWholeRun(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Hang())
	start := time.Now()
	got := run(t, invocation{args: []string{"ask", "-q", "--timeout", "2s", "--base-url", s.URL, "hi"}})
	if took := time.Since(start); got.code != 3 || took > 3500*time.Millisecond {
		t.Fatalf("exit %d after %s, want 3 within about 3s\n%s", got.code, took, got)
	}
}

// TestAModelThatNeverFollowsTheFormat gets the same unreadable reply three
// times: the trace tells what was wrong in a line each time, not the
// correction written for the model, and the run ends with exit 3 and
// advice on what to try.
func TestAModelThatNeverFollowsTheFormat(t *testing.T) {
	t.Parallel()
	s := ollama(t, "no_format.json", modeltest.Repeat())
	got := run(t, invocation{args: []string{"ask", "--base-url", s.URL, "What is 17 * 23 + 4?"}})
	if got.code != 3 || !strings.Contains(got.stderr, "the model replied in a form the agent cannot read 3 times in a row; try another model") {
		t.Fatalf("want exit 3 and advice\n%s", got)
	}
	if n := strings.Count(got.stderr, "] parse error: no action or final answer\n"); n != 3 || strings.Contains(got.stderr, "Your reply") {
		t.Errorf("want what was wrong with each reply, in a line, and no message to the model\n%s", got)
	}
}

// TestModelOptionsReachTheServer passes options as llm does, -o KEY
// VALUE, and as a setting: Ollama gets them in its options object.
func TestModelOptionsReachTheServer(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Repeat())
	got := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "-o", "repeat_penalty", "1.1", "-o", "mirostat=2", "What is 17 * 23 + 4?"},
		env: []string{"REACT_AGENT_OPTION=min_p=0.05"}})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	opts, _ := s.Request(0)["options"].(map[string]any)
	if opts["repeat_penalty"] != 1.1 || opts["mirostat"] != 2.0 || opts["num_ctx"] == nil {
		t.Errorf("the server got options %v, want repeat_penalty and mirostat beside num_ctx", opts)
	}
	if _, ok := opts["min_p"]; ok {
		t.Errorf("the environment's option was used although the command line gave -o: %v", opts)
	}
	bad := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "hi", "-o", "nonsense"}})
	if bad.code != 2 || !strings.Contains(bad.stderr, "KEY=VALUE") {
		t.Errorf("-o without a value: want exit 2 and what to write\n%s", bad)
	}
}

// TestPipeKeepsTheAnswerAsIs checks that a pipe gets the answer byte for
// byte: only terminals get escapes made visible.
func TestPipeKeepsTheAnswerAsIs(t *testing.T) {
	t.Parallel()
	s := ollama(t, "hostile.json")
	got := run(t, invocation{args: []string{"ask", "-q", "--base-url", s.URL, "hi"}})
	if got.code != 0 || got.stdout != "safe\x1b]0;pwned\x07 and \x1b]52;c;aGk=\x07 answer\n" {
		t.Fatalf("want the answer byte for byte\n%q", got.stdout)
	}
}

// TestARunStoppedAtItsLimitCountsEveryCall stops a run after one step:
// the error comes at the step of the forced answer it asked for, counts
// in the singular, and -u counts that call with its tokens.
func TestARunStoppedAtItsLimitCountsEveryCall(t *testing.T) {
	t.Parallel()
	got := run(t, invocation{args: append(append([]string{"--max-iterations", "1", "-u"}, demo...), "What is 17 * 23 + 4?")})
	for _, want := range []string{"\n[2] error: the model gave no final answer when asked for one after 1 iteration; raise --max-iterations", ", 2 model calls, "} {
		if got.code != exitNoAnswer || !strings.Contains(got.stderr, want) {
			t.Errorf("want exit %d and %q\n%s", exitNoAnswer, want, got)
		}
	}
}
