package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/agent/constrain"
	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
)

// Constrain says whether the steps of a text-protocol run are bound to the
// registered tools by the model's server as it samples them.
type Constrain string

const (
	// ConstrainOff binds nothing: the requests are what they are without.
	ConstrainOff Constrain = "off"
	// ConstrainAuto binds where the text protocol stays as it is:
	// llama.cpp's grammar, vLLM's and SGLang's structural tags. Elsewhere it binds
	// nothing and says nothing.
	ConstrainAuto Constrain = "auto"
	// ConstrainOn binds wherever the server can, also where that means
	// the JSON object protocol, bound by a JSON schema (Ollama, LM
	// Studio, OpenAI); a run on a server that cannot fails with an error
	// that matches model.ErrCannotConstrain.
	ConstrainOn Constrain = "on"
)

// WithConstrain sets whether the model's server binds the steps of a
// text-protocol run to the tools (default ConstrainOff). The constraints
// are written once per agent from its registry (package agent/constrain);
// the native protocol is never constrained.
func WithConstrain(c Constrain) Option {
	return func(o *options) {
		if c != "" {
			o.constrain = c
		}
	}
}

// binding is how a run binds its steps.
type binding struct {
	step, final *model.Constraint
	object      bool // the JSON object protocol
	refused     bool // the server's refusal was reported
}

// bind finds how the run's steps are bound, and the template of the
// protocol that goes with it; it says so once in the trace.
func (r *runState) bind(ctx context.Context, iter int) (*prompt.Template, error) {
	a := r.a
	if a.opts.constrain == ConstrainOff || a.opts.constrain == "" || a.constraints == nil {
		return a.template(), nil
	}
	mode, how := model.Constraining(ctx, a.model)
	switch {
	case mode == model.ModeNone && a.opts.constrain == ConstrainOn:
		return nil, fmt.Errorf("agent: %w: %s", model.ErrCannotConstrain, a.model)
	case mode == model.ModeNone, mode == model.ModeSchema && a.opts.constrain != ConstrainOn:
		return a.template(), nil
	}
	if err := a.constraints.Build(ctx); err != nil {
		return nil, fmt.Errorf("agent: writing the constraints of the tools: %w", err)
	}
	r.bound = &binding{step: a.constraints.Step(), object: !mode.Text()}
	what := "the tool name and its arguments are bound by " + how + "; the thought stays free"
	tmpl := a.template()
	if r.bound.object {
		r.bound.final = a.constraints.Final()
		tmpl = tmpl.Object()
		what = "each step is bound to a tool and its arguments, or a final answer, by " + how
	}
	if a.saidBinding.CompareAndSwap(false, true) {
		r.emit(event.Event{Kind: event.Notice, Iteration: iter, Text: "constrained: " + what})
		if n := a.constraints.Narrowed(); len(n) > 0 {
			r.emit(event.Event{Kind: event.Warning, Iteration: iter, Text: fmt.Sprintf(
				"the arguments of %s are not bound: the schema is too large to carry in every request; any JSON object is taken",
				strings.Join(n, ", "))})
		}
	}
	return tmpl, nil
}

// constraint returns the constraint of the next call, or nil.
func (r *runState) constraint(forced bool) *model.Constraint {
	switch {
	case r.bound == nil:
		return nil
	case forced:
		return r.bound.final
	}
	return r.bound.step
}

// warnRefused says once a run that the server refused the constraint, and
// that the calls go without it since.
func (r *runState) warnRefused(iter int) {
	if r.bound == nil || r.bound.refused {
		return
	}
	c, ok := r.a.model.(model.Constrainer)
	if !ok {
		return
	}
	if err := c.ConstraintRefused(); err != nil {
		r.bound.refused = true
		r.emit(event.Event{Kind: event.Warning, Iteration: iter, Err: err,
			Text: "the server refused the constraint (" + model.Brief(err) + "); calls are made without it: replies are read as they come"})
	}
}

// constraintsFor returns the constraints of the agent's registry, or nil
// when the agent binds nothing.
func constraintsFor(o options, a *Agent) *constrain.Set {
	if o.constrain == ConstrainOff || o.constrain == "" || o.protocol == ProtocolNative {
		return nil
	}
	return constrain.For(a.reg)
}

// canonical reports whether a text-protocol reply is in its protocol's
// canonical form: labelled lines (see prompt.Canonical), or in the JSON
// object protocol one JSON object of "thought", "action" and
// "action_input".
func (r *runState) canonical(reply *Reply) bool {
	if r.bound == nil || !r.bound.object {
		return prompt.Canonical(reply.Text, reply.Step)
	}
	_, visible := parser.SplitReasoning(reply.Text)
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(strings.TrimSpace(visible)), &obj) != nil || len(obj) != 3 {
		return false
	}
	for _, k := range []string{"thought", "action", "action_input"} {
		if _, ok := obj[k]; !ok {
			return false
		}
	}
	return true
}

// objectFormat is the JSON object protocol in short, for the first
// correction of a run.
const objectFormat = `The format of a reply, one JSON object: {"thought": "<your reasoning>", "action": "<tool name, or Final Answer>", "action_input": <the tool's arguments as a JSON object, or the answer>}`

// objectCorrection is what the model is told, in the words of the JSON
// object protocol, of a reply the agent could not use: the parser's
// messages speak of the text protocol's labels.
func (a *Agent) objectCorrection(err error) string {
	switch {
	case errors.Is(err, parser.ErrTruncated):
		return `Your reply was cut off: it reached the length limit of one reply before it ended, so none of it was used. ` +
			`Write the step again, shorter: a "thought" of a sentence or two. If the answer itself is long, give it more briefly.`
	case errors.Is(err, parser.ErrEmpty):
		return `Your reply was empty. Reply with one JSON object of "thought", "action" and "action_input".`
	case errors.Is(err, parser.ErrNoToolName):
		var names []string
		for _, t := range a.reg.List() {
			names = append(names, t.Name())
		}
		return fmt.Sprintf(`The "action" of your reply names no tool. Write there one of [%s], with the tool's arguments as "action_input", `+
			`or "Final Answer", with the answer as "action_input".`, strings.Join(names, ", "))
	case errors.Is(err, parser.ErrNoActionInput):
		return `Your reply has no "action_input". Write the tool's arguments there, as a JSON object.`
	case errors.Is(err, parser.ErrEmptyAnswer):
		return `Your reply has "action": "Final Answer" but no answer. Write the answer itself as "action_input".`
	}
	return `Your reply is not one whole JSON object of "thought", "action" and "action_input". Reply with exactly one such object, and nothing else.`
}
