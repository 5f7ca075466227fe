package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with what the tests get")

// golden compares got with the file testdata/name, or with -update
// writes it there.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run go test ./agent/cli -run %s -update to write it", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from what the command prints; if the change is meant, run go test ./agent/cli -run %s -update\n--- got:\n%s\n--- want:\n%s", path, t.Name(), got, want)
	}
}

// TestHelpIsGolden pins the top-level help and each command's help, as
// a pipe gets them (a terminal of 100 columns or more gets the same).
func TestHelpIsGolden(t *testing.T) {
	t.Parallel()
	golden(t, "help/react-agent.txt", args("help").run(t).stdout)
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := args("help", c.name).run(t)
			if got.code != 0 {
				t.Fatalf("exit %d\n%s", got.code, got)
			}
			golden(t, "help/"+c.name+".txt", got.stdout)
			if flagsHelp := args(c.name, "--help").run(t); c.define != nil && flagsHelp.stdout != got.stdout {
				t.Errorf("%s --help and help %s differ:\n%s\n---\n%s", c.name, c.name, flagsHelp.stdout, got.stdout)
			}
		})
	}
}

// TestHelpFitsAndListsTheFlagsACommandTakes reads every command's help as
// a person would: it fits a terminal of up to 100 columns, 80 in a pipe
// whatever COLUMNS says, and lists the flags the command reads, not those
// of ask.
func TestHelpFitsAndListsTheFlagsACommandTakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--help"}, []string{"\n  chat "}, nil},
		{[]string{"help"}, []string{"\n  logs "}, nil},
		{[]string{"ask", "--help"}, []string{"--max-iterations", "--attach", "-s, --system"}, nil},
		{[]string{"chat", "--help"}, []string{"--max-iterations"}, []string{"--attach"}},
		{[]string{"settings", "--help"}, []string{"--max-iterations"}, nil},
		{[]string{"models", "--help"}, []string{"--provider", "--base-url", "--json"}, []string{"--max-iterations", "--allow-shell", "--attach"}},
		{[]string{"tools", "--help"}, []string{"--allow-shell", "--mcp-config", "--json"}, []string{"--max-iterations", "--provider", "--yes "}},
		{[]string{"tool", "--help"}, []string{"--allow-shell", "--yes"}, []string{"--max-iterations", "--provider"}},
		{[]string{"logs", "--help"}, []string{"--since", "--log-db"}, []string{"--max-iterations", "--allow-shell"}},
		{[]string{"parse", "--help"}, []string{"--jsonl"}, []string{"--max-iterations"}},
		{[]string{"eval", "--help"}, []string{"--models"}, []string{"--continue"}},
		{[]string{"completion", "--help"}, []string{"bash"}, []string{"--max-iterations"}},
		{[]string{"help", "logs"}, []string{"--since"}, []string{"\n  chat "}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			for _, width := range []int{0, -200, 80, 200} {
				in := invocation{args: tt.args, terminal: width > 0, width: width}
				limit := 81 // in a pipe
				switch {
				case width < 0:
					in.env = []string{fmt.Sprintf("COLUMNS=%d", -width)}
				case width > 0:
					limit = min(width, 100)
				}
				got := run(t, in)
				if got.code != 0 {
					t.Fatalf("exit %d\n%s", got.code, got)
				}
				for _, line := range strings.Split(got.stdout, "\n") {
					if n := len([]rune(line)); n >= limit {
						t.Errorf("at %d columns, a line of %d: %q", width, n, line)
					}
				}
				for _, w := range tt.want {
					if !strings.Contains(got.stdout, w) {
						t.Errorf("the help lacks %s\n%s", w, got.stdout)
					}
				}
				for _, w := range tt.not {
					if strings.Contains(got.stdout, w) {
						t.Errorf("the help lists %s, which the command does not take\n%s", w, got.stdout)
					}
				}
			}
		})
	}
}

// TestTopicsAreReachable checks the help topics: each file is a topic
// the top-level help lists, help prints it, its name is no command's, and
// its prose fits 80 columns.
func TestTopicsAreReachable(t *testing.T) {
	t.Parallel()
	entries, err := topicFiles.ReadDir("topics")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, strings.TrimSuffix(e.Name(), ".txt"))
	}
	if got, want := strings.Join(files, " "), strings.Join(slices.Sorted(slices.Values(topicNames)), " "); got != want {
		t.Fatalf("the topic files are %s; the topics listed are %s", got, want)
	}
	overview := args("help").run(t).stdout
	for _, name := range topicNames {
		if lookup(name) != nil {
			t.Errorf("the topic %s has a command's name", name)
		}
		if !strings.Contains(overview, "\n  "+name+" ") {
			t.Errorf("help does not list the topic %s", name)
		}
		got := args("help", name).run(t)
		text, _ := topic(name)
		if got.code != 0 || got.stdout != text || len(text) < 200 {
			t.Errorf("help %s: exit %d, %d bytes", name, got.code, len(got.stdout))
		}
		for i, line := range strings.Split(text, "\n") {
			// An example (indented, after a prompt) may be longer than a
			// line, but not the tools of help safety.
			if n := utf8.RuneCountInString(line); n > 79 && (!strings.HasPrefix(line, "    ") || name == "safety") {
				t.Errorf("topics/%s.txt:%d: a line of %d columns", name, i+1, n)
			}
		}
	}
}

// TestHelpSafetyIndentsEveryToolAlike: each tool of help safety is a
// heading indented by two spaces, what it does by six.
func TestHelpSafetyIndentsEveryToolAlike(t *testing.T) {
	text, _ := topic("safety")
	for _, tool := range []string{"calculator", "web_search", "http_request", "shell", "plugins", "MCP servers' tools"} {
		if !strings.Contains(text, "\n  "+tool+"\n      on by default: ") {
			t.Errorf("help safety does not show %s as the other tools", tool)
		}
	}
}

// TestTheFlagsTheHelpNamesExist reads every help text and topic for the
// flags it names: each is a flag of some command, so that no text speaks
// of a flag that is gone. And every flag of every command is in its
// command's help.
func TestTheFlagsTheHelpNamesExist(t *testing.T) {
	t.Parallel()
	flags := map[string]bool{"help": true, "version": true}
	for _, c := range commands() {
		fs := flagsOf(c.name)
		if fs == nil {
			continue
		}
		help := args("help", c.name).run(t).stdout
		fs.VisitAll(func(f *pflag.Flag) {
			flags[f.Name] = true
			if !strings.Contains(help, "--"+f.Name+" ") && !strings.Contains(help, "--"+f.Name+"\n") {
				t.Errorf("help %s does not show --%s", c.name, f.Name)
			}
		})
	}
	texts := map[string]string{"help": args("help").run(t).stdout}
	for _, c := range commands() {
		if !c.hidden {
			texts["help "+c.name] = args("help", c.name).run(t).stdout
		}
	}
	for _, name := range topicNames {
		texts["help "+name], _ = topic(name)
	}
	// Flags of other programs the texts quote.
	theirs := map[string]bool{"root": true, "metric": true, "password": true, "prefix": true, "ignore-scripts": true}
	named := regexp.MustCompile(`(?:^|[\s(\[,/|])--([a-z][a-z-]*[a-z])`)
	for where, text := range texts {
		for _, m := range named.FindAllStringSubmatch(text, -1) {
			if !flags[m[1]] && !theirs[m[1]] {
				t.Errorf("%s names --%s, which no command takes", where, m[1])
			}
		}
	}
}

// TestHelpTakesEveryCommandItLists asks help for each command the
// overview lists, help and version included.
func TestHelpTakesEveryCommandItLists(t *testing.T) {
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := args("help", c.name).run(t)
			if got.code != 0 || !strings.HasPrefix(got.stdout, "Usage: react-agent ") {
				t.Fatalf("help %s: want its usage and exit 0\n%s", c.name, got)
			}
		})
	}
	if got := args("help", "nope").run(t); got.code != exitUsage || !strings.Contains(got.stderr, `no command or topic "nope"; react-agent help lists them`) {
		t.Errorf("help nope: want exit 2 and where the names are\n%s", got)
	}
}

// TestTheHelpSaysTheBoundsOfAModelReply checks that help safety, help
// limits and help providers name the bound the client sets on a line of
// a streamed reply, and no other: they once named bounds that
// langchaingo's clients had and ours did not (512 KB, 64 KiB).
func TestTheHelpSaysTheBoundsOfAModelReply(t *testing.T) {
	bound := fmt.Sprintf("%d MiB", model.MaxLineBytes>>20)
	for _, name := range []string{"safety", "limits", "providers"} {
		text, ok := topic(name)
		if !ok {
			t.Fatalf("no help %s", name)
		}
		flat := strings.Join(strings.Fields(text), " ")
		if !strings.Contains(flat, "line of a streamed reply") || !strings.Contains(flat, bound) {
			t.Errorf("help %s does not say that a line of a streamed reply is bound to %s", name, bound)
		}
		for _, old := range []string{"512 KB", "64 KiB"} {
			if strings.Contains(flat, "line") && strings.Contains(flat, old+")") {
				t.Errorf("help %s names a bound of a line the client does not set: %s", name, old)
			}
		}
	}
}
