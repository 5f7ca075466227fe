package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestEveryFlagIsASetting reads the flags of ask from its help, as a
// person would, and checks that each one, but the few chosen for one run,
// is set by its REACT_AGENT_* variable and by the config file: a new flag
// needs no second edit to be a setting.
func TestEveryFlagIsASetting(t *testing.T) {
	t.Parallel()
	help := run(t, invocation{args: []string{"ask", "--help"}})
	flagLine := regexp.MustCompile(`(?m)^ {2,6}(?:-\w, )?--([a-z][a-z-]*)(?: (\w+))?`) // not a flag named in a wrapped description
	oneRun := map[string]bool{"yes": true, "json": true, "record": true, "replay": true, "config": true, "continue": true, "cid": true, "attach": true, "help": true}
	samples := map[string]string{"int": "7", "int64": "7", "duration": "7s", "float": "0.5", "string": "from-setting", "stringArray": "Observation", "strings": "GITHUB_TOKEN", "KEY": "repeat_penalty=1.1", "": "true"}
	var checked int
	for _, m := range flagLine.FindAllStringSubmatch(help.stdout+help.stderr, -1) {
		name, typ := m[1], m[2]
		if oneRun[name] {
			continue
		}
		value, ok := samples[typ]
		if !ok {
			t.Errorf("--%s has type %q, which this test has no sample value for", name, typ)
			continue
		}
		if c, isChoice := flagsOf("ask").Lookup(name).Value.(*choice); isChoice {
			value = c.words[len(c.words)-1] // a flag of a few words takes one of them
		}
		env := "REACT_AGENT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		t.Run(name, func(t *testing.T) {
			got := run(t, invocation{args: []string{"settings"}, env: []string{env + "=" + value}})
			if v, source := settingLine(got.stdout, name); v == "" || source != env {
				t.Errorf("%s=%s is not a setting of --%s:\n%s", env, value, name, got)
			}
			config := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(config, []byte(name+": "+value+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			got = run(t, invocation{args: []string{"settings", "--config", config}})
			if got.code != 0 || !strings.Contains(got.stdout, "("+config+")") {
				t.Errorf("the config file does not set --%s:\n%s", name, got)
			}
		})
		checked++
	}
	if checked < 20 {
		t.Fatalf("found only %d flags in ask --help:\n%s", checked, help)
	}
}

// TestOneRunFlagsAreRefusedAsSettings checks that a flag chosen for one
// run, set in the environment, is a usage error rather than ignored.
func TestOneRunFlagsAreRefusedAsSettings(t *testing.T) {
	t.Parallel()
	got := run(t, invocation{args: []string{"ask", "--provider", "replay", "--replay", root + "/testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"},
		env: []string{"REACT_AGENT_JSON=1"}})
	if got.code != 2 || !strings.Contains(got.stderr, "REACT_AGENT_JSON") || !strings.Contains(got.stderr, "--json") {
		t.Fatalf("want exit 2 naming REACT_AGENT_JSON and --json\n%s", got)
	}
}

// TestConfigValuesAreKeptAsWritten checks that a config file's values
// reach the flags as written, not as YAML reads numbers.
func TestConfigValuesAreKeptAsWritten(t *testing.T) {
	t.Parallel()
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("api-key: 0123\nmodel: 1.10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"settings", "--config", config}})
	if model, _ := settingLine(got.stdout, "model"); got.code != 0 || model != "1.10" {
		t.Fatalf("want model 1.10 as written\n%s", got)
	}
	if key, _ := settingLine(got.stdout, "api-key"); key != "(set)" {
		t.Fatalf("want the key set\n%s", got)
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	s := ollama(t, "calculator.json", modeltest.Model("from-config"), modeltest.Repeat())
	if err := os.WriteFile(config, []byte("provider: ollama\nmodel: from-config\nbase-url: "+s.URL+"\nmax-iterations: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ask := []string{"ask", "-q", "--config", config, "What is 17 * 23 + 4?"}
	tests := []struct {
		name string
		args []string
		env  []string
		code int
		want string // on stdout, or on stderr when code is not 0
	}{
		{"the config file sets provider, model and base URL", ask, nil, 0, " = 395"},
		{"REACT_AGENT_CONFIG names the file", []string{"-q", "What is 17 * 23 + 4?"}, []string{"REACT_AGENT_CONFIG=" + config}, 0, " = 395"},
		{"the environment beats the config file", ask, []string{"REACT_AGENT_MODEL=from-env"}, 1, "from-env"},
		{"a flag beats the environment", append([]string{"--model", "from-config"}, ask...), []string{"REACT_AGENT_MODEL=from-env"}, 0, " = 395"},
		{"the provider's own variable beats the file's base URL", ask, []string{"OLLAMA_HOST=http://127.0.0.1:9"}, 1, "cannot reach Ollama at http://127.0.0.1:9"},
		{"a bad environment value is a usage error", ask, []string{"REACT_AGENT_MAX_ITERATIONS=many"}, 2, "REACT_AGENT_MAX_ITERATIONS"},
		{"a missing config file named on the command line is an error", []string{"ask", "--config", filepath.Join(dir, "nope.yaml"), "hi"}, nil, 2, "nope.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: tt.args, env: tt.env})
			out := got.stdout
			if tt.code != 0 {
				out = got.stderr
			}
			if got.code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("want exit %d and %q\n%s", tt.code, tt.want, got)
			}
		})
	}

	t.Run("the default config file is read from the user's config directory", func(t *testing.T) {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "react-agent"), 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(config)
		os.WriteFile(filepath.Join(home, "react-agent", "config.yaml"), data, 0o644)
		got := run(t, invocation{args: []string{"-q", "What is 17 * 23 + 4?"}, env: []string{"XDG_CONFIG_HOME=" + home}})
		if got.code != 0 || !strings.Contains(got.stdout, " = 395") {
			t.Fatalf("want the answer\n%s", got)
		}
	})

	t.Run("bad config files say what is wrong", func(t *testing.T) {
		for body, want := range map[string]string{
			"modle: x\n":          `unknown setting "modle"`,
			"yes: true\n":         `"yes" cannot be set in a config file`,
			"max-iterations: [\n": "must be a YAML mapping",
			"timeout: 30\n":       "timeout",
		} {
			bad := filepath.Join(t.TempDir(), "config.yaml")
			os.WriteFile(bad, []byte(body), 0o644)
			got := run(t, invocation{args: []string{"ask", "--config", bad, "hi"}})
			if got.code == 0 || !strings.Contains(got.stderr, want) || !strings.Contains(got.stderr, bad) {
				t.Errorf("config %q: want an error naming the file and %q\n%s", body, want, got)
			}
		}
	})
}

// setting returns the value and the source of the setting called name in
// the output of react-agent settings.
func settingLine(out, name string) (value, source string) {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			rest = strings.TrimSpace(rest)
			i := strings.LastIndex(rest, "  (")
			if i < 0 {
				return "", strings.Trim(rest, "()")
			}
			return strings.TrimSpace(rest[:i]), strings.Trim(strings.TrimSpace(rest[i:]), "()")
		}
	}
	return "", ""
}

// TestSettingsShowWhatTheServerSets: against llama-server, whose context
// window its -c sets and which serves the one model it loaded, settings
// shows the server's window and model, not Ollama's num-ctx default or a
// placeholder; against one that does not answer, that the server sets
// them.
func TestSettingsShowWhatTheServerSets(t *testing.T) {
	s := modeltest.NewLlamaCpp(nil, modeltest.ContextSize(2048))
	defer s.Close()
	tests := []struct {
		url                            string
		ctx, ctxFrom, model, modelFrom string
	}{
		{s.URL, "2048", "llama-server's -c", "modeltest.gguf", theOneServed},
		{"http://127.0.0.1:9", "", "set by the server, not --num-ctx", "", "the one llama-server loaded; it does not answer now"},
	}
	for _, tt := range tests {
		got := args("settings", "--provider", "llamacpp", "--base-url", tt.url).run(t)
		if v, from := settingLine(got.stdout, "num-ctx"); v != tt.ctx || from != tt.ctxFrom {
			t.Errorf("%s: num-ctx %q from %q, want %q from %q", tt.url, v, from, tt.ctx, tt.ctxFrom)
		}
		if v, from := settingLine(got.stdout, "model"); v != tt.model || from != tt.modelFrom {
			t.Errorf("%s: model %q from %q, want %q from %q", tt.url, v, from, tt.model, tt.modelFrom)
		}
	}
	if v, from := settingLine(args("settings").run(t).stdout, "num-ctx"); v != "8192" || from != "default: grows as a prompt needs" {
		t.Errorf("Ollama's num-ctx: %q from %q", v, from)
	}
}
