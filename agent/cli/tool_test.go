package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
	"github.com/react-agent/react-agent/tools/escape/escapetest"
)

// TestListsFitTheTerminal lists the tools and the settings on terminals
// of 80 and 60 columns: the tools' descriptions wrap, as help does, and
// the settings stand in aligned columns.
func TestListsFitTheTerminal(t *testing.T) {
	for _, width := range []int{60, 80} {
		t.Run("tools", func(t *testing.T) {
			t.Parallel()
			got := invocation{args: []string{"tools"}, terminal: true, width: width}.run(t)
			for _, line := range strings.Split(got.stdout, "\n") {
				if n := utf8.RuneCountInString(line); n >= width {
					t.Errorf("at %d columns, a line of %d: %q", width, n, line)
				}
			}
			if got.code != 0 || !strings.Contains(got.stdout, "\n    arguments:\n      expression  string  required, primary") {
				t.Errorf("the list lost its shape:\n%s", got)
			}
		})
		t.Run("/tools in chat", func(t *testing.T) {
			t.Parallel()
			got := invocation{args: []string{"chat", "-q", "--provider", "ollama", "--base-url", "http://127.0.0.1:9"}, stdin: "/tools\n", terminal: true, width: width}.run(t)
			for _, line := range strings.Split(got.stderr, "\n") {
				if n := utf8.RuneCountInString(line); n >= width {
					t.Errorf("at %d columns, a line of %d: %q", width, n, line)
				}
			}
		})
	}
	t.Run("settings", func(t *testing.T) {
		t.Parallel()
		got := args("settings", "-m", "qwen2.5:7b").run(t)
		column := -1
		for _, line := range strings.Split(strings.TrimSpace(got.stdout), "\n") {
			name, rest, _ := strings.Cut(line, " ")
			value := strings.TrimLeft(rest, " ")
			if len(value) > 30 || strings.HasPrefix(value, "(") {
				continue // a long value or an empty one
			}
			if at := len(line) - len(value); column < 0 {
				column = at
			} else if at != column {
				t.Errorf("the value of %s starts at column %d, not %d:\n%s", name, at, column, got.stdout)
			}
		}
		if stop, _ := settingLine(got.stdout, "stop"); stop != `["\nObservation" "\nobservation" "\n**Observation" "\n观察"]` {
			t.Errorf("stop shows %s, not the stop sequences sent", stop)
		}
	})
}

// TestToolWithoutArgumentsNeedsNoInput calls a plugin that declares no
// arguments, with no input, as its help says it may be: once the call
// failed with "unknown argument input". It runs, with {} on stdin; so
// does a tool whose arguments are all optional.
func TestToolWithoutArgumentsNeedsNoInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "tools.yaml")
	os.WriteFile(config, []byte(`tools:
  - name: stdin_back
    description: Says what it read.
    command: ["sh", "-c", "echo read; cat"]
    confirm: false
  - name: optional
    description: Takes an optional argument.
    command: ["sh", "-c", "echo read; cat"]
    args: [{name: days, type: integer}]
    confirm: false
`), 0o600)
	for _, name := range []string{"stdin_back", "optional"} {
		got := args("tool", "--tools-config", config, name).run(t)
		if got.code != 0 || strings.TrimSpace(got.stdout) != "read\n{}" {
			t.Errorf("tool %s: want it run with {} on stdin\n%s", name, got)
		}
	}
}

// TestWriteToolsListsEachTool lists the built-in tools: each with its
// description and its arguments, with their types, whether they are
// required and which one is primary, by name, and no shell unless it is
// allowed.
func TestWriteToolsListsEachTool(t *testing.T) {
	reg, err := tools.Builtins(tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeTools(&b, reg, 200); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"calculator\n    Evaluate an arithmetic expression",
		"      expression  string  required, primary  The arithmetic expression",
		"http_request\n",
		"      url      string  required, primary",
		"      headers  object  optional",
		"web_search\n",
		"      max_results  integer  optional",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the list lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "shell") {
		t.Errorf("the list shows shell, which is not allowed:\n%s", got)
	}
	if strings.Index(got, "calculator") > strings.Index(got, "web_search") {
		t.Error("the tools are not sorted by name")
	}
}

// served is a tool that runs on a server.
type served struct{}

func (served) Name() string                                         { return "read_file" }
func (served) Description() string                                  { return "Reads a file." }
func (served) Schema() tools.Schema                                 { return tools.Schema{} }
func (served) Server() string                                       { return "files" }
func (served) Call(context.Context, map[string]any) (string, error) { return "", nil }

// listed returns what writeTools prints of a registry of t alone, at
// width columns; the registry's error when it refuses t.
func listed(tb testing.TB, t tools.Tool, width int) (string, error) {
	reg, err := tools.NewRegistry(t)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := writeTools(&b, reg, width); err != nil {
		tb.Fatal(err)
	}
	return b.String(), nil
}

func TestWriteToolsNamesServers(t *testing.T) {
	got, err := listed(t, served{}, 80)
	if err != nil {
		t.Fatal(err)
	}
	if want := "read_file  (server: files)\n    Reads a file.\n    (no arguments)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// described is a tool whose every word comes from a hostile server.
type described struct{}

func (described) Name() string        { return "evil\x1b]0;pwned\a" }
func (described) Description() string { return "Reads.\x1b[2J\nSecond line\twith a tab." }
func (described) Schema() tools.Schema {
	return tools.Schema{Primary: "path\x1b]52;c;aGk=\a", Args: []tools.Arg{
		{Name: "path\x1b]52;c;aGk=\a", Type: "string", Required: true, Description: "where\u202eeno\tcolumn\nline"},
		{Name: "mode", Type: "str\x1bing", Description: "one of \"r\x1b[31m\""},
	}}
}
func (described) Server() string                                       { return "srv\x1b[1m" }
func (described) Call(context.Context, map[string]any) (string, error) { return "", nil }

// TestWriteToolsEscapes lists a tool whose name, server, description and
// arguments hold escape sequences, tabs, line breaks and an override: each
// is shown as an escape, and none breaks the list.
func TestWriteToolsEscapes(t *testing.T) {
	got, err := listed(t, described{}, 200)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(got, "\x1b\a\u202e\t") {
		t.Errorf("the list holds a control character, a tab or an override:\n%q", got)
	}
	for _, want := range []string{
		"evil\\x1b]0;pwned\\x07  (server: srv\\x1b[1m)\n",
		"    Reads.\\x1b[2J\n",
		"    Second line\\twith a tab.\n",
		"      path\\x1b]52;c;aGk=\\x07  string      required, primary  where\\u202eeno\\tcolumn\\nline\n",
		"      mode                    str\\x1bing  optional           one of \"r\\x1b[31m\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the list lacks %q:\n%s", want, got)
		}
	}
}

// invisibleTool says of itself what hides in it.
type invisibleTool struct{ c string }

func (t invisibleTool) Name() string        { return "read" + t.c }
func (t invisibleTool) Description() string { return "Reads /tmp/safe" + t.c + " only." }
func (t invisibleTool) Schema() tools.Schema {
	return tools.Schema{Args: []tools.Arg{{Name: "path" + t.c, Type: "string" + t.c, Description: "where" + t.c}}}
}
func (t invisibleTool) Server() string                                     { return "srv" + t.c }
func (invisibleTool) Call(context.Context, map[string]any) (string, error) { return "", nil }

func TestWriteToolsShowsInvisibleCharacters(t *testing.T) {
	for _, c := range escapetest.Invisibles {
		t.Run(c.Name, func(t *testing.T) {
			got, err := listed(t, invisibleTool{string(c.R)}, 200)
			if err != nil {
				t.Skipf("the registry refuses the name: %v", err)
			}
			want := fmt.Sprintf(`\u%04x`, c.R)
			if c.R > 0xffff {
				want = fmt.Sprintf(`\U%08x`, c.R)
			}
			if escape.Hidden(got) != "" || !strings.Contains(got, "Reads /tmp/safe"+want+" only.") {
				t.Errorf("the list holds %s or lacks the escape:\n%q", escape.Hidden(got), got)
			}
		})
	}
}

// TestAToolsServerThatCannotBeReachedIsExplained calls web_search and
// http_request where nothing listens, directly and through a run: people
// are told which server could not be reached and why, and what to check
// or pass, where the model reads words of its own.
func TestAToolsServerThatCannotBeReachedIsExplained(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"the search engine", []string{"tool", "--search-url", "http://" + addr + "/html/", "web_search", "population of Tokyo"},
			"react-agent: web_search: the search engine 127.0.0.1 could not be reached (connection refused); check the network, or a proxy (HTTPS_PROXY); " +
				"or search with a SearXNG instance of your own: --search-engine searxng --search-url URL\n"},
		{"a SearXNG of one's own", []string{"tool", "--search-engine", "searxng", "--search-url", "http://" + addr, "web_search", "population of Tokyo"},
			"react-agent: web_search: the search engine, your SearXNG at 127.0.0.1, could not be reached (connection refused); check that it is up at the address --search-url gives, and the network\n"},
		{"a page", []string{"tool", "--allow-private-network", "http_request", "http://" + addr + "/"},
			"react-agent: http_request: 127.0.0.1 could not be reached (connection refused); check the network and the address\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := args(tt.args...).run(t); got.code != exitFailure || got.stderr != tt.says {
				t.Errorf("want %q\n%s", tt.says, got)
			}
		})
	}
	t.Run("in a run", func(t *testing.T) {
		s := modeltest.NewOllama([]string{"Thought: I search.\nAction: web_search\nAction Input: {\"query\": \"tokyo\"}", "Thought: I know it.\nFinal Answer: 14 million"})
		defer s.Close()
		got := args("--no-log", "--base-url", s.URL, "-m", "qwen2.5:7b", "--search-url", "http://"+addr+"/html/", "What is the population of Tokyo?").run(t)
		msgs, _ := s.Request(1)["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		observation, _ := last["content"].(string)
		if got.code != 0 || !strings.Contains(got.stderr, "note: web_search: the search engine 127.0.0.1 could not be reached (connection refused); check the network") ||
			!strings.Contains(observation, "searching is not possible now: answer from what you know, and say that you could not search") {
			t.Errorf("want a note for people, and words for the model:\n%s\n%s", observation, got)
		}
	})
}

// TestToolReadsItsInputFromStdin pipes the input of tool, as in
// echo '3*3' | react-agent tool calculator: without INPUT, or with "-",
// it is read from stdin when stdin is not a terminal.
func TestToolReadsItsInputFromStdin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   invocation
		code int
		out  string
		says string
	}{
		{"an input piped", invocation{args: []string{"tool", "calculator"}, stdin: "3*3\n"}, 0, "9\n", ""},
		{"a JSON input piped to -", invocation{args: []string{"tool", "calculator", "-"}, stdin: `{"expression": "2**10"}` + "\n"}, 0, "1024\n", ""},
		{"nothing piped", invocation{args: []string{"tool", "calculator"}}, exitUsage, "", "calculator needs an input"},
		{"a terminal is not read", invocation{args: []string{"tool", "calculator"}, stdin: "3*3\n", terminal: true}, exitUsage, "", "or on stdin"},
		{"an input given wins over stdin", invocation{args: []string{"tool", "calculator", "1+1"}, stdin: "3*3\n"}, 0, "2\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.in.run(t)
			if got.code != tt.code || got.stdout != tt.out || !strings.Contains(got.stderr, tt.says) {
				t.Errorf("want exit %d, %q and %q\n%s", tt.code, tt.out, tt.says, got)
			}
		})
	}
}
