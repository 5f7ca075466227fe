package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// offered returns the names of the tools that tools --json lists.
func offered(t *testing.T, got outcome) []string {
	t.Helper()
	var names []string
	for _, line := range strings.Split(got.stdout, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), `"name": "`); ok {
			names = append(names, strings.TrimSuffix(name, `",`))
		}
	}
	return names
}

// TestToolChoice chooses the tools a run offers with -T, as llm's -T
// does: one or several, by name, in any case, from the command line, the
// environment or the config file; a name that is no tool is a usage error
// with the name meant, and the shell, off unless --allow-shell, is not
// offered without it.
func TestToolChoice(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("tool:\n  - calculator\n  - web_search\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   invocation
		want []string // the tools listed; nil for a usage error
		says string   // what stderr says
	}{
		{"no -T offers every tool enabled", args("tools", "--json"), []string{"calculator", "http_request", "web_search"}, ""},
		{"-T offers that tool alone", args("tools", "--json", "-T", "calculator"), []string{"calculator"}, ""},
		{"-T takes several, comma-separated or repeated", args("tools", "--json", "-T", "calculator,web_search", "--tool", "http_request"),
			[]string{"calculator", "http_request", "web_search"}, ""},
		{"-T takes a name in any case", args("tools", "--json", "-T", "Calculator"), []string{"calculator"}, ""},
		{"-T before the command is the command's", args("-T", "web_search", "tools", "--json"), []string{"web_search"}, ""},
		{"a name one slip away gets the name meant", args("tools", "-T", "calculater"), nil, `--tool: unknown tool "calculater"; did you mean calculator?`},
		{"a name of no tool lists the tools", args("tools", "-T", "browser"), nil, `unknown tool "browser"; the tools are calculator, http_request and web_search`},
		{"the shell off says how to turn it on", args("tools", "-T", "shell"), nil, "--tool: the shell tool is off; pass --allow-shell as well to offer it"},
		{"the shell on is offered", args("tools", "--json", "-T", "shell", "--allow-shell"), []string{"shell"}, ""},
		{"an empty name is refused", args("tools", "-T", "calculator,,web_search"), nil, "--tool takes a tool's name, or several comma-separated"},
		{"the environment chooses", invocation{args: []string{"tools", "--json"}, env: []string{"REACT_AGENT_TOOL=web_search,calculator"}},
			[]string{"calculator", "web_search"}, ""},
		{"the config file chooses, as a list", args("tools", "--json", "--config", config), []string{"calculator", "web_search"}, ""},
		{"a name of the config file that is no tool says where it came from",
			invocation{args: []string{"tools"}, env: []string{"REACT_AGENT_TOOL=calc"}}, nil, "tool (from REACT_AGENT_TOOL): unknown tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.in.run(t)
			switch {
			case tt.want == nil && (got.code != exitUsage || !strings.Contains(got.stderr, tt.says)):
				t.Errorf("want a usage error saying %q\n%s", tt.says, got)
			case tt.want != nil && (got.code != 0 || !slices.Equal(offered(t, got), tt.want)):
				t.Errorf("lists %v, want %v\n%s", offered(t, got), tt.want, got)
			}
		})
	}
}

// TestARunOffersTheToolsChosen asks a question with -T calculator: the
// prompt names the calculator alone, and so does settings.
func TestARunOffersTheToolsChosen(t *testing.T) {
	s := modeltest.NewOllama([]string{"Thought: I know it.\nFinal Answer: 4"}, modeltest.Model("m"))
	t.Cleanup(s.Close)
	got := args("-q", "--no-log", "--base-url", s.URL, "-m", "m", "-T", "calculator", "What is 2+2?").run(t)
	system := systemPrompt(t, s, 0)
	if got.code != 0 || !strings.Contains(system, "calculator") || strings.Contains(system, "web_search") || strings.Contains(system, "http_request") {
		t.Errorf("the prompt does not offer the calculator alone:\n%s\n%s", system, got)
	}
	if value, source := settingLine(args("settings", "-T", "calculator").run(t).stdout, "tool"); value != "calculator" || source != "command line" {
		t.Errorf("settings shows tool %q from %q", value, source)
	}
	if value, source := settingLine(args("settings").run(t).stdout, "tool"); value != "" || source != "default: every tool enabled" {
		t.Errorf("settings shows tool %q from %q without -T", value, source)
	}
}

// TestEvalOffersTheToolsChosen: eval -T offers those tools alone, and a
// question that asks for another is a usage error before any run.
func TestEvalOffersTheToolsChosen(t *testing.T) {
	set := filepath.Join(t.TempDir(), "set.jsonl")
	if err := os.WriteFile(set, []byte(`{"id": "q1", "question": "Who wrote Dune?", "contains": "Herbert", "tools": ["web_search"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := args("eval", "-T", "calculator", "--models", "ollama:m@http://127.0.0.1:9", set).run(t)
	if got.code != exitUsage || !strings.Contains(got.stderr, `asks for the tool "web_search", which is not enabled (enabled: calculator)`) {
		t.Errorf("want the question's tool refused\n%s", got)
	}
}

// TestCompletionKnowsTheToolNames completes -T with the tools' names: the
// built-in ones, the shell among them, and the plugins of the tools file.
func TestCompletionKnowsTheToolNames(t *testing.T) {
	plugins := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(plugins, []byte("tools:\n  - name: weather\n    description: The weather of a city.\n    command: [echo, sunny]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, words := range [][]string{{"-T", ""}, {"chat", "--tool", ""}, {"tools", "-T", ""}, {"--tools-config", plugins, "-T", ""}} {
		got := args(append([]string{"__complete"}, words...)...).run(t)
		for _, want := range []string{"calculator", "web_search", "http_request", "shell"} {
			if !strings.Contains(got.stdout, want+"\n") && !strings.Contains(got.stdout, want+"\t") {
				t.Errorf("%q completes without %s\n%s", words, want, got)
			}
		}
		if hasPlugins := words[0] == "--tools-config"; strings.Contains(got.stdout, "weather") != hasPlugins {
			t.Errorf("%q: the plugin weather completed: %v\n%s", words, !hasPlugins, got)
		}
	}
}
