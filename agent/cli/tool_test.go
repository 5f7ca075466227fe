package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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
