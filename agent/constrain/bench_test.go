package constrain

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/tools"
)

// BenchmarkConstraintsOfTheBuiltinTools measures writing every constraint
// of a registry of the built-in tools: the grammar, the structural tag and
// the schemas, as a run does once.
func BenchmarkConstraintsOfTheBuiltinTools(b *testing.B) {
	opts := tools.DefaultOptions()
	opts.AllowShell = true
	reg, err := tools.Builtins(opts)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkConstraints(b, reg)
}

// BenchmarkConstraintsOfTheBuiltinAndReferenceTools is the same with the
// tools of the reference MCP servers beside the built-in ones.
func BenchmarkConstraintsOfTheBuiltinAndReferenceTools(b *testing.B) {
	opts := tools.DefaultOptions()
	opts.AllowShell = true
	builtins, err := tools.Builtins(opts)
	if err != nil {
		b.Fatal(err)
	}
	ref := referenceTools(b)
	reg, err := tools.NewRegistry(append(builtins.List(), ref.List()...)...)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkConstraints(b, reg)
}

func benchmarkConstraints(b *testing.B, reg *tools.Registry) {
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		c := For(reg).Step()
		size = len(c.Grammar)
	}
	b.ReportMetric(float64(size), "grammar-bytes")
	b.ReportMetric(float64(len(reg.List())), "tools")
}

// BenchmarkSamplingOnTheTinyModel measures what the grammar costs llama.cpp
// when it samples: the time a token of the tiny model takes under the
// grammar of the built-in tools and without one, as ms/token metrics (the
// time of the benchmark itself is mostly node starting and loading the
// model). Run it with -benchtime 1x.
func BenchmarkSamplingOnTheTinyModel(b *testing.B) {
	requireLlama(b)
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "tiny.gguf")
	// No bias towards the end: both kinds of samples run to maxTokens,
	// or until the grammar is done.
	prior := map[int]float32{gguf.ByteToken('"'): 2, gguf.ByteToken('}'): 2}
	if err := gguf.WriteFile(path, gguf.Model{Prior: prior, AllBytes: true, Context: 1024, Seed: 26}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res := runSamples(b, sampleRequest{Model: path, Samples: 4, Free: 4, MaxTokens: 50, Seed: 3,
			Grammars: []namedText{{"grammar", For(reg).Step().Grammar}}})
		ms, tokens := map[string]float64{}, map[string]float64{}
		for _, r := range res {
			ms[r.Name] += r.MS
			tokens[r.Name] += float64(len(r.Text)) // a byte a token
		}
		b.ReportMetric(ms["grammar"]/tokens["grammar"], "ms/token-grammar")
		b.ReportMetric(ms["free"]/tokens["free"], "ms/token-free")
		b.ReportMetric(tokens["grammar"]/4, "tokens/sample-grammar")
		b.ReportMetric(tokens["free"]/4, "tokens/sample-free")
	}
}

// BenchmarkGrammarOfAToolWithManyProperties measures writing the
// constraints of one tool with a long name and n optional properties,
// whose rule names all begin alike: the cost must grow with n, not with
// its square.
func BenchmarkGrammarOfAToolWithManyProperties(b *testing.B) {
	for _, n := range []int{500, 2000, 4000} {
		b.Run(fmt.Sprintf("properties=%d", n), func(b *testing.B) {
			reg, err := tools.NewRegistry(wideTool("a_tool_with_a_rather_long_name", n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				For(reg).Step()
			}
		})
	}
}

// wideTool is a tool named name with n optional properties of long names.
func wideTool(name string, n int) tools.Tool {
	props := make([]string, n)
	for i := range props {
		props[i] = fmt.Sprintf(`"property_with_a_long_name_%d":{"type":"string"}`, i)
	}
	return schemaTool{name, `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`}
}
