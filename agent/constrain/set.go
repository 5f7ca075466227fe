package constrain

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools"
)

// Labels of the text protocol that the grammar spells out.
const (
	// ActionLabel starts the part of a step the grammar binds.
	ActionLabel = "Action:"
	// InputLabel comes before the tool's arguments.
	InputLabel = "Action Input:"
	// FinalAction is the action of a final answer in the JSON object
	// protocol.
	FinalAction = "Final Answer"
)

// Set is the constraints of a registry's tools, made on first use and
// kept: for the steps of a run and for its forced final answer. A Set is
// safe for concurrent use; the registry must not change once it is made.
type Set struct {
	reg      *tools.Registry
	mu       sync.Mutex
	built    bool
	step     *model.Constraint
	final    *model.Constraint
	narrowed []string
}

// For returns the constraints of the tools in reg.
func For(reg *tools.Registry) *Set { return &Set{reg: reg} }

// Build writes the constraints, unless they are written already. Writing
// them takes time in proportion to the tools' schemas, and stops with the
// context's error when ctx ends first; nothing is kept then, and the next
// call starts again.
func (s *Set) Build(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.built {
		return nil
	}
	if err := s.build(ctx); err != nil {
		return err
	}
	s.built = true
	return nil
}

// Step returns the constraint of a step: a tool call with arguments that
// fit the tool, or (free in the text protocol) a final answer. It writes
// the constraints first, without a deadline, when Build did not.
func (s *Set) Step() *model.Constraint {
	s.Build(context.Background())
	return s.step
}

// Final returns the constraint of the final answer asked for at a limit:
// the JSON object protocol's final-answer branch alone. The text
// protocol's final answer is free: it has none.
func (s *Set) Final() *model.Constraint {
	s.Build(context.Background())
	return s.final
}

// Narrowed returns the names of the tools whose arguments are too large
// to bind, in the order of the registry: their schemas would make the
// grammar or the schema of a step larger than a request should carry, so
// any JSON object is their arguments. The other tools are bound as usual.
func (s *Set) Narrowed() []string {
	s.Build(context.Background())
	return s.narrowed
}

// named is a tool's name and argument schema.
type named struct {
	name string
	args argsSchema
}

// maxToolSchema bounds the bytes of a tool's argument schema that go into
// the schema of a step and its structural tag: a larger one is narrowed to
// any JSON object.
// maxSchema bounds the bytes of the tools' argument schemas in the
// schema of a step, all told: the tools past it are narrowed too (Ollama
// cuts the grammar it makes of a schema at 1 MB, without a word).
const (
	maxToolSchema = 256 << 10
	maxSchema     = 768 << 10
)

func (s *Set) build(ctx context.Context) error {
	var ts []named
	narrowed := map[string]bool{}
	total := 0
	if s.reg != nil {
		for _, t := range s.reg.List() {
			args := schemaOf(t)
			if len(args.raw) > maxToolSchema || total+len(args.raw) > maxSchema {
				args, narrowed[t.Name()] = anyObject(), true
			}
			total += len(args.raw)
			ts = append(ts, named{t.Name(), args})
		}
	}
	step := &model.Constraint{Name: "react_step"}
	final := &model.Constraint{Name: "react_final_answer"}
	if len(ts) > 0 {
		g, think, over, err := grammarOf(ctx, ts)
		if err != nil {
			return err
		}
		for _, name := range over {
			narrowed[name] = true
		}
		step.Grammar, step.ThinkingGrammar = g, think
		step.Tag = tag(ts)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	step.Schema, _ = json.Marshal(objectSchema(ts, true))
	if strict, ok := strictObjectSchema(ts, true); ok {
		step.StrictSchema, _ = json.Marshal(strict)
	}
	final.Schema, _ = json.Marshal(objectSchema(nil, true))
	strict, _ := strictObjectSchema(nil, true)
	final.StrictSchema, _ = json.Marshal(strict)
	s.step, s.final, s.narrowed = step, final, nil
	for _, t := range ts {
		if narrowed[t.name] {
			s.narrowed = append(s.narrowed, t.name)
		}
	}
	return nil
}

// anyObject is the schema of arguments narrowed to any JSON object.
func anyObject() argsSchema {
	return argsSchema{raw: json.RawMessage(`{"type":"object"}`), tree: map[string]any{"type": "object"}}
}

// grammarOf returns the GBNF grammars of a step of the text protocol: a
// whole reply, free but where a line starts with the action label, which
// goes on as one of the tools' names, a line break, "Action Input:" and one
// line of JSON that fits that tool's arguments, and ends the reply (see
// replyRules); and the same reply for a prompt that opened a reasoning
// block, free until the block's end. The tools whose arguments would make
// the grammar too large (see maxToolGrammar) take any JSON object, and are
// returned as narrowed.
func grammarOf(ctx context.Context, ts []named) (grammar, thinking string, narrowed []string, err error) {
	g := newGrammar(ctx)
	action := g.name("action")
	calls := make([]string, len(ts))
	for i, t := range ts {
		name := g.name("call-" + t.name)
		mark, size := len(g.rules), g.size
		g.root, g.loops, g.over, g.limit = t.args.tree, leftRecursion(t.args.tree), false, min(size+maxToolGrammar, maxGrammar)
		args := g.value(name+"-args", t.args.tree, "", 0)
		if g.err != nil {
			return "", "", nil, g.err
		}
		if g.over {
			// Too large: the tool's rules go, and its arguments are any
			// object. Its names stay taken, which does no harm.
			g.rules, g.size, g.over = g.rules[:mark], size, false
			clear(g.refs) // the rules of $refs were the tool's own
			args = "object"
			narrowed = append(narrowed, t.name)
		}
		g.limit = maxGrammar + maxToolGrammar // the calls themselves always fit
		calls[i] = g.add(name, literal(t.name)+` " "? "\n" `+literal(InputLabel)+` " "? `+args)
	}
	if err := ctx.Err(); err != nil {
		return "", "", nil, err
	}
	g.root, g.loops = nil, nil
	g.add(action, literal(ActionLabel)+` " "? (`+strings.Join(calls, " | ")+")")
	reply, think := g.replyRules(action)
	rules := g.String()
	return "root ::= " + reply + "\n" + rules, "root ::= " + think + "\n" + rules, narrowed, nil
}

// tag returns the structural tag of a step of the text protocol: free
// text until "Action:", which must go on as one of the tools' calls.
func tag(ts []named) *model.StructuralTag {
	st := &model.StructuralTag{Triggers: []string{ActionLabel}}
	for _, t := range ts {
		schema := t.args.raw
		if loops := leftRecursion(t.args.tree); len(loops) > 0 {
			if s, err := rewriteSchema(schema, "#", loops, false); err == nil {
				schema = s
			}
		}
		st.Structures = append(st.Structures, model.Structure{
			Begin:  ActionLabel + " " + t.name + "\n" + InputLabel + " ",
			Schema: schema,
			End:    "\n",
		})
	}
	return st
}
