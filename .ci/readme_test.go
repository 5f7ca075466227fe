package cli

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools/mcp/mcptest"
)

// A README command is one line of a ```sh block (a line ending in "\"
// goes on on the next). In a block whose commands start with "$ ", the
// lines after a command are its expected output, where "…" stands for any
// text. Commands that start with "go " (tests, fuzzing, benchmarks,
// install) must be in .ci/run, which runs them; the others are run here,
// with react-agent on PATH and the model servers the README names on this
// machine replaced by fakes on loopback (agent/modeltest), and must exit 0
// unless the block prints "exit $?".
type readmeCommand struct {
	line   int
	text   string
	output []string // expected output lines, for "$ " blocks
	doc    bool     // the block is a "$ " transcript
}

// readmeCommands reads the commands of the README's ```sh blocks.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	var inSh, doc bool
	var block []readmeCommand
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh, doc, block = true, false, nil
			continue
		case strings.HasPrefix(line, "```") && inSh:
			inSh = false
			cmds = append(cmds, block...)
			continue
		case !inSh:
			continue
		}
		if strings.HasPrefix(line, "$ ") {
			doc = true
			block = append(block, readmeCommand{line: n, text: line[2:], doc: true})
			continue
		}
		if doc {
			if len(block) == 0 {
				t.Fatalf("README.md:%d: output before the first $ command", n)
			}
			block[len(block)-1].output = append(block[len(block)-1].output, line)
			continue
		}
		if s := strings.TrimSpace(line); s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if len(block) > 0 && strings.HasSuffix(block[len(block)-1].text, "\\") {
			last := &block[len(block)-1]
			last.text = strings.TrimSuffix(last.text, "\\") + " " + strings.TrimSpace(line)
			continue
		}
		block = append(block, readmeCommand{line: n, text: line})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// tuning matches the flags whose values CI shortens: how long to fuzz and
// how many times to run a benchmark.
var tuning = regexp.MustCompile(`\s-(fuzztime|count|benchtime)[= ](\S+)`)

// comment matches a shell comment at the end of a line.
var comment = regexp.MustCompile(`\s+#\s.*$`)

// normalizeGo makes a go command comparable with .ci/run's line for it.
func normalizeGo(s string) string {
	s = comment.ReplaceAllString(s, "")
	return strings.Join(strings.Fields(tuning.ReplaceAllString(s, "")), " ")
}

// localServers are the model servers the README points at on this
// machine, by the address it uses for each.
var localServers = regexp.MustCompile(`http://(127\.0\.0\.1|localhost):(11434|8080|8000|1234)`)

func TestReadmeCommands(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 10 {
		t.Fatalf("found only %d commands in the README's sh blocks", len(cmds))
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var ciLines []string
	for _, l := range strings.Split(string(ci), "\n") {
		ciLines = append(ciLines, normalizeGo(strings.ReplaceAll(l, `"$fuzztime"`, "2000x")))
	}
	binDir := filepath.Dir(binary)
	search := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(root, "testdata", "tools"))))
	defer search.Close()

	for _, c := range cmds {
		name := strings.Fields(c.text)
		t.Run(strings.Join(name[:min(4, len(name))], " "), func(t *testing.T) {
			if strings.HasPrefix(c.text, "go ") && !strings.HasPrefix(c.text, "go run ") {
				want := normalizeGo(c.text)
				for _, l := range ciLines {
					if l == want {
						return
					}
				}
				t.Fatalf("README.md:%d: %q is not run by .ci/run (compared without -fuzztime, -count and -benchtime values: %q)", c.line, c.text, want)
			}
			if strings.Contains(c.text, "testdata/mcp/") {
				mcptest.ReferenceServers(t) // the MCP examples need them
			}
			// The models the README names, as Ollama lists them.
			ollama := ollama(t, "calculator.json", modeltest.Repeat(), modeltest.Models("qwen2.5:7b", "llama3.1:8b"))
			openai := modeltest.NewOpenAI(replies(t, "calculator.json"), modeltest.Repeat())
			defer openai.Close()
			// llama-server's port: a server of the one model it loaded.
			llama := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat())
			defer llama.Close()
			text := localServers.ReplaceAllStringFunc(c.text, func(u string) string {
				switch {
				case strings.HasSuffix(u, ":11434"):
					return ollama.URL
				case strings.HasSuffix(u, ":8080"):
					return llama.URL
				}
				return openai.URL
			})
			cmd := exec.Command("bash", "-o", "pipefail", "-c", text)
			cmd.Dir = root
			cmd.Env = append(cleanEnv(t),
				"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
				"OLLAMA_HOST="+ollama.URL,
				"OPENAI_BASE_URL="+openai.URL+"/v1",
				"OPENAI_API_KEY=sk-test",
				"REACT_AGENT_SEARCH_URL="+search.URL+"/duckduckgo_results.html",
			)
			out, err := cmd.CombinedOutput()
			if err != nil && !strings.Contains(c.text, "exit $?") {
				t.Fatalf("README.md:%d: %s\n%v\n%s", c.line, c.text, err, out)
			}
			if c.doc {
				got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
				if len(got) != len(c.output) {
					t.Fatalf("README.md:%d: %s\nprinted %d lines, the README shows %d:\n%s", c.line, c.text, len(got), len(c.output), out)
				}
				for j, want := range c.output {
					if !matchLine(want, got[j]) {
						t.Errorf("README.md:%d: line %d of the output:\n got: %s\nwant: %s", c.line+1+j, j+1, got[j], want)
					}
				}
			}
		})
	}
}

// matchLine reports whether got matches want, where "…" in want stands
// for any text.
func matchLine(want, got string) bool {
	parts := strings.Split(want, "…")
	if len(parts) == 1 {
		return got == want
	}
	first, last := parts[0], parts[len(parts)-1]
	if len(got) < len(first)+len(last) || !strings.HasPrefix(got, first) || !strings.HasSuffix(got, last) {
		return false
	}
	got = got[len(first) : len(got)-len(last)]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(got, p)
		if i < 0 {
			return false
		}
		got = got[i+len(p):]
	}
	return true
}
