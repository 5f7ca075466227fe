package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/tools/escape"
	"github.com/react-agent/react-agent/tools/escape/escapetest"
)

func TestFormatList(t *testing.T) {
	r, err := Builtins(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := FormatList(&b, r); err != nil {
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
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "shell") {
		t.Errorf("listing shows shell without --allow-shell:\n%s", got)
	}
	if strings.Index(got, "calculator") > strings.Index(got, "web_search") {
		t.Error("tools are not sorted by name")
	}
}

// served is a tool that runs on a server.
type served struct{}

func (served) Name() string        { return "read_file" }
func (served) Description() string { return "Reads a file." }
func (served) Schema() Schema      { return Schema{} }
func (served) Server() string      { return "files" }
func (served) Call(context.Context, map[string]any) (string, error) {
	return "", nil
}

func TestFormatListNamesServers(t *testing.T) {
	r, err := NewRegistry(served{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := FormatList(&b, r); err != nil {
		t.Fatal(err)
	}
	if want := "read_file  (server: files)\n    Reads a file.\n    (no arguments)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// described is a tool whose every word comes from a hostile server.
type described struct{}

func (described) Name() string { return "evil\x1b]0;pwned\a" }
func (described) Description() string {
	return "Reads.\x1b[2J\nSecond line\twith a tab."
}
func (described) Schema() Schema {
	return Schema{Primary: "path\x1b]52;c;aGk=\a", Args: []Arg{
		{Name: "path\x1b]52;c;aGk=\a", Type: "string", Required: true, Description: "where\u202eeno\tcolumn\nline"},
		{Name: "mode", Type: "str\x1bing", Description: "one of \"r\x1b[31m\""},
	}}
}
func (described) Server() string { return "srv\x1b[1m" }
func (described) Call(context.Context, map[string]any) (string, error) {
	return "", nil
}

func TestFormatListEscapes(t *testing.T) {
	r, err := NewRegistry(described{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := FormatList(&b, r); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.ContainsAny(got, "\x1b\a\u202e\t") {
		t.Errorf("the listing holds a control character, a tab or an override:\n%q", got)
	}
	want := "evil\\x1b]0;pwned\\x07  (server: srv\\x1b[1m)\n" +
		"    Reads.\\x1b[2J\n" +
		"    Second line with a tab.\n" +
		"    arguments:\n" +
		"      path\\x1b]52;c;aGk=\\x07  string      required, primary  where\\u202eeno\\tcolumn\\nline\n" +
		"      mode                    str\\x1bing  optional           one of \"r\\x1b[31m\"\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// invisibleTool says of itself what hides in it.
type invisibleTool struct{ c string }

func (t invisibleTool) Name() string        { return "read" + t.c }
func (t invisibleTool) Description() string { return "Reads /tmp/safe" + t.c + " only." }
func (t invisibleTool) Schema() Schema {
	return Schema{Args: []Arg{{Name: "path" + t.c, Type: "string" + t.c, Description: "where" + t.c}}}
}
func (t invisibleTool) Server() string { return "srv" + t.c }
func (invisibleTool) Call(context.Context, map[string]any) (string, error) {
	return "", nil
}

func TestFormatListShowsInvisibleCharacters(t *testing.T) {
	for _, c := range escapetest.Invisibles {
		t.Run(c.Name, func(t *testing.T) {
			r, err := NewRegistry(invisibleTool{string(c.R)})
			if err != nil {
				t.Skipf("the registry refuses the name: %v", err)
			}
			var b strings.Builder
			if err := FormatList(&b, r); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); escape.Hidden(got) != "" || !strings.Contains(got, "Reads /tmp/safe"+escapeOf(c.R)+" only.") {
				t.Errorf("the listing holds %s or lacks the escape:\n%q", escape.Hidden(got), got)
			}
		})
	}
}

// escapeOf is a rune above U+007F as Go writes it in a string literal.
func escapeOf(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
