// Package event describes what happens in a run of the agent, as a stream
// of Events: each model call and each time it is made again, thought,
// action, observation, parse error, warning, and the final answer or the
// error that ends the run. The
// terminal trace (package agent/trace) and the JSON Lines of the command
// line (JSONLines) read it; so may any caller of agent.WithEvents.
package event

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
)

// Kind names what an Event reports.
type Kind string

// The kinds of Event.
const (
	// Model reports a model call about to be made, with the messages
	// sent (see [Event.Prompt]).
	Model Kind = "model"
	// Thought reports a parsed model reply: its thought and any
	// reasoning text.
	Thought Kind = "thought"
	// Action reports a tool call about to run.
	Action Kind = "action"
	// Observation reports what the model is shown after a step: the
	// tool's output, or the parser's message after a reply it could not
	// read.
	Observation Kind = "observation"
	// Final reports the final answer.
	Final Kind = "final"
	// ParseError reports a model reply the parser could not read. The
	// run goes on: the observation that follows shows the model the
	// message, unless the same mistake repeated too often ends the run.
	ParseError Kind = "parse_error"
	// Error reports the error that ends a run. It is the last event
	// of the run, and its StopReason says why the run ended.
	Error Kind = "error"
	// Warning reports something the user should know that does not
	// stop the run: a prompt near the context window, a parameter the
	// server refused.
	Warning Kind = "warning"
	// Notice reports how the run goes where nothing is amiss: that the
	// server binds each step to the tools.
	Notice Kind = "notice"
	// Retry reports a model call about to be made again after it failed:
	// Attempt, Wait and RetryReason say which attempt, after how long, and
	// why; Err is the failure, Text says it in words. Every model call
	// made again has one, and nothing else makes one again.
	Retry Kind = "retry"
)

// Event is one entry of the structured stream a run emits (see
// agent.WithEvents). Fields that do not apply to its kind are zero.
//
// Its JSON form, which the command line prints one a line (see
// [JSONLines]), is an object per event whose fields depend on its type;
// the fields shown are always present, except reasoning, which is left out
// when empty, and "turn", which a conversation's events carry after
// "type":
//
//	{"type":"model","iteration":1,"forced":false}
//	{"type":"thought","iteration":1,"text":"...","reasoning":"...","duration_ms":1200}
//	{"type":"action","iteration":1,"tool":"calculator","args":{"expression":"17*23+4"}}
//	{"type":"observation","iteration":1,"tool":"calculator","content":"395","error":false,"duration_ms":3}
//	{"type":"final","iteration":2,"answer":"...","iterations":2,"forced":false,"stop_reason":"final_answer","usage":{"prompt_tokens":900,"completion_tokens":60,"total_tokens":960},"duration_ms":800}
//	{"type":"parse_error","iteration":1,"message":"..."}
//	{"type":"error","iteration":2,"message":"...","stop_reason":"error"}
//	{"type":"warning","iteration":1,"message":"..."}
//	{"type":"notice","iteration":1,"message":"..."}
//	{"type":"retry","iteration":1,"attempt":2,"wait_ms":500,"reason":"server_error","message":"..."}
//
// The messages of a model event are left out of its JSON form: they are
// large.
type Event struct {
	// Kind says what the event reports.
	Kind Kind
	// Turn is, in a conversation (agent.Chat), the number of the question
	// the run answers, from 1; it is 0 for a single question.
	Turn int
	// Iteration is the loop iteration, from 1.
	Iteration int
	// Elapsed is the time since the run started.
	Elapsed time.Duration
	// Duration is the time of the model call (thought, final, parse error)
	// or the tool call (observation) the event follows.
	Duration time.Duration
	// Text is the thought, the observation, the answer or the message.
	Text string
	// Err is the error of an error event, of a retry, of a warning that
	// has one (a prompt near the context window, matching
	// model.ErrContextOverflow), and of an observation of a tool call that
	// failed, for errors.Is and errors.As; Text is its message, or the
	// observation.
	Err error
	// Messages are the messages of a model call. They are valid only
	// while the events function runs, which must not change them.
	Messages []llms.MessageContent
	// Reasoning is the reasoning text of a thought, a forced answer or a
	// reply that could not be parsed.
	Reasoning string
	// Tool is the tool of an action or an observation; it is empty for
	// the observation that follows a parse error.
	Tool string
	// Args are the arguments of an action.
	Args map[string]any
	// Failed marks an observation that reports an error.
	Failed bool
	// Forced marks a final answer asked for after a limit, and the model
	// call that asks for it.
	Forced bool
	// Iterations is, on the final event, the number of model calls the
	// loop made, not counting the call that asks for a forced answer.
	Iterations int
	// Usage is, on the final event, the tokens of every model call of the
	// run, where the provider reports them.
	Usage model.Usage
	// StopReason is set on the final event and on the error that ends a run.
	StopReason StopReason
	// Attempt is, on a retry event, the number of the attempt about to be
	// made: 2 for the first made again.
	Attempt int
	// Wait is, on a retry event, how long the agent waits before it.
	Wait time.Duration
	// RetryReason is, on a retry event, why the call is made again.
	RetryReason RetryReason
}

// RetryReason is why a model call is made again: model.RetryReason, under
// the name of the events that carry it.
type RetryReason = model.RetryReason

// eventHead holds the fields every event's JSON form has, and the turn
// of a conversation, which only a chat's events have.
type eventHead struct {
	Type      Kind `json:"type"`
	Turn      int  `json:"turn,omitempty"`
	Iteration int  `json:"iteration"`
}

// MarshalJSON returns the event's wire form described on [Event].
func (e Event) MarshalJSON() ([]byte, error) {
	// Encoding here leaves HTML characters alone; json.Marshal escapes
	// them again afterwards unless its caller asked it not to.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.wire()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// wire returns the value whose JSON encoding is the event's wire form.
func (e Event) wire() any {
	h := eventHead{Type: e.Kind, Turn: e.Turn, Iteration: e.Iteration}
	ms := e.Duration.Milliseconds()
	var v any
	switch e.Kind {
	case Model:
		v = struct {
			eventHead
			Forced bool `json:"forced"`
		}{h, e.Forced}
	case Thought:
		v = struct {
			eventHead
			Text       string `json:"text"`
			Reasoning  string `json:"reasoning,omitempty"`
			DurationMS int64  `json:"duration_ms"`
		}{h, e.Text, e.Reasoning, ms}
	case Action:
		args := e.Args
		if args == nil {
			args = map[string]any{}
		}
		v = struct {
			eventHead
			Tool string         `json:"tool"`
			Args map[string]any `json:"args"`
		}{h, e.Tool, args}
	case Observation:
		v = struct {
			eventHead
			Tool       string `json:"tool"`
			Content    string `json:"content"`
			Error      bool   `json:"error"`
			DurationMS int64  `json:"duration_ms"`
		}{h, e.Tool, e.Text, e.Failed, ms}
	case Final:
		v = struct {
			eventHead
			Answer     string      `json:"answer"`
			Iterations int         `json:"iterations"`
			Forced     bool        `json:"forced"`
			StopReason StopReason  `json:"stop_reason"`
			Usage      model.Usage `json:"usage"`
			DurationMS int64       `json:"duration_ms"`
		}{h, e.Text, e.Iterations, e.Forced, e.StopReason, e.Usage, ms}
	case Error:
		v = struct {
			eventHead
			Message    string     `json:"message"`
			StopReason StopReason `json:"stop_reason"`
		}{h, e.Text, e.StopReason}
	case Retry:
		v = struct {
			eventHead
			Attempt int         `json:"attempt"`
			WaitMS  int64       `json:"wait_ms"`
			Reason  RetryReason `json:"reason"`
			Message string      `json:"message"`
		}{h, e.Attempt, e.Wait.Milliseconds(), e.RetryReason, e.Text}
	default: // parse_error, warning, and kinds added later
		v = struct {
			eventHead
			Message string `json:"message"`
		}{h, e.Text}
	}
	return v
}

// JSONLines returns an events function (see agent.WithEvents) that writes each
// event to w as one line of JSON, in the form described on [Event], with
// no HTML escaping. It is safe for concurrent use. After a write fails,
// as it does when w is a closed pipe, it drops the events that follow; an
// event whose arguments cannot be encoded is dropped alone.
func JSONLines(w io.Writer) func(Event) {
	var (
		mu     sync.Mutex
		failed bool
		b      bytes.Buffer
	)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if failed {
			return
		}
		b.Reset()
		if err := enc.Encode(e.wire()); err != nil { // not e: that would encode twice
			return
		}
		if _, err := w.Write(b.Bytes()); err != nil {
			failed = true
		}
	}
}

// Prompt renders the messages of a model event as text: each message under
// a line naming its role, separated by blank lines. It is built only when
// asked for, since it grows with every step of a run.
func (e Event) Prompt() string {
	var b strings.Builder
	for i, m := range e.Messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("--- " + roleName(m.Role) + " ---\n")
		b.WriteString(model.MessageText(m))
	}
	return b.String()
}

// roleName names a message's role as chat APIs do.
func roleName(r llms.ChatMessageType) string {
	switch r {
	case llms.ChatMessageTypeHuman:
		return "user"
	case llms.ChatMessageTypeAI:
		return "assistant"
	}
	return string(r)
}

// StopReason says, in a machine-readable way, why a run ended.
type StopReason string

// The reasons a run ends.
const (
	// StopFinalAnswer means the model gave a final answer.
	StopFinalAnswer StopReason = "final_answer"
	// StopMaxIterations means the run used all its iterations.
	StopMaxIterations StopReason = "max_iterations"
	// StopTimeout means the run's time ran out.
	StopTimeout StopReason = "timeout"
	// StopRepeatedParseError means the model wrote the same unparseable
	// reply three times in a row.
	StopRepeatedParseError StopReason = "repeated_parse_error"
	// StopRepeatedCall means the model made the same tool call, with the
	// same arguments, a third time.
	StopRepeatedCall StopReason = "repeated_call"
	// StopCancelled means the caller's context was cancelled.
	StopCancelled StopReason = "cancelled"
	// StopError means a model call failed for good, or a hook or the
	// prompt template returned an error.
	StopError StopReason = "error"
)
