package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFile writes text to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "bin/server", "#!/bin/sh\n")
	writeFile(t, dir, "notes/todo.txt", "milk\n")
	t.Setenv("MCP_TEST_TOKEN", "s3cret")
	tests := []struct {
		name, file, text string
		want             []Server
	}{
		{"a Claude Desktop file declares servers that run commands", "claude.json", `{
			"globalShortcut": "Ctrl+Space",
			"mcpServers": {
				"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "./notes"], "env": {"DEBUG": "1"}}
			}}`,
			[]Server{{Name: "files", Transport: Stdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", filepath.Join(dir, "notes")},
				Env: map[string]string{"DEBUG": "1"}, Confirm: true}}},
		{"a remote server has a url and headers, with variables from the environment", "remote.json", `{
			"mcpServers": {
				"remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${MCP_TEST_TOKEN}"}},
				"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}
			}}`,
			[]Server{
				{Name: "old", Transport: SSE, URL: "http://127.0.0.1:9/sse", Confirm: true},
				{Name: "remote", Transport: HTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}, Confirm: true}}},
		{"a tools file's mcp section sets confirm and allow, and paths from its folder", "tools.yaml", `
tools:
  - name: weather
    description: The weather.
    command: ./weather
mcp:
  local:
    command: ./bin/server
    args: [--root, notes, ./notes, ., "${MCP_TEST_TOKEN}", 8080]
    cwd: notes
    confirm: false
  careful:
    command: server-careful
    allow: [read_file]
  off:
    command: nowhere
    disabled: true
`,
			[]Server{
				{Name: "careful", Transport: Stdio, Command: "server-careful", Confirm: true, Allow: []string{"read_file"}},
				{Name: "local", Transport: Stdio, Command: filepath.Join(dir, "bin/server"),
					Args: []string{"--root", "notes", filepath.Join(dir, "notes"), dir, "s3cret", "8080"}, Dir: filepath.Join(dir, "notes")}}},
		{"a server may be in both layouts' sections of one file", "both.json", `{"mcpServers": {"a": {"command": "x"}}, "mcp": {"b": {"url": "http://localhost:1/mcp"}}}`,
			[]Server{{Name: "a", Transport: Stdio, Command: "x", Confirm: true}, {Name: "b", Transport: HTTP, URL: "http://localhost:1/mcp", Confirm: true}}},
		{"a section whose servers are all disabled declares none", "off.json", `{"mcpServers": {"a": {"command": "x", "disabled": true}}}`, nil},
		{"VS Code's servers, with its types, envFile and workspace folder", ".vscode/mcp.json", `{
			"inputs": [{"type": "promptString", "id": "unused"}],
			"servers": {
				"files": {"type": "stdio", "command": "npx", "args": ["-y", "server-filesystem", "${workspaceFolder}"], "envFile": "${workspaceFolder}/.env", "env": {"B": "from env"}},
				"remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:MCP_TEST_TOKEN}"}}
			}}`,
			[]Server{
				{Name: "files", Transport: Stdio, Command: "npx", Args: []string{"-y", "server-filesystem", dir},
					Env: map[string]string{"A": "from file", "B": "from env", "C": "quoted value"}, Confirm: true},
				{Name: "remote", Transport: HTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}, Confirm: true}}},
	}
	writeFile(t, dir, ".env", "# the server's settings\nA=from file\nB=from the file\nexport C=\"quoted value\"\n")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, tt.file, tt.text)
			got, err := LoadConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				tt.want[i].File = path
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, text string
		want             []string // substrings of the message, after the file's path
	}{
		{"a file with no section says what to write", "none.json", `{"tools": []}`, []string{"no MCP servers declared", `"mcpServers"`, `"command": "npx"`}},
		{"a file that is not JSON says so", "bad.json", `{"mcpServers": {`, []string{"not valid JSON"}},
		{"VS Code's inputs cannot be asked for", "inputs.json", `{"servers": {"s": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${input:token}"}}}}`, []string{"${input:token}", "VS Code asks its user for"}},
		{"a missing envFile says which", "envfile.json", `{"servers": {"s": {"command": "x", "envFile": "missing.env"}}}`, []string{`"envFile"`, "missing.env", "cannot be read"}},
		{"a file that is not YAML says so", "bad.yaml", "mcp: [\n", []string{"not valid YAML"}},
		{"a file that is a list is refused", "list.json", `[]`, []string{`expected an object with an "mcpServers" object`}},
		{"a section that is a list is refused", "section.json", `{"mcpServers": []}`, []string{`"mcpServers" must map server names to their settings`}},
		{"a server with neither command nor url says how to write one", "neither.json", `{"mcpServers": {"s": {"args": ["x"]}}}`, []string{`MCP server "s"`, `neither a "command"`}},
		{"a server with both a command and a url is refused", "both.json", `{"mcpServers": {"s": {"command": "x", "url": "http://h/mcp"}}}`, []string{`MCP server "s"`, `both a "command" and a "url"`}},
		{"an unknown setting lists the known ones", "typo.json", `{"mcpServers": {"s": {"command": "x", "arg": ["y"]}}}`, []string{`MCP server "s"`, `unknown setting "arg"`, "command, args, env"}},
		{"args that are not a list show a list", "args.json", `{"mcpServers": {"s": {"command": "x", "args": "--y"}}}`, []string{`"args" must be a list of strings`}},
		{"an env value that is an object is refused", "env.json", `{"mcpServers": {"s": {"command": "x", "env": {"A": {}}}}}`, []string{`"env": "A" must be a string, got an object`}},
		{"confirm must be a boolean", "confirm.yaml", "mcp:\n  s:\n    command: x\n    confirm: maybe\n", []string{`"confirm" must be true or false`}},
		{"a url must be http or https", "url.json", `{"mcpServers": {"s": {"url": "ftp://h/mcp"}}}`, []string{`is not an http or https address`}},
		{"an unset variable is named", "var.json", `{"mcpServers": {"s": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${MCP_TEST_UNSET}"}}}}`, []string{"${MCP_TEST_UNSET}", "is not set"}},
		{"a relative command that is missing names the folder", "cmd.json", `{"mcpServers": {"s": {"command": "./missing-server"}}}`, []string{`"command" "./missing-server" is not in ` + dir}},
		{"a missing cwd is refused", "cwd.json", `{"mcpServers": {"s": {"command": "x", "cwd": "nowhere"}}}`, []string{`"cwd"`, "is not a folder"}},
		{"headers do not apply to a command", "headers.json", `{"mcpServers": {"s": {"command": "x", "headers": {"A": "b"}}}}`, []string{`"headers" apply to a server with a url`}},
		{"args do not apply to a url", "urlargs.json", `{"mcpServers": {"s": {"url": "http://h/mcp", "args": ["x"]}}}`, []string{`"args" apply to a server that runs a command`}},
		{"an unknown type is refused", "type.json", `{"mcpServers": {"s": {"url": "http://h/mcp", "type": "websocket"}}}`, []string{`unknown "type" "websocket"`}},
		{"a type that contradicts the command is refused", "stdio.json", `{"mcpServers": {"s": {"command": "x", "type": "http"}}}`, []string{`its "type" is "stdio"`}},
		{"an empty name in allow is refused", "allow.json", `{"mcpServers": {"s": {"command": "x", "allow": [""]}}}`, []string{`"allow" holds an empty name`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, tt.file, tt.text)
			_, err := LoadConfig(path)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("the message does not start with the file's path: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the message lacks %q:\n%v", w, err)
				}
			}
		})
	}
	t.Run("a missing file is a config error", func(t *testing.T) {
		_, err := LoadConfig(filepath.Join(dir, "missing.json"))
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("got %v, want one matching os.ErrNotExist", err)
		}
	})
	t.Run("a file with no section matches ErrNoServers", func(t *testing.T) {
		_, err := LoadConfig(writeFile(t, dir, "plugins.yaml", "tools: []\n"))
		if !errors.Is(err, ErrNoServers) {
			t.Errorf("got %v, want one matching ErrNoServers", err)
		}
	})
}

func TestSecrets(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MCP_TEST_TOKEN", "s3cret-t0ken")
	servers, err := LoadConfig(writeFile(t, dir, "servers.json", `{"mcpServers": {
		"remote": {"url": "https://user:pa55word@mcp.example.com/mcp?key=query-k3y", "headers": {"Authorization": "Bearer ${MCP_TEST_TOKEN}", "X-Api-Key": "abc123"}},
		"local": {"command": "server", "env": {"DB_PASSWORD": "hunter2!", "LOG_LEVEL": "debug"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		server string
		want   []string
	}{
		{"local", nil},
		{"remote", []string{"Bearer s3cret-t0ken", "s3cret-t0ken", "abc123", "pa55word", "query-k3y"}},
	}
	for i, tt := range tests {
		t.Run("the "+tt.server+" server's headers and URL are secrets", func(t *testing.T) {
			if got := servers[i].Secrets(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
