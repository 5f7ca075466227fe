package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goFiles returns the non-test Go files below dir, parsed.
func goFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// commandLine is the one package under agent/ that is the command line:
// it names flags, and it imports the agent package, as main.go did.
const commandLine = "../agent/cli"

// TestLibrariesNameNoFlags checks that no string in the libraries names a
// command-line flag: the model reads some of their errors and cannot pass
// flags, and library users have none; the command line's package gives
// the flag advice.
func TestLibrariesNameNoFlags(t *testing.T) {
	flag := regexp.MustCompile(`(^|[\s(])--[a-z][a-z-]+`)
	for _, dir := range []string{"../agent", "../tools", "../parser", "../prompt"} {
		for path, f := range goFiles(t, dir) {
			if filepath.Dir(path) == commandLine {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && flag.MatchString(s) {
					t.Errorf("%s: the string %q names a command-line flag", path, s)
				}
				return true
			})
		}
	}
}

// TestNothingBelowAgentImportsAgent checks the one-way flow of the layout:
// the packages under agent/ serve the loop and never import it, but for
// the command line's, which drives it.
func TestNothingBelowAgentImportsAgent(t *testing.T) {
	for path, f := range goFiles(t, "../agent") {
		if dir := filepath.Dir(path); dir == "../agent" || dir == commandLine {
			continue
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/react-agent/react-agent/agent" {
				t.Errorf("%s imports the agent package", path)
			}
		}
	}
}

// TestTextSafetyImportsNothingOfOurs keeps the escaper and the redactor
// low in the tree, and the display and the log off the layers they only
// borrowed them from: agent/trace and agent/logs import neither tools nor
// agent/model.
func TestTextSafetyImportsNothingOfOurs(t *testing.T) {
	const module = "github.com/react-agent/react-agent/"
	rules := []struct {
		dir    string
		forbid func(path string) bool
	}{
		{"../tools/escape", func(p string) bool { return strings.HasPrefix(p, module) }},
		{"../agent/redact", func(p string) bool { return strings.HasPrefix(p, module) }},
		{"../agent/trace", func(p string) bool { return p == module+"tools" || p == module+"agent/model" }},
		{"../agent/logs", func(p string) bool { return p == module+"tools" || p == module+"agent/model" }},
	}
	for _, r := range rules {
		for path, f := range goFiles(t, r.dir) {
			if filepath.Dir(path) != r.dir {
				continue // a package below it, such as tools/escape/escapetest
			}
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); r.forbid(p) {
					t.Errorf("%s imports %s", path, p)
				}
			}
		}
	}
}

// TestTheModelPackageReadsNoEnvironment checks that agent/model takes
// the environment from its caller (Config.Getenv) and never reads the
// process's: once New and Models read os.Getenv, and a test's
// environment without a key still sent the process's OPENAI_API_KEY.
// The proxy variables count too, which http.DefaultTransport reads.
func TestTheModelPackageReadsNoEnvironment(t *testing.T) {
	forbidden := map[string]bool{"os.Getenv": true, "os.LookupEnv": true, "os.Environ": true, "os.ExpandEnv": true,
		"http.ProxyFromEnvironment": true, "http.DefaultTransport": true, "http.DefaultClient": true, "httpproxy.FromEnvironment": true}
	for path, f := range goFiles(t, "../agent/model") {
		if filepath.Dir(path) != "../agent/model" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && forbidden[pkg.Name+"."+sel.Sel.Name] {
				t.Errorf("%s reads the process's environment: %s.%s", path, pkg.Name, sel.Sel.Name)
			}
			return true
		})
	}
}

// TestTheBinaryLinksNothingHeavyForItsTraces checks that the program
// links, for its traces, OpenTelemetry's API and SDK and nothing of its
// OTLP exporters: they bring gRPC, grpc-gateway, genproto and the
// generated protobuf types, 86 packages whose initialisation took 1.1 to
// 1.5 ms of every start of the program, traced or not
// (GODEBUG=inittrace=1). The package agent/telemetry writes OTLP itself.
func TestTheBinaryLinksNothingHeavyForItsTraces(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/react-agent/react-agent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	heavy := []string{
		"google.golang.org/grpc",
		"google.golang.org/protobuf",
		"google.golang.org/genproto",
		"github.com/grpc-ecosystem/",
		"go.opentelemetry.io/proto/otlp",
		"go.opentelemetry.io/otel/exporters/",
		"golang.org/x/net/trace",
		"golang.org/x/net/http2",
		"html/template",
	}
	linked := strings.Fields(string(out))
	if !slices.Contains(linked, "go.opentelemetry.io/otel/sdk/trace") {
		t.Fatalf("the program does not link the OpenTelemetry SDK; go list -deps said:\n%s", out)
	}
	for _, p := range linked {
		for _, h := range heavy {
			if p == h || strings.HasPrefix(p, strings.TrimSuffix(h, "/")+"/") {
				t.Errorf("the program links %s", p)
			}
		}
	}
}

// TestTheAgentHoldsNoLabelText checks that no string in the agent's own
// package spells a label of the text protocol: the parser reads labels,
// and tells the agent where a streamed reply is cut (parser.Scanner); the
// prompt writes them, stop sequences included. A second spelling of the
// labels in the agent drifts from the parser's: once the agent kept its
// own copy of the parser's label states to cut a stream.
func TestTheAgentHoldsNoLabelText(t *testing.T) {
	words := `(\b(thought|action input|action|observation|final answer)|思考|行动输入|行动|观察|最终答案)`
	// A label follows a line break (and markdown, perhaps), or ends at its
	// colon; the JSON protocol's keys ("action") and its "Final Answer"
	// are no labels.
	label := regexp.MustCompile(`(?i)(\n[\s*#>]*` + words + `)|(` + words + `\s*\**\s*[:：])`)
	for path, f := range goFiles(t, "../agent") {
		if filepath.Dir(path) != "../agent" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && label.MatchString(s) {
				t.Errorf("%s: the string %q spells a label of the text protocol", path, s)
			}
			return true
		})
	}
}
