package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// hostile are characters that act on a terminal or reorder what it shows,
// which Go's JSON encoder writes as they are: a CSI in C1, which starts
// an escape sequence on terminals that read C1, a right-to-left
// override, a first strong isolate and the DEL control.
const hostile = "\u009b31m\u202eevil\u2068\u007f"

// TestJSONOnATerminalEscapesWhatWouldActOnIt has each command that writes
// JSON print text holding hostile characters to a terminal: once, ask
// --json, tool --json, logs --json, logs show --json, eval --json and
// parse wrote them raw. On a terminal they are \u escapes now, the same
// JSON value; in a pipe the bytes are as they were.
func TestJSONOnATerminalEscapesWhatWouldActOnIt(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	reply := "Thought: x" + hostile + "\nFinal Answer: " + hostile
	commands := []struct {
		name string
		in   func(terminal bool) invocation
	}{
		{"ask --json", func(terminal bool) invocation {
			s := modeltest.NewOllama([]string{reply})
			t.Cleanup(s.Close)
			return invocation{args: []string{"ask", "--json", "--base-url", s.URL, "Say it"}, env: []string{"XDG_DATA_HOME=" + home}, terminal: terminal}
		}},
		{"logs --json", func(terminal bool) invocation {
			return invocation{args: []string{"logs", "--json"}, env: []string{"XDG_DATA_HOME=" + home}, terminal: terminal}
		}},
		{"logs show --json", func(terminal bool) invocation {
			return invocation{args: []string{"logs", "show", "--json"}, env: []string{"XDG_DATA_HOME=" + home}, terminal: terminal}
		}},
		{"tool --json", func(terminal bool) invocation {
			return invocation{args: []string{"tool", "--json", "--yes", "--tools-config", root + "/testdata/tools/plugins/tools.yaml", "echo_input", "Oslo" + hostile}, terminal: terminal}
		}},
		{"eval --json", func(terminal bool) invocation {
			s := modeltest.NewOllama([]string{reply})
			t.Cleanup(s.Close)
			set := filepath.Join(t.TempDir(), "set.jsonl")
			if err := os.WriteFile(set, []byte(`{"question": "Say it", "contains": "evil"}`+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			return invocation{args: []string{"eval", "--json", "--models", "ollama:m@" + s.URL, set}, terminal: terminal}
		}},
		{"parse", func(terminal bool) invocation {
			return invocation{args: []string{"parse"}, stdin: reply, terminal: terminal}
		}},
	}
	for _, c := range commands {
		// In order: logs reads what ask logged.
		piped := run(t, c.in(false))
		if !strings.Contains(piped.stdout, hostile) {
			t.Fatalf("%s: in a pipe, want the characters as they are\n%s", c.name, piped)
		}
		got := run(t, c.in(true))
		if got.code != 0 {
			t.Fatalf("%s: %s", c.name, got)
		}
		for _, r := range hostile {
			if r >= 0x7f && strings.ContainsRune(got.stdout, r) {
				t.Errorf("%s: the terminal received %U:\n%q", c.name, r, got.stdout)
			}
		}
		var values []any
		dec := json.NewDecoder(strings.NewReader(got.stdout))
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s: not JSON: %v\n%s", c.name, err, got.stdout)
			}
			values = append(values, v)
		}
		if text, _ := json.Marshal(values); !strings.Contains(string(text), `"`) || !containsValue(values, hostile) {
			t.Errorf("%s: the JSON values do not hold the text as it was:\n%s", c.name, got.stdout)
		}
	}
}

// containsValue reports whether a string of the decoded JSON values vs
// holds s.
func containsValue(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, s)
	case []any:
		for _, x := range v {
			if containsValue(x, s) {
				return true
			}
		}
	case map[string]any:
		for _, x := range v {
			if containsValue(x, s) {
				return true
			}
		}
	}
	return false
}

// TestJSONEscaperWaitsForACharacterCutBetweenWrites writes JSON a byte at
// a time, as a buffered writer may cut it, and checks that each character
// is escaped whole.
func TestJSONEscaperWaitsForACharacterCutBetweenWrites(t *testing.T) {
	t.Parallel()
	text := `{"a":"` + hostile + ` 城市 🙂"}` + "\n"
	var b strings.Builder
	j := &jsonEscaper{w: &b}
	for i := range len(text) {
		if _, err := j.Write([]byte{text[i]}); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"a":"\u009b31m\u202eevil\u2068\u007f 城市 🙂"}` + "\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
