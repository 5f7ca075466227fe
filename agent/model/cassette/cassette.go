// Package cassette records the model calls of a run to a file, and
// answers a run from one, offline: a Recorder wraps a model, a Replay
// stands for one. Both are model.Generators and llms.Models; the command
// line composes them with the models of package model.
//
// A cassette is a JSONL file: one Interaction a line, in the order of the
// calls. Recorded interactions hold the request; a replay checks that the
// run sends the same messages. Scripted ones, written by hand, may leave
// the request out and give Expect instead: strings the last message must
// hold.
//
//	{"expect":["Question: What is 17 * 23 + 4?"],"response":{"content":"Thought: ...\nAction: calculator\n..."}}
package cassette

import (
	"github.com/react-agent/react-agent/agent/model"
)

// Interaction is one model call of a cassette.
type Interaction struct {
	// Request is the request as sent; replay checks the run sends the same
	// messages.
	Request *Request `json:"request,omitempty"`
	// Expect lists strings the last message of the request must contain,
	// for scripted cassettes.
	Expect []string `json:"expect,omitempty"`
	// Response is the model's reply, when the call succeeded.
	Response *Response `json:"response,omitempty"`
	// Error is the failure, when the call failed.
	Error *Error `json:"error,omitempty"`
}

// Request is a recorded request.
type Request struct {
	Messages    []Message `json:"messages"`
	Model       string    `json:"model,omitempty"`
	Stop        []string  `json:"stop,omitempty"`
	Temperature float64   `json:"temperature"`
	// Constraint is how the call bound the reply, when it did.
	Constraint *model.Binding `json:"constraint,omitempty"`
}

// Message is one message of a request.
type Message struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// Response is a recorded reply.
type Response struct {
	Content   string       `json:"content"`
	Reasoning string       `json:"reasoning,omitempty"`
	ToolCalls []ToolCall   `json:"tool_calls,omitempty"`
	Usage     *model.Usage `json:"usage,omitempty"`

	// StopReason is why the server said the reply ended, kept when it
	// stopped at its token limit ("length"): a cut reply replays as cut.
	StopReason string `json:"stop_reason,omitempty"`
}

// ToolCall is a tool call of a recorded reply, in the native protocol.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Error is a recorded failure.
type Error struct {
	Message    string `json:"message"`
	StatusCode int    `json:"status_code,omitempty"`
	Temporary  bool   `json:"temporary,omitempty"`
	// Retry is why the call was worth making again, when it was: a replay
	// makes it again as the recorded run did, at once for a parameter the
	// server refused.
	Retry model.RetryReason `json:"retry,omitempty"`
}

// MaxCassette is the most read of a cassette that Open reads: hours of
// recorded runs.
const MaxCassette = 256 << 20
