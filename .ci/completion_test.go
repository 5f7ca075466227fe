package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBashCompletion sources the bash completion script and completes
// with it as bash would on Tab: commands, each command's own flags, and
// flag values, with the binary on PATH as an installed one is.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	script := run(t, invocation{args: []string{"completion", "bash"}})
	if script.code != 0 {
		t.Fatalf("exit %d\n%s", script.code, script)
	}
	tests := []struct {
		line string // up to the cursor
		want []string
		not  []string
	}{
		{"react-agent to", []string{"tools", "tool"}, []string{"chat"}},
		{"react-agent ", []string{"ask", "logs", "completion"}, []string{"help", "version", "__complete"}},
		{"react-agent ask --max-i", []string{"--max-iterations"}, nil},
		{"react-agent logs --", []string{"--since", "--limit", "--log-db"}, []string{"--allow-shell"}},
		{"react-agent --provider ", []string{"ollama", "openai"}, nil},
		{"react-agent chat --protocol na", []string{"native"}, []string{"text"}},
		{"react-agent -q tools --js", []string{"--json"}, nil},
		{"react-agent completion ", []string{"bash", "zsh", "fish"}, nil},
		{"react-agent tool calc", []string{"calculator"}, nil},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.line)
		if strings.HasSuffix(tt.line, " ") {
			words = append(words, "")
		}
		check := script.stdout + fmt.Sprintf(`
COMP_LINE=%q; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(%s); COMP_CWORD=%d
_react_agent; echo "${COMPREPLY[*]}"
`, tt.line, quoteWords(words), len(words)-1)
		cmd := exec.Command("bash", "-c", check)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		got := strings.Fields(string(out))
		if err != nil {
			t.Fatalf("%q: %v\n%s", tt.line, err, out)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q completes to %v, without %s", tt.line, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("%q completes to %v, with %s", tt.line, got, w)
			}
		}
	}
	for _, shell := range []string{"zsh", "fish"} {
		if got := run(t, invocation{args: []string{"completion", shell}}); got.code != 0 || !strings.Contains(got.stdout, "__complete") {
			t.Errorf("completion %s: exit %d\n%s", shell, got.code, got)
		}
	}
}

// quoteWords writes words as a bash array's items.
func quoteWords(words []string) string {
	var q []string
	for _, w := range words {
		q = append(q, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
	}
	return strings.Join(q, " ")
}

// TestBashCompletesPathsWithSpaces completes file names with spaces in a
// real interactive bash on a terminal, with the Tab key: a folder with a
// space is one candidate, not two words, and a path typed with an escaped
// space completes on.
func TestBashCompletesPathsWithSpaces(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cmp dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cmp dir/a file.txt", "cmp.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := run(t, invocation{args: []string{"completion", "bash"}})
	if script.code != 0 {
		t.Fatalf("exit %d\n%s", script.code, script)
	}
	scriptFile := filepath.Join(t.TempDir(), "react-agent.bash")
	if err := os.WriteFile(scriptFile, []byte(script.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-i")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(t), "PATH="+filepath.Dir(binary)+":"+os.Getenv("PATH"), "PS1=$ ", "INPUTRC=/dev/null")
	term := onTerminal(t, cmd, false)
	term.typeLine("source " + scriptFile)
	tests := []struct {
		typed string // then Tab: twice to list the candidates
		want  string // a line of the screen
	}{
		{"react-agent -a cmp\t\t", "cmp dir/"},
		{`react-agent --attach cmp\ dir/` + "\t", `$ react-agent --attach cmp\ dir/a\ file.txt`},
		{`react-agent -a "cmp d` + "\t", `$ react-agent -a "cmp dir"/`},
		{`react-agent --attach=cmp\ d` + "\t", `$ react-agent --attach=cmp\ dir/`},
	}
	for _, tt := range tests {
		term.waitLastLine("$")
		if _, err := term.master.Write([]byte(tt.typed)); err != nil {
			t.Fatal(err)
		}
		term.waitLine(tt.want)
		term.master.Write([]byte{3}) // Ctrl-C: a new, empty line
	}
}
