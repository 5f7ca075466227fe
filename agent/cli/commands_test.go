package cli

import (
	"strings"
	"testing"
)

// TestTheTableOfCommands checks what dispatch, help and completion read
// from the one table: every command has a name of its own, a line for
// the overview, a usage line and examples, and flags that parse.
func TestTheTableOfCommands(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.name] {
			t.Errorf("two commands are called %s", c.name)
		}
		seen[c.name] = true
		if c.hidden {
			continue
		}
		if c.does == "" || c.synopsis == "" || !strings.Contains(c.examples, "react-agent") {
			t.Errorf("%s lacks what help shows: does %q, synopsis %q, examples %q", c.name, c.does, c.synopsis, c.examples)
		}
		if (c.raw) != (c.runRaw != nil) || !c.raw && c.define == nil {
			t.Errorf("%s has no run", c.name)
		}
		if fs := flagsOf(c.name); fs != nil {
			if err := fs.Parse(nil); err != nil {
				t.Errorf("%s's flags: %v", c.name, err)
			}
		}
	}
	if lookup("ask") == nil || lookup("__complete") == nil || lookup("nope") != nil {
		t.Error("lookup does not find the commands")
	}
}

// TestContradictingFlags checks the one helper that refuses flags that
// contradict each other: set to other than their defaults, not merely
// given.
func TestContradictingFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-q", "-v"}, "--quiet and --verbose contradict each other; pass one"},
		{[]string{"--stop", "X", "--no-stop"}, "--stop and --no-stop contradict each other"},
		{[]string{"-q", "--verbose=false"}, ""},
	}
	for _, tt := range tests {
		fs := flagsOf("ask")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := contradicting(fs, "quiet", "verbose")
		if err == nil {
			err = contradicting(fs, "stop", "no-stop")
		}
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v, want none", tt.args, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !isUsage(err)):
			t.Errorf("%q: %v, want the usage error %q", tt.args, err, tt.want)
		}
	}
}
