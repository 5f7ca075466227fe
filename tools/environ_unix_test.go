//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keys are the variables of API keys that a tool's process must not get
// unless the user passes them, with a value each.
var keys = map[string]string{
	"OPENAI_API_KEY":      "sk-openai-0123456789abcdef",
	"ANTHROPIC_API_KEY":   "sk-ant-0123456789abcdef",
	"GOOGLE_API_KEY":      "AIza0123456789abcdef",
	"REACT_AGENT_API_KEY": "sk-agent-0123456789abcdef",
	"GITHUB_TOKEN":        "ghp_0123456789abcdef",
}

// TestToolProcessesGetNoKeysUnlessPassed runs `env` as the shell tool and
// as a plugin, with API keys in the environment: once each got all of
// them, and `echo $OPENAI_API_KEY | base64` sent the key to the model
// where redaction could not see it. Now each gets the basic variables
// (PATH, HOME) and the keys Options.PassEnv names, no others.
func TestToolProcessesGetNoKeysUnlessPassed(t *testing.T) {
	for k, v := range keys {
		t.Setenv(k, v)
	}
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	script := filepath.Join(dir, "env.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(yaml, []byte("tools:\n  - name: env\n    description: Prints its environment.\n    command: ./env.sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := map[string]func(t *testing.T, o Options) string{
		"the shell": func(t *testing.T, o Options) string {
			o.AllowShell = true
			out, err := newShell(o).Call(context.Background(), map[string]any{"command": "env"})
			if err != nil {
				t.Fatal(err)
			}
			return out
		},
		"a plugin": func(t *testing.T, o Options) string {
			ps, err := LoadPlugins(yaml, o)
			if err != nil {
				t.Fatal(err)
			}
			out, err := ps[0].Call(context.Background(), map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			return out
		},
	}
	for name, call := range run {
		t.Run(name+" gets no key by default", func(t *testing.T) {
			out := call(t, Options{})
			for k, v := range keys {
				if strings.Contains(out, v) || strings.Contains(out, k+"=") {
					t.Errorf("the process got %s:\n%s", k, out)
				}
			}
			if !strings.Contains(out, "PATH=") || !strings.Contains(out, "HOME=") {
				t.Errorf("the process lacks PATH or HOME:\n%s", out)
			}
		})
		t.Run(name+" gets the keys passed", func(t *testing.T) {
			out := call(t, Options{PassEnv: []string{"GITHUB_TOKEN", "NOT_SET_ANYWHERE"}})
			if !strings.Contains(out, "GITHUB_TOKEN="+keys["GITHUB_TOKEN"]) {
				t.Errorf("the process lacks GITHUB_TOKEN, passed:\n%s", out)
			}
			if strings.Contains(out, "OPENAI_API_KEY") || strings.Contains(out, "NOT_SET_ANYWHERE") {
				t.Errorf("the process got what was not passed, or not set:\n%s", out)
			}
		})
	}
}
