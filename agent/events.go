package agent

import "time"

// EventKind names what an Event reports.
type EventKind string

// The kinds of Event.
const (
	// EventThought reports a parsed model reply: its thought and any
	// reasoning text.
	EventThought EventKind = "thought"
	// EventAction reports a tool call about to run.
	EventAction EventKind = "action"
	// EventObservation reports what the model is shown after a step.
	EventObservation EventKind = "observation"
	// EventFinal reports the final answer.
	EventFinal EventKind = "final"
	// EventError reports a failure: a reply that could not be parsed, a
	// failed model call, or the error that ends the run.
	EventError EventKind = "error"
	// EventWarning reports something the user should know that does not
	// stop the run: a retried model call, a prompt near the context window.
	EventWarning EventKind = "warning"
)

// Event is one entry of the structured stream a run emits (see
// [WithEvents]). Fields that do not apply to its kind are zero.
type Event struct {
	// Kind says what the event reports.
	Kind EventKind `json:"kind"`
	// Iteration is the loop iteration, from 1.
	Iteration int `json:"iteration"`
	// Elapsed is the time since the run started.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Duration is the time of the model call (thought, final) or the tool
	// call (observation) the event follows.
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Text is the thought, the observation, the answer or the message.
	Text string `json:"text,omitempty"`
	// Reasoning is the reasoning text of a thought.
	Reasoning string `json:"reasoning,omitempty"`
	// Tool and Args describe an action.
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	// Failed marks an observation that reports an error.
	Failed bool `json:"failed,omitempty"`
	// Forced marks a final answer asked for after a limit.
	Forced bool `json:"forced,omitempty"`
	// StopReason is set on the final event and on the error that ends a run.
	StopReason StopReason `json:"stop_reason,omitempty"`
}
