package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFlagIsASetting reads the flags of ask from its help, as a
// person would, and checks that each one, but the few chosen for one run,
// is set by its REACT_AGENT_* variable and by the config file: a new flag
// needs no second edit to be a setting.
func TestEveryFlagIsASetting(t *testing.T) {
	help := run(t, invocation{args: []string{"ask", "--help"}})
	flagLine := regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z][a-z-]*)(?: (\w+))?`)
	oneRun := map[string]bool{"yes": true, "json": true, "record": true, "replay": true, "config": true, "continue": true, "cid": true, "attach": true, "help": true}
	samples := map[string]string{"int": "7", "int64": "7", "duration": "7s", "float": "0.5", "string": "from-setting", "stringArray": "Observation", "KEY": "repeat_penalty=1.1", "": "true"}
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
		env := "REACT_AGENT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		t.Run(name, func(t *testing.T) {
			got := run(t, invocation{args: []string{"settings"}, env: []string{env + "=" + value}})
			if !strings.Contains(got.stdout, "\n"+name+"=") && !strings.HasPrefix(got.stdout, name+"=") || !strings.Contains(got.stdout, "("+env+")") {
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
	got := run(t, invocation{args: []string{"ask", "--provider", "replay", "--replay", "testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"},
		env: []string{"REACT_AGENT_JSON=1"}})
	if got.code != 2 || !strings.Contains(got.stderr, "REACT_AGENT_JSON") || !strings.Contains(got.stderr, "--json") {
		t.Fatalf("want exit 2 naming REACT_AGENT_JSON and --json\n%s", got)
	}
}

// TestConfigValuesAreKeptAsWritten checks that a config file's values
// reach the flags as written, not as YAML reads numbers.
func TestConfigValuesAreKeptAsWritten(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("api-key: 0123\nmodel: 1.10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"settings", "--config", config}})
	if got.code != 0 || !strings.Contains(got.stdout, "model=1.10\t") || !strings.Contains(got.stdout, "api-key=(set)") {
		t.Fatalf("want model 1.10 as written\n%s", got)
	}
}
