package constrain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/tools"
)

func TestAGrammarGrowsWithTheSchemaNotWithItsSquare(t *testing.T) {
	size := map[int]int{}
	for _, n := range []int{100, 2000} {
		props := make([]string, n)
		for i := range props {
			props[i] = fmt.Sprintf(`"p%d":{"type":"integer"}`, i)
		}
		schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
		reg, err := tools.NewRegistry(schemaTool{"wide", schema})
		if err != nil {
			t.Fatal(err)
		}
		g := For(reg).Step().Grammar
		size[n] = len(g)
		checkRules(t, g)
	}
	// Twenty times the properties: a grammar at most 30 times the size
	// (the square would be 400 times).
	if size[2000] > 30*size[100] {
		t.Errorf("100 optional properties make a grammar of %d bytes, 2000 of %d", size[100], size[2000])
	}
}

// ruleRef is a rule name in a rule's body, outside literals and classes.
var ruleRef = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|[a-zA-Z0-9-]+`)

// checkRules fails the test when g uses a rule it does not define, or
// defines one twice, or names one with other characters than letters,
// digits and dashes.
func checkRules(t *testing.T, g string) {
	t.Helper()
	defined := map[string]bool{}
	var bodies []string
	for _, line := range strings.Split(strings.TrimSpace(g), "\n") {
		name, body, ok := strings.Cut(line, " ::= ")
		if !ok || !regexp.MustCompile(`^[a-zA-Z0-9-]+$`).MatchString(name) {
			t.Fatalf("not a rule: %q", line)
		}
		if defined[name] {
			t.Errorf("the rule %s is defined twice", name)
		}
		defined[name] = true
		bodies = append(bodies, body)
	}
	for _, body := range bodies {
		for _, tok := range ruleRef.FindAllString(body, -1) {
			if tok[0] == '"' || tok[0] == '[' || regexp.MustCompile(`^[0-9]`).MatchString(tok) {
				continue
			}
			if !defined[tok] {
				t.Errorf("the rule %q is used and not defined, in %s", tok, body)
			}
		}
	}
	if !defined["root"] {
		t.Error("the grammar has no root")
	}
}

func TestEveryGrammarDefinesTheRulesItUses(t *testing.T) {
	opts := tools.DefaultOptions()
	opts.AllowShell = true
	builtins, err := tools.Builtins(opts)
	if err != nil {
		t.Fatal(err)
	}
	all := builtins.List()
	for _, a := range awkward {
		all = append(all, a.tool())
	}
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	checkRules(t, For(reg).Step().Grammar)
}

func TestTheSchemasAreJSONWithTheThoughtFirst(t *testing.T) {
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	step, final := For(reg).Step(), For(reg).Final()
	for name, raw := range map[string]json.RawMessage{"step": step.Schema, "final": final.Schema, "strict final": final.StrictSchema} {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if i, j := strings.Index(string(raw), `"thought"`), strings.Index(string(raw), `"action"`); i < 0 || i > j {
			t.Errorf("%s: the thought is not asked for first: %s", name, raw)
		}
	}
	if len(step.StrictSchema) != 0 {
		t.Errorf("http_request's free body fits no strict schema, yet there is one: %s", step.StrictSchema)
	}
	calc, _ := reg.Get("calculator")
	one, _ := tools.NewRegistry(calc)
	if strict := For(one).Step().StrictSchema; !strings.Contains(string(strict), `"enum":["calculator","Final Answer"]`) {
		t.Errorf("the calculator's strict schema is %s", strict)
	}
}

func TestAToolTooLargeForAGrammarIsNarrowedAlone(t *testing.T) {
	reg, err := tools.NewRegistry(wideTool("a_tool_with_a_rather_long_name", 3000),
		schemaTool{"small", `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`})
	if err != nil {
		t.Fatal(err)
	}
	set := For(reg)
	g := set.Step().Grammar
	checkRules(t, g)
	if len(g) > maxGrammar {
		t.Errorf("the grammar is %d bytes, more than the %d allowed", len(g), maxGrammar)
	}
	if got := set.Narrowed(); len(got) != 1 || got[0] != "a_tool_with_a_rather_long_name" {
		t.Errorf("narrowed %q, want the wide tool alone", got)
	}
	if !strings.Contains(g, `call-a-tool-with-a-rather-long-name ::= "a_tool_with_a_rather_long_name" " "? "\n" "Action Input:" " "? object`) {
		t.Errorf("the wide tool's arguments are not any object:\n%.600s", g)
	}
	if !strings.Contains(g, `call-small-args ::= "{" space "\"q\"" space ":" space string`) {
		t.Errorf("the small tool is not bound as usual:\n%.600s", g)
	}
}

func TestWritingTheConstraintsStopsWhenTheContextEnds(t *testing.T) {
	reg, err := tools.NewRegistry(wideTool("wide", 2000))
	if err != nil {
		t.Fatal(err)
	}
	set := For(reg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := set.Build(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Build with a cancelled context: %v", err)
	}
	if err := set.Build(context.Background()); err != nil || set.Step().Grammar == "" {
		t.Fatalf("Build after a cancelled one: %v, grammar %q", err, set.Step().Grammar)
	}
}

func TestTheSchemasOfManyToolsAreBoundedAllTold(t *testing.T) {
	var ts []tools.Tool
	for i := range 8 {
		// About 110 KB of schema each, in a description: a small grammar.
		ts = append(ts, schemaTool{fmt.Sprintf("wide_%d", i), `{"type":"object","properties":{"q":{"type":"string","description":"` +
			strings.Repeat("a long description ", 5800) + `"}}}`})
	}
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	set := For(reg)
	if n := len(set.Step().Schema); n > maxSchema+64<<10 {
		t.Errorf("the schema of a step is %d bytes", n)
	}
	if got := set.Narrowed(); len(got) == 0 || len(got) == len(ts) || got[len(got)-1] != "wide_7" {
		t.Errorf("narrowed %q: want the last tools only", got)
	}
}
