package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestToolOptionsAreUsageErrors checks that tool settings no tool can
// work with exit 2 and name their flag.
func TestToolOptionsAreUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown search engine", []string{"tools", "--search-engine", "bing"}, "--search-engine"},
		{"a negative tool timeout", []string{"tools", "--tool-timeout", "-5s"}, "--tool-timeout"},
		{"searxng without its address", []string{"tools", "--search-engine", "searxng"}, "--search-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: tt.args})
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit 2 naming %s\n%s", tt.want, got)
			}
		})
	}
}

// TestTimeoutBoundsTheWholeRun runs against a server that never answers:
// --timeout 2s ends the run, forced answer included, within a second of
// it, with exit status 3.
func TestTimeoutBoundsTheWholeRun(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Hang())
	start := time.Now()
	got := run(t, invocation{args: []string{"ask", "-q", "--timeout", "2s", "--base-url", s.URL, "hi"}})
	if took := time.Since(start); got.code != 3 || took > 3500*time.Millisecond {
		t.Fatalf("exit %d after %s, want 3 within about 3s\n%s", got.code, took, got)
	}
}

// TestPipedTextAndAttachmentsReachTheModel pipes a text and attaches a
// file to a question: the model gets the question and both texts.
func TestPipedTextAndAttachmentsReachTheModel(t *testing.T) {
	s := ollama(t, "calculator.json")
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("Ship on Tuesday.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "-a", notes, "Summarize this"}, stdin: "The meeting moved to Friday.\n"})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	body := fmt.Sprint(s.Request(0))
	for _, want := range []string{"Summarize this", "The meeting moved to Friday.", "Ship on Tuesday.", "--- stdin ---", "--- " + notes + " ---"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model did not get %q:\n%.600s", want, body)
		}
	}
	big := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "Summarize this"}, stdin: strings.Repeat("a", 2<<20)})
	if big.code != 2 || !strings.Contains(big.stderr, "more than the 1048576 bytes") {
		t.Errorf("2 MiB piped: want exit 2 and the limit\n%s", big)
	}
}

// TestAModelThatNeverFollowsTheFormat gets the same unreadable reply three
// times: the trace shows the parser's message once, and the run ends with
// exit 3 and advice on what to try.
func TestAModelThatNeverFollowsTheFormat(t *testing.T) {
	s := ollama(t, "no_format.json", modeltest.Repeat())
	got := run(t, invocation{args: []string{"ask", "--base-url", s.URL, "What is 17 * 23 + 4?"}})
	if got.code != 3 || !strings.Contains(got.stderr, "does not follow the reply format: try another model") {
		t.Fatalf("want exit 3 and advice\n%s", got)
	}
	if n := strings.Count(got.stderr, "the same as before"); n != 2 {
		t.Errorf("the parser's message is repeated in full; %d short repeats\n%s", n, got)
	}
}

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

// TestAttachmentsThatAreNotText tries what -a should refuse, quickly and
// without hanging: a folder, binary data, endless devices, a FIFO nobody
// writes to, a missing file whose name holds escape sequences, too many
// files, and large files, whose sizes are summed before any is read.
func TestAttachmentsThatAreNotText(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(binary, append([]byte{0, 1, 2, 3}, make([]byte, 500_000)...), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var many, large []string
	for range 1500 {
		many = append(many, "-a", binary)
	}
	for range 3 {
		large = append(large, "-a", binary)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a folder is a usage error", []string{"-a", dir}, 2, "is a folder"},
		{"binary data is a usage error", []string{"-a", binary}, 2, "is not text but application/octet-stream"},
		{"an endless device is refused before it is read", []string{"-a", "/dev/zero"}, 2, "-a /dev/zero is a character device, not a file"},
		{"an empty device is refused", []string{"-a", "/dev/null"}, 2, "-a /dev/null is a character device, not a file"},
		{"a FIFO nobody writes to does not hang", []string{"-a", fifo}, 1, "cannot reach Ollama"},
		{"a missing file's name is shown escaped", []string{"-a", filepath.Join(dir, "no\x1b]0;pwned\x07")}, 2, `no\x1b]0;pwned\x07: no such file`},
		{"many files fail before reading", many, 2, "-a is given 1500 files, past the 100 a question may carry"},
		{"large files fail before reading", large, 2, "past the 1048576 a question may carry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got := run(t, invocation{args: append(append([]string{"-q", "--base-url", "http://127.0.0.1:9"}, tt.args...), "Summarize this")})
			if got.code != tt.code || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit %d and %q\n%s", tt.code, tt.want, got)
			}
			if strings.Contains(got.stderr, "\x1b") {
				t.Errorf("an escape sequence reached stderr:\n%q", got.stderr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// TestModelOptionsReachTheServer passes options as llm does, -o KEY
// VALUE, and as a setting: Ollama gets them in its options object.
func TestModelOptionsReachTheServer(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Repeat())
	got := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "-o", "repeat_penalty", "1.1", "-o", "mirostat=2", "What is 17 * 23 + 4?"},
		env: []string{"REACT_AGENT_OPTION=min_p=0.05"}})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	opts, _ := s.Request(0)["options"].(map[string]any)
	if opts["repeat_penalty"] != 1.1 || opts["mirostat"] != 2.0 || opts["num_ctx"] == nil {
		t.Errorf("the server got options %v, want repeat_penalty and mirostat beside num_ctx", opts)
	}
	if _, ok := opts["min_p"]; ok {
		t.Errorf("the environment's option was used although the command line gave -o: %v", opts)
	}
	bad := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "hi", "-o", "nonsense"}})
	if bad.code != 2 || !strings.Contains(bad.stderr, "KEY=VALUE") {
		t.Errorf("-o without a value: want exit 2 and what to write\n%s", bad)
	}
}

// TestAnImageIsSentAsAnImage attaches a PNG: Ollama gets it in the
// message's images, and the text names it, instead of its bytes.
func TestAnImageIsSentAsAnImage(t *testing.T) {
	s := ollama(t, "calculator.json")
	img := filepath.Join(t.TempDir(), "chart.png")
	data := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2000)...)
	if err := os.WriteFile(img, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "-a", img, "What does the chart show?"}})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	msgs, _ := s.Request(0)["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	images, _ := last["images"].([]any)
	if len(images) != 1 || images[0] != base64.StdEncoding.EncodeToString(data) {
		t.Errorf("the question's message carries %d images, want the PNG: %.300v", len(images), last)
	}
	if content, _ := last["content"].(string); !strings.Contains(content, "chart.png: an image (image/png, 2 KB), attached") || strings.Contains(content, "PNG") {
		t.Errorf("the text should name the image, not hold its bytes:\n%.500s", content)
	}
}
