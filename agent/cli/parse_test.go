package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes text to a file of its own and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParseForPeopleWhoTestParsers(t *testing.T) {
	t.Parallel()
	openai := writeFile(t, "openai.json", `[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]`)
	failing := writeFile(t, "failing.jsonl", strings.Join([]string{
		`{"id": "a", "text": "Action: web_search\nAction Input: zig", "expect": {"action": "Search", "input": "zig"}}`,
		`this line is not JSON`,
		`{"id": "b", "text": "Final Answer: 4", "expect": {"final_answer": "4"}}`,
		`{"id": "c", "text": "Final Answer: \u001b[31mred", "expect": {"final_answer": "blue"}}`,
	}, "\n"))
	tests := []struct {
		name   string
		in     invocation
		code   int
		stdout string // a substring of stdout; "=" + text for the whole of it
		stderr string // a substring of stderr
	}{
		{"--tool names the tools the replies call", invocation{args: []string{"parse", "--tool", "Search"}, stdin: "Action: Search\nAction Input: zig"},
			0, `={"kind":"action","thought":"","action":"Search","args":{"input":"zig"}}` + "\n", ""},
		{"--tool replaces the built-in tools", invocation{args: []string{"parse", "--tool", "Search"}, stdin: "Action: web_search\nAction Input: zig"},
			0, `"args":{"input":"zig"}`, ""},
		{"--tool is repeatable", invocation{args: []string{"parse", "--tool", "Search", "--tool", "Lookup"}, stdin: "Action: lookup\nAction Input: zig"},
			0, `"action":"Lookup"`, ""},
		{"--tools reads a name with a colon whole", invocation{args: []string{"parse", "--tools", root + "/testdata/parser/tools.json"}, stdin: "Action: Gmail: Find Email\nAction Input: from:bob"},
			0, `"action":"Gmail: Find Email","args":{"query":"from:bob"}`, ""},
		{"--tools reads OpenAI's function tools", invocation{args: []string{"parse", "--tools", openai}, stdin: "Action: get_weather\nAction Input: Oslo"},
			0, `"args":{"city":"Oslo"}`, ""},
		{"--score reads the shipped corpus as labelled", invocation{args: []string{"parse", "--tools", root + "/testdata/parser/tools.json", "--score", root + "/testdata/parser/score.jsonl"}},
			0, "replies read as labelled (100.0%)\n", ""},
		{"--score reads a corpus on stdin", invocation{args: []string{"parse", "--score", "-"}, stdin: `{"id": 1, "text": "Final Answer: 4", "expect": {"final_answer": "4"}}`},
			0, "=1 of 1 replies read as labelled (100.0%)\n", ""},
		{"--score prints each failure with its line and exits 1", invocation{args: []string{"parse", "--score", failing}},
			1, "line 1 (id \"a\"): another action\n  want: the action \"Search\" with the input \"zig\"\n  got:  the action \"web_search\" with {\"query\":\"zig\"}\n", ""},
		{"--score reports a malformed line and scores the rest", invocation{args: []string{"parse", "--score", failing}},
			1, "line 2: not scored: not a labelled reply: not a JSON object", ""},
		{"--score sums up after the failures", invocation{args: []string{"parse", "--score", failing}},
			1, "1 of 3 replies read as labelled (33.3%); 1 malformed line not scored\n", ""},
		{"--score escapes the corpus's control characters", invocation{args: []string{"parse", "--score", failing}},
			1, `got:  the final answer "\x1b[31mred"`, ""},
		{"--json is only for --score", invocation{args: []string{"parse", "--json"}, stdin: "Final Answer: 4"}, 2, "=", "--json is for the report of --score"},
		{"--score takes no --jsonl", invocation{args: []string{"parse", "--score", failing, "--jsonl"}}, 2, "=", "leave out --jsonl"},
		{"--score names a corpus that is not there", invocation{args: []string{"parse", "--score", "nope.jsonl"}}, 2, "=", "nope.jsonl"},
		{"--tools names a file that is not there", invocation{args: []string{"parse", "--tools", "nope.json"}, stdin: "Final Answer: 4"}, 2, "=", "nope.json"},
		{"--tools refuses a file that is not a tool list", invocation{args: []string{"parse", "--tools", failing}, stdin: "Final Answer: 4"}, 2, "=", "want a JSON list of tools"},
		{"--tool and --tools refuse a name given twice", invocation{args: []string{"parse", "--tool", "web_search", "--tools", root + "/testdata/parser/tools.json"}, stdin: "Final Answer: 4"},
			2, "=", `the tool "web_search" is listed twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(t, tt.in)
			if out.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", out.code, tt.code, out)
			}
			if want, whole := strings.CutPrefix(tt.stdout, "="); whole && out.stdout != want || !whole && !strings.Contains(out.stdout, tt.stdout) {
				t.Errorf("stdout does not have %q\n%s", tt.stdout, out)
			}
			if !strings.Contains(out.stderr, tt.stderr) {
				t.Errorf("stderr does not have %q\n%s", tt.stderr, out)
			}
			if strings.ContainsRune(out.stdout+out.stderr, 0x1b) {
				t.Errorf("an escape byte reached the terminal\n%s", out)
			}
		})
	}
}

func TestParseScoreInJSON(t *testing.T) {
	t.Parallel()
	corpus := writeFile(t, "corpus.jsonl", `{"id": 1, "text": "Final Answer: 5", "expect": {"final_answer": "4"}}`+"\n"+
		`{"id": 2, "text": "Action: None needed.", "expect": {"unparseable": true}}`+"\n{\n")
	out := run(t, invocation{args: []string{"parse", "--score", corpus, "--json"}})
	if out.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", out.code, out)
	}
	var rep struct {
		Total, Passed int
		Accuracy      float64
		Failures      []struct {
			Line   int
			ID     json.RawMessage
			Reason string
			Expect map[string]any
			Got    *struct {
				Kind        string
				FinalAnswer string `json:"final_answer"`
			}
		}
		Malformed []struct {
			Line  int
			Error string
		}
	}
	if err := json.Unmarshal([]byte(out.stdout), &rep); err != nil || strings.Count(strings.TrimSpace(out.stdout), "\n") != 0 {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	f := rep.Failures
	if rep.Total != 2 || rep.Passed != 1 || rep.Accuracy != 0.5 || len(f) != 1 || f[0].Line != 1 || string(f[0].ID) != "1" ||
		f[0].Got == nil || f[0].Got.FinalAnswer != "5" || f[0].Expect["final_answer"] != "4" || len(rep.Malformed) != 1 || rep.Malformed[0].Line != 3 {
		t.Errorf("report %+v\n%s", rep, out)
	}
}

// TestParseSaysWhatItWaitsFor runs parse at a terminal with nothing piped:
// it says what to paste and how to end; a pipe gets no such line.
func TestParseSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel()
	got := invocation{args: []string{"parse"}, stdin: "Final Answer: 4", terminal: true, width: 80}.run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "reading a model's reply from the terminal; paste it, then press Ctrl-D") {
		t.Errorf("at a terminal: want what parse waits for\n%s", got)
	}
	if got = (invocation{args: []string{"parse"}, stdin: "Final Answer: 4"}).run(t); got.stderr != "" {
		t.Errorf("from a pipe: want nothing on stderr\n%s", got)
	}
}
