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
