package constrain

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/mcp"
)

// llamaDir is the folder of the npm project that installs llama.cpp's
// prebuilt library (npm ci --prefix testdata/llama).
const llamaDir = "../../testdata/llama"

// requireLlama skips the test when node or the prebuilt llama.cpp are
// missing, unless REACT_AGENT_REQUIRE_LLAMA=1, as in CI, makes that a
// failure.
func requireLlama(t testing.TB) {
	t.Helper()
	_, err := os.Stat(filepath.Join(llamaDir, "node_modules", "node-llama-cpp", "package.json"))
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err == nil {
		return
	}
	if os.Getenv("REACT_AGENT_REQUIRE_LLAMA") == "1" {
		t.Fatalf("REACT_AGENT_REQUIRE_LLAMA is set, and llama.cpp's prebuilt library must be installed, with node on PATH: %v; run npm ci --prefix testdata/llama", err)
	}
	t.Skipf("llama.cpp's prebuilt library is not installed (%v); run npm ci --prefix testdata/llama to test the grammars with it", err)
}

// compiled is llama.cpp's verdict on one grammar.
type compiled struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// compileGrammars has llama.cpp's grammar parser compile each grammar, by
// name, and returns its verdicts and, for each grammar, what it printed.
func compileGrammars(t *testing.T, grammars map[string]string) (map[string]compiled, map[string]string) {
	t.Helper()
	type in struct {
		Name    string `json:"name"`
		Grammar string `json:"grammar"`
	}
	var list []in
	for name, g := range grammars {
		list = append(list, in{name, g})
	}
	input, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "grammar.mjs")
	cmd.Dir = llamaDir
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node grammar.mjs: %v\n%s", err, stderr.String())
	}
	verdicts := map[string]compiled{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var c compiled
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("grammar.mjs wrote %q: %v", line, err)
		}
		verdicts[c.Name] = c
	}
	said := map[string]string{}
	name := ""
	for _, line := range strings.Split(stderr.String(), "\n") {
		if n, ok := strings.CutPrefix(line, "== "); ok {
			name = n
			continue
		}
		said[name] += line + "\n"
	}
	return verdicts, said
}

// checkCompiled fails the test for each grammar llama.cpp refused.
func checkCompiled(t *testing.T, grammars map[string]string) {
	t.Helper()
	verdicts, said := compileGrammars(t, grammars)
	for name, g := range grammars {
		v, ok := verdicts[name]
		switch {
		case !ok:
			t.Errorf("%s: llama.cpp gave no verdict", name)
		case !v.OK:
			t.Errorf("%s: llama.cpp refused the grammar: %s\n%s\ngrammar:\n%s", name, v.Error, said[name], g)
		}
	}
}

func TestLlamaCompilesTheGrammarsOfTheBuiltinTools(t *testing.T) {
	requireLlama(t)
	opts := tools.DefaultOptions()
	opts.AllowShell = true
	reg, err := tools.Builtins(opts)
	if err != nil {
		t.Fatal(err)
	}
	grammars := map[string]string{"all built-in tools": For(reg).Step().Grammar}
	for _, tl := range reg.List() {
		one, err := tools.NewRegistry(tl)
		if err != nil {
			t.Fatal(err)
		}
		grammars[tl.Name()] = For(one).Step().Grammar
	}
	checkCompiled(t, grammars)
}

func TestLlamaCompilesTheGrammarsOfTheReferenceMCPServers(t *testing.T) {
	requireLlama(t)
	reg := referenceTools(t)
	grammars := map[string]string{"all the reference servers' tools": For(reg).Step().Grammar}
	for _, tl := range reg.List() {
		one, err := tools.NewRegistry(tl)
		if err != nil {
			t.Fatal(err)
		}
		grammars[tl.Name()] = For(one).Step().Grammar
	}
	checkCompiled(t, grammars)
}

func TestLlamaCompilesTheGrammarsOfAwkwardSchemas(t *testing.T) {
	requireLlama(t)
	grammars := map[string]string{}
	var all []tools.Tool
	for _, tt := range awkward {
		one, err := tools.NewRegistry(tt.tool())
		if err != nil {
			t.Fatal(err)
		}
		grammars[tt.name] = For(one).Step().Grammar
		all = append(all, tt.tool())
	}
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	grammars["all of them at once"] = For(reg).Step().Grammar
	checkCompiled(t, grammars)
}

// referenceTools starts the reference MCP servers of testdata/mcp and
// returns a registry of their tools, or skips the test when they are not
// installed (unless REACT_AGENT_REQUIRE_MCP=1).
func referenceTools(t testing.TB) *tools.Registry {
	t.Helper()
	const testdata = "../../testdata/mcp"
	_, err := os.Stat(filepath.Join(testdata, "node_modules", "@modelcontextprotocol", "server-everything"))
	if err != nil {
		if os.Getenv("REACT_AGENT_REQUIRE_MCP") == "1" {
			t.Fatalf("REACT_AGENT_REQUIRE_MCP is set, and the reference MCP servers must be installed: %v; run npm ci --prefix testdata/mcp", err)
		}
		t.Skipf("the reference MCP servers are not installed (%v); run npm ci --prefix testdata/mcp", err)
	}
	dir, err := filepath.Abs(filepath.Join(testdata, "node_modules", "@modelcontextprotocol"))
	if err != nil {
		t.Fatal(err)
	}
	folder, err := filepath.Abs(testdata)
	if err != nil {
		t.Fatal(err)
	}
	servers := []mcp.Server{
		{Name: "everything", Transport: mcp.Stdio, Command: "node", Args: []string{filepath.Join(dir, "server-everything", "dist", "index.js"), "stdio"}},
		{Name: "files", Transport: mcp.Stdio, Command: "node", Args: []string{filepath.Join(dir, "server-filesystem", "dist", "index.js"), folder}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	set, err := mcp.Start(ctx, servers, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	reg, err := tools.NewRegistry(set.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.List()) < 10 {
		t.Fatalf("the reference servers have %d tools: %s", len(reg.List()), reg.ToolNames())
	}
	return reg
}
