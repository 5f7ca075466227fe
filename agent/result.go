package agent

import (
	"github.com/react-agent/react-agent/agent/event"

	"github.com/react-agent/react-agent/agent/model"

	"time"

	"github.com/react-agent/react-agent/parser"
)

// Result is what a run produced.
type Result struct {
	// Question is the question the run answered.
	Question string `json:"question"`
	// Answer is the final answer, empty when the run ended without one.
	Answer string `json:"answer"`
	// Steps are the steps of the run in order, the final answer included.
	Steps []Step `json:"steps"`
	// Iterations is the number of model calls the loop made, not counting
	// the call that asks for a forced answer.
	Iterations int `json:"iterations"`
	// ModelCalls is the number of model calls that returned a reply, the
	// call that asks for a forced answer included: the calls whose tokens
	// Usage adds up.
	ModelCalls int `json:"model_calls"`
	// StopReason says why the run ended.
	StopReason event.StopReason `json:"stop_reason"`
	// Forced is true when the answer was asked for after a limit was
	// reached, rather than given by the model on its own.
	Forced bool `json:"forced"`
	// Usage adds up the tokens of every model call, where the provider
	// reports them.
	Usage model.Usage `json:"usage"`
	// Model is the model the server says wrote the last reply (see
	// model.Reply), or "" when it did not say.
	Model string `json:"model,omitempty"`
	// Duration is the wall time of the run.
	Duration time.Duration `json:"duration_ns"`
	// FellBack reports that the run went on with the fallback template
	// (see WithFallbackTemplate), its first prompt being longer than the
	// model's context window.
	FellBack bool `json:"fell_back,omitempty"`
	// ParseErrors counts the replies the parser could not read.
	ParseErrors int `json:"parse_errors"`
	// Recovered counts the text-protocol replies the tolerant parser read
	// though they were not in the protocol's canonical form.
	Recovered int `json:"recovered"`
	// Rescued counts the native-protocol replies whose tool call was
	// written in the text instead of the tool-call field.
	Rescued int `json:"rescued"`
}

// Step is one model reply and what came of it.
type Step struct {
	// Iteration numbers the step from 1.
	Iteration int `json:"iteration"`
	// Kind is parser.KindAction or parser.KindFinal, and empty for a reply
	// that could not be parsed.
	Kind parser.Kind `json:"kind,omitempty"`
	// Thought is the model's reasoning before its action or answer.
	Thought string `json:"thought,omitempty"`
	// Reasoning is the text a reasoning model wrote inside <think>…</think>
	// or reported apart; it is never parsed as protocol.
	Reasoning string `json:"reasoning,omitempty"`
	// Action is the tool called.
	Action string `json:"action,omitempty"`
	// Args are the arguments the tool was called with, after any hook
	// changed them.
	Args map[string]any `json:"args,omitempty"`
	// Observation is what the model was shown after the step: the tool's
	// output, or an error written for the model.
	Observation string `json:"observation,omitempty"`
	// Error is set when the step failed: a parse error, an unknown tool,
	// bad arguments, a tool error or a denied call.
	Error string `json:"error,omitempty"`
	// Answer is the final answer of a final step.
	Answer string `json:"answer,omitempty"`
	// Reply is the model's text as received.
	Reply string `json:"reply"`
	// ModelDuration is the time the model call took, retries included.
	ModelDuration time.Duration `json:"model_duration_ns"`
	// ToolDuration is the time the tool call took.
	ToolDuration time.Duration `json:"tool_duration_ns,omitempty"`
	// Usage counts the tokens of this step's model call.
	Usage model.Usage `json:"usage"`
}
