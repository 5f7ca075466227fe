package agent

import (
	"github.com/react-agent/react-agent/agent/model"

	"context"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/parser"
)

// Hooks let a caller see and steer a run. The agent calls them in the
// order of the loop; an error from a hook ends the run with that error.
// Embed [NoHooks] to implement only the methods you need.
type Hooks interface {
	// BeforeModel is called before each model call.
	BeforeModel(ctx context.Context, req *ModelRequest) error
	// AfterParse is called with each model reply once it is parsed. It may
	// change reply.Step.
	AfterParse(ctx context.Context, reply *Reply) error
	// BeforeTool is called before each tool call. Its Decision allows the
	// call, denies it with a reason the model sees, or changes the
	// arguments: the tool then runs with the new ones, and the prompt, the
	// events and the result show them as the step's Action Input. It is
	// not called for a call the model repeats (see the loop's handling of
	// repeated calls), which does not run.
	BeforeTool(ctx context.Context, call *ToolCall) (Decision, error)
	// AfterTool is called after each tool call that ran. It is not called
	// for a call a hook denied, whose observation is the reason given. It
	// may change obs.Text, which is what the model is shown.
	AfterTool(ctx context.Context, call *ToolCall, obs *Observation) error
	// OnFinish is called once when the run ends, whatever the reason.
	OnFinish(ctx context.Context, res *Result)
}

// ModelRequest is a model call about to be made.
type ModelRequest struct {
	// Iteration is the loop iteration, from 1.
	Iteration int
	// Messages are the messages sent. They are valid during the call only,
	// and hooks must not change them.
	Messages []llms.MessageContent
	// Forced is true for the call that asks for a final answer after a limit.
	Forced bool
}

// Reply is a model reply and what the parser made of it.
type Reply struct {
	// Iteration is the loop iteration, from 1.
	Iteration int
	// Text is the reply as received.
	Text string
	// Reasoning is the reply's reasoning text, shown but never parsed.
	Reasoning string
	// Step is the parsed step, valid when Err is nil.
	Step parser.Step
	// Err is the parse error, usually a *parser.Error.
	Err error
	// Duration is the time the model call took, retries included.
	Duration time.Duration
	// Usage counts the call's tokens where the provider reports them.
	Usage model.Usage
	// Finish says why the reply ended, and FinishWord in the server's own
	// word, when it said.
	Finish     model.FinishReason
	FinishWord string
	// Model is the model the server says wrote the reply, or "".
	Model string
	// Server is the address of the server that answered, when known.
	Server model.Address
	// Attempts is how many times the call was made: 1 when it was not
	// made again.
	Attempts int

	content string // the native protocol's reply text, without the call
	callID  string // the native protocol's tool call ID
	rescued bool   // a native reply's call was read from its text
}

// ToolCall is a tool call the model asked for.
type ToolCall struct {
	// Iteration is the loop iteration, from 1.
	Iteration int
	// Tool is the tool's name.
	Tool string
	// Args are the arguments.
	Args map[string]any
}

// Observation is the outcome of a tool call.
type Observation struct {
	// Text is what the model is shown.
	Text string
	// Err is the tool's error, if it failed; Text then describes it.
	Err error
	// Duration is the time the call took.
	Duration time.Duration
}

// Decision is a hook's verdict on a tool call. The zero Decision allows the
// call with its arguments unchanged.
type Decision struct {
	// Deny stops the call; the model is shown Reason instead of an observation.
	Deny bool
	// Reason says why the call was denied, for the model.
	Reason string
	// Args, when not nil, replace the call's arguments.
	Args map[string]any
}

// Allow returns a Decision that lets a call run unchanged.
func Allow() Decision { return Decision{} }

// Deny returns a Decision that stops a call and shows the model reason.
func Deny(reason string) Decision { return Decision{Deny: true, Reason: reason} }

// WithArgs returns a Decision that lets a call run with args instead.
func WithArgs(args map[string]any) Decision { return Decision{Args: args} }

// NoHooks implements Hooks and does nothing. Embed it in a type that
// implements only some of the methods.
type NoHooks struct{}

// BeforeModel does nothing.
func (NoHooks) BeforeModel(context.Context, *ModelRequest) error { return nil }

// AfterParse does nothing.
func (NoHooks) AfterParse(context.Context, *Reply) error { return nil }

// BeforeTool allows the call.
func (NoHooks) BeforeTool(context.Context, *ToolCall) (Decision, error) { return Allow(), nil }

// AfterTool does nothing.
func (NoHooks) AfterTool(context.Context, *ToolCall, *Observation) error { return nil }

// OnFinish does nothing.
func (NoHooks) OnFinish(context.Context, *Result) {}

// hookList calls several Hooks in order. For BeforeTool, the first denial
// wins and argument changes carry over to the next hook.
type hookList []Hooks

func (hs hookList) BeforeModel(ctx context.Context, req *ModelRequest) error {
	for _, h := range hs {
		if err := h.BeforeModel(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

func (hs hookList) AfterParse(ctx context.Context, r *Reply) error {
	for _, h := range hs {
		if err := h.AfterParse(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

func (hs hookList) BeforeTool(ctx context.Context, call *ToolCall) (Decision, error) {
	var out Decision
	for _, h := range hs {
		d, err := h.BeforeTool(ctx, call)
		if err != nil || d.Deny {
			return d, err
		}
		if d.Args != nil {
			call.Args = d.Args
			out.Args = d.Args
		}
	}
	return out, nil
}

func (hs hookList) AfterTool(ctx context.Context, call *ToolCall, obs *Observation) error {
	for _, h := range hs {
		if err := h.AfterTool(ctx, call, obs); err != nil {
			return err
		}
	}
	return nil
}

func (hs hookList) OnFinish(ctx context.Context, res *Result) {
	for _, h := range hs {
		h.OnFinish(ctx, res)
	}
}
