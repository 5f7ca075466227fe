//go:build unix

package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools/escape"
	"github.com/react-agent/react-agent/tools/escape/escapetest"
)

// pluginDir is where the plugin fixtures live.
var pluginDir = filepath.Join("..", "testdata", "tools", "plugins")

func TestPluginsFromYAML(t *testing.T) {
	reg, err := Builtins(Options{ToolsConfig: filepath.Join(pluginDir, "tools.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.ToolNames(), ","); got != "calculator,echo_input,fail,http_request,slow,web_search" {
		t.Errorf("ToolNames = %s", got)
	}
	if args, primary := reg.ToolArgs("echo_input"); strings.Join(args, ",") != "city,days" || primary != "city" {
		t.Errorf("ToolArgs(echo_input) = %v, %q", args, primary)
	}

	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		timeout time.Duration
		want    string
		wantErr string
		is      error
	}{
		{name: "arguments arrive as JSON on stdin", tool: "echo_input", args: map[string]any{"city": "Paris", "days": "2"}, want: `input: {"city":"Paris","days":2}`},
		{name: "bad arguments are refused before running", tool: "echo_input", args: map[string]any{"town": "Paris"}, wantErr: `echo_input: unknown argument "town"; expected {"city": string, "days": integer (optional)}`, is: ErrInvalidArgs},
		{name: "a failing command quotes its stderr", tool: "fail", wantErr: "fail: the command failed with exit status 3: city not found"},
		{name: "a slow command times out", tool: "slow", timeout: 300 * time.Millisecond, wantErr: "slow: tool timed out after 300ms", is: ErrTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg.SetLimits(Limits{Timeout: tt.timeout})
			start := time.Now()
			got, err := reg.Call(context.Background(), tt.tool, tt.args)
			if elapsed := time.Since(start); elapsed > 2*time.Second {
				t.Errorf("took %s", elapsed)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("error %v does not match %v", err, tt.is)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPluginConfirmation(t *testing.T) {
	tools, err := LoadPlugins(filepath.Join(pluginDir, "tools.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]Tool)
	for _, tool := range tools {
		byName[tool.Name()] = tool
	}
	prompt, needed := byName["echo_input"].(Confirmable).Confirmation(map[string]any{"city": "Paris"})
	abs, _ := filepath.Abs(filepath.Join(pluginDir, "echo_input.sh"))
	if !needed || !strings.Contains(prompt, abs) || !strings.Contains(prompt, `{"city":"Paris"}`) {
		t.Errorf("echo_input: needed = %v, prompt:\n%s\nwant the command %s and its input", needed, prompt, abs)
	}
	if _, needed := byName["fail"].(Confirmable).Confirmation(nil); needed {
		t.Error("fail asks for confirmation despite confirm: false")
	}
	refused := Confirm(context.Background(), &answer{allow: false}, byName["echo_input"], map[string]any{"city": "Paris"})
	if !errors.Is(refused, ErrNotConfirmed) {
		t.Errorf("Confirm = %v, want ErrNotConfirmed", refused)
	}
}

func TestPluginConfirmationShowsInvisibleCharacters(t *testing.T) {
	tools, err := LoadPlugins(filepath.Join(pluginDir, "tools.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var echo Confirmable
	for _, tool := range tools {
		if tool.Name() == "echo_input" {
			echo = tool.(Confirmable)
		}
	}
	for _, c := range escapetest.Invisibles {
		t.Run(c.Name, func(t *testing.T) {
			prompt, needed := echo.Confirmation(map[string]any{"city": "Paris" + string(c.R)})
			if !needed || escape.Hidden(prompt) != "" {
				t.Errorf("needed = %v; the prompt holds %s:\n%q", needed, escape.Hidden(prompt), prompt)
			}
			if want := `{"city":"Paris\u`; !strings.Contains(prompt, want) {
				t.Errorf("the prompt does not show the input escaped as JSON, %q…:\n%s", want, prompt)
			}
		})
	}
}

func TestPluginsFromJSON(t *testing.T) {
	tools, err := LoadPlugins(filepath.Join(pluginDir, "tools.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name() != "echo_json" || tools[0].Schema().Primary != "text" {
		t.Fatalf("tools = %v", tools)
	}
	got, err := tools[0].Call(context.Background(), map[string]any{"text": "hi"})
	if err != nil || got != `input: {"text":"hi"}` {
		t.Errorf("Call = %q, %v", got, err)
	}
}

func TestPluginFilesWithMCPServers(t *testing.T) {
	echo, err := filepath.Abs(filepath.Join(pluginDir, "echo_input.sh"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, content string
		want                int // plugin tools
	}{
		{"a YAML file of MCP servers only declares no plugin", "t.yaml", "mcp:\n  files:\n    command: npx\n", 0},
		{"a JSON file of MCP servers only declares no plugin", "t.json", `{"mcp": {"files": {"command": "npx"}}}`, 0},
		{"plugins beside MCP servers are loaded", "t.yaml", "tools:\n  - {name: x, description: d, command: " + echo + "}\nmcp:\n  files: {url: 'http://127.0.0.1:1/mcp'}\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadPlugins(path, Options{})
			if err != nil || len(got) != tt.want {
				t.Errorf("got %d tools, %v; want %d", len(got), err, tt.want)
			}
		})
	}
}

func TestBadPluginConfigs(t *testing.T) {
	echo, err := filepath.Abs(filepath.Join(pluginDir, "echo_input.sh"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		file    string
		content string
		wantErr string
	}{
		{name: "a YAML syntax error", file: "t.yaml", content: "tools: [", wantErr: "yaml:"},
		{name: "a JSON syntax error", file: "t.json", content: `{"tools": [}`, wantErr: "invalid character"},
		{name: "an unknown field", file: "t.yaml", content: "tools:\n  - name: x\n    descripton: typo\n", wantErr: `unknown key "descripton"`},
		{name: "an unknown JSON field", file: "t.json", content: `{"tools": [{"name": "x", "cmd": "ls"}]}`, wantErr: `unknown field "cmd"`},
		{name: "no tools", file: "t.yaml", content: "# nothing\ntools: []\n", wantErr: `no tools declared; expected a top-level "tools" list, or an "mcp" section of MCP servers`},
		{name: "a bad name", file: "t.yaml", content: "tools:\n  - name: two words\n    description: d\n    command: ls\n", wantErr: `tool 1 ("two words"): name must start with a letter`},
		{name: "no description", file: "t.yaml", content: "tools:\n  - name: x\n    command: ls\n", wantErr: `tool 1 ("x"): description is empty`},
		{name: "no command", file: "t.yaml", content: "tools:\n  - name: x\n    description: d\n", wantErr: `tool 1 ("x"): command is empty`},
		{name: "a command not in PATH", file: "t.yaml", content: "tools:\n  - name: x\n    description: d\n    command: no-such-program-here\n", wantErr: `command "no-such-program-here" is not in PATH`},
		{name: "a missing script", file: "t.yaml", content: "tools:\n  - name: x\n    description: d\n    command: ./missing.sh\n", wantErr: "missing.sh: no such file or directory"},
		{name: "a command of the wrong shape", file: "t.yaml", content: "tools:\n  - name: x\n    description: d\n    command: {a: b}\n", wantErr: "command must be a string or a list of strings"},
		{name: "a bad argument type", file: "t.yaml", content: "tools:\n  - name: x\n    description: d\n    command: " + echo + "\n    args: [{name: a, type: text}]\n", wantErr: `argument "a" has type "text"; use one of string, number`},
		{name: "a duplicate argument", file: "t.yaml", content: "tools:\n  - name: x\n    description: d\n    command: " + echo + "\n    args: [{name: a}, {name: a}]\n", wantErr: `argument "a" is declared twice`},
		{name: "a primary that is not an argument", file: "t.yaml", content: "tools:\n  - name: x\n    description: d\n    command: " + echo + "\n    args: [{name: a}]\n    primary: b\n", wantErr: `primary "b" is not one of its arguments`},
		{name: "a duplicate tool", file: "t.yaml", content: "tools:\n  - {name: x, description: d, command: " + echo + "}\n  - {name: x, description: d, command: " + echo + "}\n", wantErr: `tool 2: the name "x" is declared twice`},
		{name: "a clash with a built-in", file: "t.yaml", content: "tools:\n  - {name: calculator, description: d, command: " + echo + "}\n", wantErr: `a tool named "calculator" is already registered`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Builtins(Options{ToolsConfig: path})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), "tools config "+path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	_, err = Builtins(Options{ToolsConfig: filepath.Join(t.TempDir(), "absent.yaml")})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: error = %v, want os.ErrNotExist", err)
	}
}
