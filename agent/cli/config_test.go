package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsAreKeptFromTheCommandLine sets and unsets settings, and the
// default model, as llm's users do, and reads them back.
func TestSettingsAreKeptFromTheCommandLine(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + home}
	config := filepath.Join(home, "react-agent", "config.yaml")
	const ollamaDefault = "default-model:\n  ollama: llama3.1:8b\n"
	steps := []struct {
		args []string
		code int
		want string // in the config file after the step, or on stderr when code is not 0
	}{
		{[]string{"settings", "set", "max-iterations", "4"}, 0, "max-iterations: 4\n"},
		{[]string{"models", "default", "llama3.1:8b", "--force"}, 0, "max-iterations: 4\n" + ollamaDefault}, // no server to ask
		{[]string{"settings", "set", "system", "null"}, 0, "max-iterations: 4\n" + ollamaDefault + "system: \"null\"\n"},
		{[]string{"settings", "unset", "system"}, 0, "max-iterations: 4\n" + ollamaDefault},
		{[]string{"settings", "set", "max-iterations", "lots"}, exitUsage, "max-iterations takes a whole number"},
		{[]string{"settings", "set", "yes", "true"}, exitUsage, "chosen for one run"},
		{[]string{"settings", "set", "modle", "x"}, exitUsage, "did you mean model?"},
		{[]string{"models", "default", "a\nb"}, exitUsage, "is not a model's name"},
		{[]string{"models", "default", "evil\x1b]0;pwn\a"}, exitUsage, "is not a model's name"},
		{[]string{"settings", "set", "model", "zero\u200bwidth"}, exitUsage, "is not a model's name"},
		{[]string{"settings", "unset", "max-iterations"}, 0, ollamaDefault},
	}
	for _, s := range steps {
		got := run(t, invocation{args: s.args, env: env})
		data, _ := os.ReadFile(config)
		if got.code != s.code || s.code == 0 && string(data) != s.want || s.code != 0 && !strings.Contains(got.stderr, s.want) {
			t.Fatalf("%s: want exit %d and %q\n%s\n--- the file:\n%s", strings.Join(s.args, " "), s.code, s.want, got, data)
		}
	}
	if info, err := os.Stat(config); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the config file's mode: %v, %v", info.Mode(), err)
	}
	if got := run(t, invocation{args: []string{"models", "default"}, env: env}); got.stdout != "llama3.1:8b\n" {
		t.Errorf("models default: want the model set\n%s", got)
	}
	if model, source := settingLine(run(t, invocation{args: []string{"settings"}, env: env}).stdout, "model"); model != "llama3.1:8b" || source != config {
		t.Errorf("settings shows model %q from %q", model, source)
	}
	t.Run("a mistake in the file does not stop its fix", func(t *testing.T) {
		os.WriteFile(config, []byte("modle: x\n"), 0o600)
		if got := run(t, invocation{args: []string{"settings", "unset", "modle"}, env: env}); got.code != 0 {
			t.Fatalf("settings unset modle: want exit 0\n%s", got)
		}
		if got := run(t, invocation{args: []string{"settings"}, env: env}); got.code != 0 {
			t.Errorf("the file is not fixed\n%s", got)
		}
	})
}

// TestSettingsSetKeepsALinkedConfigFile sets a setting in a config file
// kept elsewhere and linked, as dotfiles are: the link stays a link, and
// the file it points to gets the setting.
func TestSettingsSetKeepsALinkedConfigFile(t *testing.T) {
	t.Parallel()
	home, dotfiles := t.TempDir(), t.TempDir()
	real := filepath.Join(dotfiles, "config.yaml")
	if err := os.WriteFile(real, []byte("# mine\nmax-iterations: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "react-agent", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if got := run(t, invocation{args: []string{"settings", "set", "lang", "zh"}, env: []string{"XDG_CONFIG_HOME=" + home}}); got.code != 0 {
		t.Fatalf("settings set failed\n%s", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the config file is no longer a link: %v, %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(real)
	if string(data) != "# mine\nmax-iterations: 4\nlang: zh\n" {
		t.Errorf("the linked file holds %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(dotfiles, ".config.yaml.*")); len(left) > 0 {
		t.Errorf("a temporary file was left: %v", left)
	}
}

// TestEveryConfigFileErrorIsAUsageError breaks the config file, the tools
// file and the file of MCP servers in the ways people do: each error
// names the line the fault is on, and exits 2, as a mistake on the
// command line does, since a config file holds the command line's
// settings.
func TestEveryConfigFileErrorIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"a setting without its colon", []string{"settings", "--config", write("a.yaml", "model: qwen\nprovider ollama\nmax-iterations: 5\n")},
			`line 2 ("provider ollama"): could not find expected ':'`},
		{"a list left open", []string{"settings", "--config", write("c.yaml", "max-iterations: 5\nprompt: [compact\n")},
			`line 2 ("prompt: [compact"): did not find expected ',' or ']'`},
		{"an unknown setting", []string{"settings", "--config", write("d.yaml", "max-iterations: 5\nbogus: 1\n")}, `line 2: unknown setting "bogus"`},
		{"a value no setting takes", []string{"settings", "--config", write("v.yaml", "prompt: full\nmax-iterations: many\n")},
			`line 2: max-iterations takes a whole number`},
		{"a list for a single value", []string{"settings", "--config", write("l.yaml", "\nprompt: [full, compact]\n")}, `line 2: prompt must be a single value`},
		{"settings set on a broken file", []string{"settings", "set", "prompt", "compact", "--config", write("s.yaml", "model: qwen\nprovider ollama\n")},
			`line 2 ("provider ollama"): could not find expected ':'`},
		{"a tool indented one space too few", []string{"tools", "--tools-config", write("t.yaml", "tools:\n  - name: x\n    description: y\n   command: echo\n")},
			`tools config ` + filepath.Join(dir, "t.yaml") + `: line 4 ("   command: echo"): did not find expected '-' indicator`},
		{"a tool's unknown key", []string{"tools", "--tools-config", write("k.yaml", "tools:\n  - name: x\n    descripton: y\n")}, `line 3 ("    descripton: y"): unknown key "descripton"`},
		{"a tools file that is not there", []string{"tools", "--tools-config", filepath.Join(dir, "none.yaml")}, "no such file"},
		{"an MCP server's key indented too few", []string{"tools", "--mcp-config", write("m.yaml", "mcpServers:\n  a:\n    command: x\n   args: [1]\n")},
			`line 4 ("   args: [1]"): did not find expected key; fix the file given with --mcp-config`},
		{"a comma before a brace", []string{"tools", "--mcp-config", write("m.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n")},
			`line 3 ("    \"a\": {\"command\": \"x\",}"): invalid character '}'`},
		{"a file of MCP servers that is not there", []string{"tools", "--mcp-config", filepath.Join(dir, "none.json")}, "cannot read it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := args(tt.args...).run(t)
			if got.code != exitUsage || !strings.Contains(got.stderr, tt.says) {
				t.Errorf("want exit 2 and %q\n%s", tt.says, got)
			}
		})
	}
}
