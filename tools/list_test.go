package tools

import (
	"context"
	"strings"
	"testing"
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
