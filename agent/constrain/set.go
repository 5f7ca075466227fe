package constrain

import (
	"encoding/json"
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

// Patterns of the trigger of the lazy grammar, as llama.cpp's full
// patterns: the whole reply so far must match, and the grammar takes over
// at the first capturing group, the action label at the start of the reply
// or of a line.
const (
	// triggerPattern leaves a <think> block at the start of the reply
	// free: a label written inside one that is not closed yet starts
	// nothing.
	triggerPattern = `^(?:\s*<think>[\s\S]*?</think>)?(?!\s*<think>)(?:[\s\S]*?\n)?(Action:)[\s\S]*$`
	// thinkingPattern is for prompts that open the reasoning block
	// themselves: nothing starts before its end.
	thinkingPattern = `^[\s\S]*?</think>\s*(?:[\s\S]*?\n)?(Action:)[\s\S]*$`
)

// Set is the constraints of a registry's tools, made on first use and
// kept: for the steps of a run and for its forced final answer. A Set is
// safe for concurrent use; the registry must not change once it is made.
type Set struct {
	reg   *tools.Registry
	once  sync.Once
	step  *model.Constraint
	final *model.Constraint
}

// For returns the constraints of the tools in reg.
func For(reg *tools.Registry) *Set { return &Set{reg: reg} }

// Step returns the constraint of a step: a tool call with arguments that
// fit the tool, or (free in the text protocol) a final answer.
func (s *Set) Step() *model.Constraint {
	s.once.Do(s.build)
	return s.step
}

// Final returns the constraint of the final answer asked for at a limit:
// the JSON object protocol's final-answer branch alone. The text
// protocol's final answer is free: it has none.
func (s *Set) Final() *model.Constraint {
	s.once.Do(s.build)
	return s.final
}

// named is a tool's name and argument schema.
type named struct {
	name string
	args argsSchema
}

func (s *Set) build() {
	var ts []named
	if s.reg != nil {
		for _, t := range s.reg.List() {
			ts = append(ts, named{t.Name(), schemaOf(t)})
		}
	}
	s.step = &model.Constraint{Name: "react_step"}
	s.final = &model.Constraint{Name: "react_final_answer"}
	if len(ts) > 0 {
		s.step.Grammar = grammarOf(ts)
		s.step.Triggers = []model.Trigger{{Type: model.TriggerFullPattern, Value: triggerPattern}}
		s.step.ThinkingTriggers = []model.Trigger{{Type: model.TriggerFullPattern, Value: thinkingPattern}}
		s.step.Tag = tag(ts)
	}
	s.step.Schema, _ = json.Marshal(objectSchema(ts, true))
	if strict, ok := strictObjectSchema(ts, true); ok {
		s.step.StrictSchema, _ = json.Marshal(strict)
	}
	s.final.Schema, _ = json.Marshal(objectSchema(nil, true))
	strict, _ := strictObjectSchema(nil, true)
	s.final.StrictSchema, _ = json.Marshal(strict)
}

// grammarOf returns the GBNF grammar of a step of the text protocol from the
// action label on: "Action:", one of the tools' names, a line break,
// "Action Input:" and one line of JSON that fits that tool's arguments.
func grammarOf(ts []named) string {
	g := newGrammar()
	calls := make([]string, len(ts))
	for i, t := range ts {
		name := g.name("call-" + t.name)
		g.root = t.args.tree
		args := g.value(name+"-args", t.args.tree, 0)
		calls[i] = g.add(name, literal(t.name)+` " "? "\n" `+literal(InputLabel)+` " "? `+args)
	}
	g.root = nil
	root := literal(ActionLabel) + ` " "? (` + joinAlts(calls) + ")"
	g.rules = append([]string{"root ::= " + root}, g.rules...)
	return g.String()
}

func joinAlts(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += " | "
		}
		out += x
	}
	return out
}

// tag returns the structural tag of a step of the text protocol: free
// text until "Action:", which must go on as one of the tools' calls.
func tag(ts []named) *model.StructuralTag {
	st := &model.StructuralTag{Triggers: []string{ActionLabel}}
	for _, t := range ts {
		st.Structures = append(st.Structures, model.Structure{
			Begin:  ActionLabel + " " + t.name + "\n" + InputLabel + " ",
			Schema: t.args.raw,
			End:    "\n",
		})
	}
	return st
}
