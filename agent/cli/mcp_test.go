package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/tools/mcp/mcptest"
)

// writeConfig writes text to a file called name in a temporary folder.
func writeConfig(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMCPAsk(t *testing.T) {
	t.Parallel()
	mcptest.ReferenceServers(t)
	s := ollama(t, "mcp_files.json")
	got := run(t, invocation{args: []string{"ask", "-q", "--base-url", s.URL, "--mcp-config", root + "/testdata/mcp/servers.json", "Where is the shed key?"}})
	if got.code != 0 || got.stdout != "The shed key hangs on the hook behind the kitchen door.\n" {
		t.Fatalf("want the answer from the notes\n%s", got)
	}
	body, _ := json.Marshal(s.Request(1))
	if !strings.Contains(string(body), "read_text_file") || !strings.Contains(string(body), "Observation: Shopping: milk, eggs") {
		t.Errorf("the model was not shown the file the filesystem server read:\n%s", body)
	}
	if first, _ := json.Marshal(s.Request(0)); !strings.Contains(string(first), "list_directory") {
		t.Errorf("the prompt does not offer the server's tools:\n%s", first)
	}
}

func TestMCPCommands(t *testing.T) {
	t.Parallel()
	dir := mcptest.ReferenceServers(t)
	filesystem := filepath.Join(dir, "server-filesystem", "dist", "index.js")
	notes, err := filepath.Abs(filepath.Join(root, "testdata", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	toolsFile := writeConfig(t, "tools.yaml", fmt.Sprintf("mcp:\n  notes:\n    command: node\n    args: [%q, %q]\n    confirm: false\n", filesystem, notes))
	broken := writeConfig(t, "broken.json", `{"mcpServers": {"broken": {"command": "sh", "args": ["-c", "echo 'cannot open the database' >&2; exit 3"]}}}`)
	missing := writeConfig(t, "missing.json", `{"mcpServers": {"missing": {"command": "node", "args": ["-e", "require('@modelcontextprotocol/server-nonexistent')"]}}}`)
	typo := writeConfig(t, "typo.json", `{"mcpServers": {"files": {"command": "node", "arg": ["x"]}}}`)
	empty := writeConfig(t, "empty.json", `{"servers": {}}`)
	servers := []string{"--mcp-config", root + "/testdata/mcp/servers.json"}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{"tools lists the MCP tools with their server", append([]string{"tools"}, servers...), 0, "read_text_file  (server: files)\n", ""},
		{"tool calls an MCP tool", append([]string{"tool"}, append(servers, "read_text_file", "notes.txt")...), 0, "The shed key hangs on the hook", ""},
		{"a tool's error is reported with exit 1", append([]string{"tool"}, append(servers, "read_text_file", "/etc/hostname")...), 1, "", "read_text_file: Access denied - path outside allowed directories"},
		{"a tool not in allow is confirmed", append([]string{"tool"}, append(servers, "create_directory", "new")...), 1, "", "pass --yes"},
		{"chat's /tools lists them too", append([]string{"chat", "-q"}, servers...), 0, "", "read_text_file  (server: files)\n"},
		{"the tools file's mcp section is read", []string{"tools", "--tools-config", toolsFile}, 0, "list_directory  (server: notes)\n", ""},
		{"a server that fails to start is named with its stderr", []string{"tools", "--mcp-config", broken}, 1, "",
			`react-agent: MCP server "broken" (from ` + broken + `) did not start: it exited with exit status 3 before the MCP handshake; the last lines of its stderr:` + "\n    cannot open the database\nrun its command in a terminal"},
		{"a node server that cannot find a module says so, not only its stack's last frames", []string{"tools", "--mcp-config", missing}, 1, "",
			"\n    Error: Cannot find module '@modelcontextprotocol/server-nonexistent'\n"},
		{"a mistake in the file names the file and the server", []string{"tools", "--mcp-config", typo}, 2, "", typo + `: MCP server "files": unknown setting "arg"`},
		{"a file without servers says what it should hold", []string{"tools", "--mcp-config", empty}, 2, "", `no MCP servers declared: expected an "mcpServers" object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := run(t, invocation{args: tt.args, stdin: "/tools\n"})
			if got.code != tt.code || !strings.Contains(got.stdout, tt.stdout) || !strings.Contains(got.stderr, tt.stderr) {
				t.Fatalf("want exit %d, %q on stdout and %q on stderr\n%s", tt.code, tt.stdout, tt.stderr, got)
			}
		})
	}
}

// TestMCPConfigSettings checks that --mcp-config, a repeatable flag, takes
// a list in the config file and several files in its variable.
func TestMCPConfigSettings(t *testing.T) {
	t.Parallel()
	config := writeConfig(t, "config.yaml", "mcp-config: [a.json, /etc/b.json]\n")
	got := run(t, invocation{args: []string{"settings", "--config", config}})
	want := fmt.Sprintf("[%s,/etc/b.json]", filepath.Join(filepath.Dir(config), "a.json"))
	if v, source := settingLine(got.stdout, "mcp-config"); got.code != 0 || v != want || source != config {
		t.Errorf("want %q\n%s", want, got)
	}
	got = run(t, invocation{args: []string{"settings"}, env: []string{"REACT_AGENT_MCP_CONFIG=a.json" + string(os.PathListSeparator) + "b.json"}})
	if v, source := settingLine(got.stdout, "mcp-config"); got.code != 0 || v != "[a.json,b.json]" || source != "REACT_AGENT_MCP_CONFIG" {
		want := "[a.json,b.json] (REACT_AGENT_MCP_CONFIG)"
		t.Errorf("want %q\n%s", want, got)
	}
	config = writeConfig(t, "config.yaml", "model: [a, b]\n")
	if got = run(t, invocation{args: []string{"settings", "--config", config}}); got.code != 2 || !strings.Contains(got.stderr, "model must be a single value") {
		t.Errorf("a list for a flag that is not repeatable: want exit 2\n%s", got)
	}
}
