package parser

import "errors"

// Kind says what a Step asks the agent to do next.
type Kind string

// The kinds of Step.
const (
	// KindAction is a step that calls a tool.
	KindAction Kind = "action"
	// KindFinal is a step that ends the run with an answer.
	KindFinal Kind = "final"
)

// Step is one parsed model response: a thought and either a tool call or a
// final answer.
type Step struct {
	// Kind is KindAction or KindFinal.
	Kind Kind `json:"kind"`
	// Thought is the model's reasoning before the action or answer, possibly empty.
	Thought string `json:"thought"`
	// Action is the tool name, in the registry's canonical form when the
	// tool is registered and as written otherwise. Empty for a final answer.
	Action string `json:"action,omitempty"`
	// Args are the tool's arguments. Never nil for an action.
	Args map[string]any `json:"args,omitempty"`
	// FinalAnswer is the answer when Kind is KindFinal.
	FinalAnswer string `json:"final_answer,omitempty"`
}

// Tools is what the parser needs to know about the tools a model may call.
// The tool registry implements it; the parser hard-codes no tool.
type Tools interface {
	// ToolNames returns the canonical names of the registered tools.
	ToolNames() []string
	// ToolArgs returns the argument names a tool accepts and its primary
	// argument, onto which an input that is not an object is put. It
	// returns empty results for an unknown tool.
	ToolArgs(name string) (args []string, primary string)
	// RequiredArgs returns the names of the arguments a call of the tool
	// cannot do without. A tool with none is called with {} when the
	// model writes its name alone.
	RequiredArgs(name string) []string
}

// Sentinel causes of a parse Error, for errors.Is.
var (
	// ErrEmpty means the response was empty or blank.
	ErrEmpty = errors.New("empty response")
	// ErrNoAction means the response had a thought but neither an action nor a final answer.
	ErrNoAction = errors.New("no action or final answer")
	// ErrNoToolName means an Action label had no tool name after it, or
	// a value that names no tool: a refusal ("None needed"), a
	// placeholder ("$TOOL_NAME"), a sentence that states a plan ("I will
	// search the web"), or words longer than a name with no input after
	// them, or a value that runs into a Final Answer label on its line
	// ("Action: search Final Answer: 13 °C"). A value followed by an
	// input is otherwise a tool's name, whatever its words ("Search the
	// internet").
	ErrNoToolName = errors.New("action without a tool name")
	// ErrNoActionInput means an action had no input at all.
	ErrNoActionInput = errors.New("action without input")
	// ErrEmptyAnswer means a Final Answer label had nothing after it.
	ErrEmptyAnswer = errors.New("empty final answer")
	// ErrNotAnAnswer means a response with no labels was not an answer
	// either: a plan, a line that says the answer is known or found
	// without giving it, a bare reply to the tool gate ("Yes."), a
	// sentence cut off, or code; or that a final answer stops in the
	// middle of a sentence.
	ErrNotAnAnswer = errors.New("prose that is not an answer")
	// ErrTruncated means the server cut the reply off at its token limit
	// before the reply held a complete step (see Options.Truncated).
	ErrTruncated = errors.New("reply cut off at the token limit")
)

// Error is a response the parser could not turn into a Step. Its message is
// written for the model to read and correct itself.
type Error struct {
	// Err is one of the sentinel errors above.
	Err error
	// Message tells the model what was wrong and what to write instead.
	Message string
}

// Error returns the message for the model.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the sentinel cause.
func (e *Error) Unwrap() error { return e.Err }

// Options are what the loop knows about a reply that its text does not
// say. The zero Options is what Parse uses.
type Options struct {
	// Previous are the steps the loop ran before this reply, oldest
	// first, each with the observation the model was shown. A reply
	// that opens by copying some of them from the transcript (the
	// action, its input and the real observation) is read from what
	// follows the copy: the copy is context, not the next step.
	Previous []PastStep
	// Truncated says that the server stopped the reply at its token
	// limit (finish_reason "length", Ollama's done_reason "length"). A
	// cut reply is never an answer: it is an ErrTruncated error, unless
	// it holds an action that was complete before the cut.
	Truncated bool
}

// PastStep is a step the loop ran and the observation it showed the
// model after it.
type PastStep struct {
	Step        Step
	Observation string
}
