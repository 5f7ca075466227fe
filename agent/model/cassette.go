package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/tools/bounded"
)

// A cassette is a JSONL file: one Interaction a line, in the order of the
// calls. Recorded interactions hold the request; replay checks that the run
// sends the same messages. Scripted ones, written by hand, may leave the
// request out and give Expect instead: strings the last message must hold.
//
//	{"expect":["Question: What is 17 * 23 + 4?"],"response":{"content":"Thought: ...\nAction: calculator\n..."}}

// Interaction is one model call of a cassette.
type Interaction struct {
	// Request is the request as sent; replay checks the run sends the same
	// messages.
	Request *CassetteRequest `json:"request,omitempty"`
	// Expect lists strings the last message of the request must contain,
	// for scripted cassettes.
	Expect []string `json:"expect,omitempty"`
	// Response is the model's reply, when the call succeeded.
	Response *CassetteResponse `json:"response,omitempty"`
	// Error is the failure, when the call failed.
	Error *CassetteError `json:"error,omitempty"`
}

// CassetteRequest is a recorded request.
type CassetteRequest struct {
	Messages    []CassetteMessage `json:"messages"`
	Model       string            `json:"model,omitempty"`
	Stop        []string          `json:"stop,omitempty"`
	Temperature float64           `json:"temperature"`
	// Constraint is how the call bound the reply, when it did.
	Constraint *CassetteConstraint `json:"constraint,omitempty"`
}

// CassetteConstraint is the binding of a recorded call: the mode, and the
// request fields that carried it to the server.
type CassetteConstraint struct {
	Mode   Mode           `json:"mode"`
	Fields map[string]any `json:"fields"`
}

// CassetteMessage is one message of a request.
type CassetteMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// CassetteResponse is a recorded reply.
type CassetteResponse struct {
	Content   string             `json:"content"`
	Reasoning string             `json:"reasoning,omitempty"`
	ToolCalls []CassetteToolCall `json:"tool_calls,omitempty"`
	Usage     *Usage             `json:"usage,omitempty"`

	// StopReason is why the server said the reply ended, kept when it
	// stopped at its token limit ("length"): a cut reply replays as cut.
	StopReason string `json:"stop_reason,omitempty"`
}

// CassetteToolCall is a tool call of a recorded reply, in the native
// protocol.
type CassetteToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// CassetteError is a recorded failure.
type CassetteError struct {
	Message    string `json:"message"`
	StatusCode int    `json:"status_code,omitempty"`
	Temporary  bool   `json:"temporary,omitempty"`
}

// Recorder is a model that writes every call it passes on to a cassette.
type Recorder struct {
	model llms.Model
	path  string
	mu    sync.Mutex
}

// NewRecorder returns a model that passes calls to model and writes each
// to the cassette at path, which it empties first.
func NewRecorder(model llms.Model, path string) (*Recorder, error) {
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return nil, fmt.Errorf("record: cannot write the cassette: %w", err)
	}
	return &Recorder{model: model, path: path}, nil
}

// GenerateContent passes the call on and records it. A streamed call that
// the caller stopped on purpose, by returning an error from its streaming
// function, is recorded as the text streamed until then, with the
// reasoning streamed apart: replayed, it streams the same to the caller,
// who stops it at the same place.
func (r *Recorder) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	var streamed, reasoned strings.Builder
	var stopped error // what the caller's streaming function returned
	if think := o.StreamingReasoningFunc; think != nil {
		opts = append(opts, llms.WithStreamingReasoningFunc(func(ctx context.Context, reasoning, chunk []byte) error {
			reasoned.Write(reasoning)
			return think(ctx, reasoning, chunk)
		}))
	}
	if stream := o.StreamingFunc; stream != nil {
		opts = append(opts, llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
			streamed.Write(chunk)
			if err := stream(ctx, chunk); err != nil {
				stopped = err
				return err
			}
			return nil
		}))
	}
	in := Interaction{Request: cassetteRequest(msgs, opts)}
	if f, ok := r.model.(interface {
		constraintFields(context.Context, *Constraint) (Mode, map[string]any)
	}); ok {
		if mode, fields := f.constraintFields(ctx, ConstraintOf(opts)); fields != nil {
			in.Request.Constraint = &CassetteConstraint{Mode: mode, Fields: fields}
		}
	}
	resp, err := r.model.GenerateContent(ctx, msgs, opts...)
	switch {
	case err != nil && stopped != nil && errors.Is(err, stopped):
		in.Response = &CassetteResponse{Content: streamed.String(), Reasoning: reasoned.String()}
	case err != nil:
		me := Classify(ctx, err)
		in.Error = &CassetteError{Message: err.Error(), StatusCode: me.StatusCode, Temporary: me.Temporary}
	case len(resp.Choices) > 0:
		c := resp.Choices[0]
		u := UsageOf(c)
		in.Response = &CassetteResponse{Content: c.Content, Reasoning: c.ReasoningContent}
		if AtTokenLimit(c.StopReason) {
			in.Response.StopReason = c.StopReason
		}
		for _, tc := range c.ToolCalls {
			if tc.FunctionCall != nil {
				in.Response.ToolCalls = append(in.Response.ToolCalls,
					CassetteToolCall{ID: tc.ID, Name: tc.FunctionCall.Name, Arguments: tc.FunctionCall.Arguments})
			}
		}
		if u != (Usage{}) {
			in.Response.Usage = &u
		}
	}
	if werr := r.write(in); werr != nil && err == nil {
		return nil, werr
	}
	return resp, err
}

// Call implements the deprecated part of llms.Model.
func (r *Recorder) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, p, opts...)
}

// Dropped passes on the parameters the recorded model's server refused.
func (r *Recorder) Dropped() []string {
	if d, ok := r.model.(interface{ Dropped() []string }); ok {
		return d.Dropped()
	}
	return nil
}

// Constraining passes on how the recorded model's server binds replies.
func (r *Recorder) Constraining(ctx context.Context) (Mode, string) {
	return Constraining(ctx, r.model)
}

// ConstraintRefused passes on the recorded server's refusal of the
// constraint.
func (r *Recorder) ConstraintRefused() error {
	if c, ok := r.model.(Constrainer); ok {
		return c.ConstraintRefused()
	}
	return nil
}

// ContextWindow passes on the recorded model's context window.
func (r *Recorder) ContextWindow() int {
	if w, ok := r.model.(interface{ ContextWindow() int }); ok {
		return w.ContextWindow()
	}
	return 0
}

// Window passes on what the recorded model knows of its context window.
func (r *Recorder) Window(ctx context.Context) Window { return WindowOf(ctx, r.model) }

func (r *Recorder) write(in Interaction) error {
	line, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func cassetteRequest(msgs []llms.MessageContent, opts []llms.CallOption) *CassetteRequest {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	req := &CassetteRequest{Model: o.Model, Stop: o.StopWords, Temperature: o.Temperature}
	for _, m := range msgs {
		req.Messages = append(req.Messages, CassetteMessage{Role: string(m.Role), Text: MessageText(m)})
	}
	return req
}

// MessageText returns the text parts of m, joined, with the tool calls
// and tool results of the native protocol written out as text.
func MessageText(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			b.WriteString(p.Text)
		case llms.ToolCall:
			if p.FunctionCall != nil {
				fmt.Fprintf(&b, "[tool call %s] %s %s", p.ID, p.FunctionCall.Name, p.FunctionCall.Arguments)
			}
		case llms.ToolCallResponse:
			fmt.Fprintf(&b, "[tool result %s] %s", p.ToolCallID, p.Content)
		}
	}
	return b.String()
}

// Replay is a model that answers from a cassette, in order, and fails
// clearly when the run asks for something the cassette did not record.
type Replay struct {
	path  string
	items []Interaction
	mu    sync.Mutex
	next  int
}

// NewReplay reads the cassette at path: a regular file of at most
// [MaxCassette] bytes (a device or a FIFO is refused, not waited on).
func NewReplay(path string) (*Replay, error) {
	return newReplay(context.Background(), path)
}

// newReplay is NewReplay, stopped between two lines when ctx ends.
func newReplay(ctx context.Context, path string) (*Replay, error) {
	f, err := bounded.OpenFile(path, MaxCassette)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	r := &Replay{path: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("replay: %s: %w", path, err)
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var in Interaction
		if err := json.Unmarshal(line, &in); err != nil {
			return nil, fmt.Errorf("replay: %s:%d: %w", path, n, err)
		}
		if in.Response == nil && in.Error == nil {
			return nil, fmt.Errorf("replay: %s:%d: the line has neither a response nor an error", path, n)
		}
		r.items = append(r.items, in)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: %s: %w", path, err)
	}
	if len(r.items) == 0 {
		return nil, fmt.Errorf("replay: %s holds no interactions", path)
	}
	return r, nil
}

// GenerateContent answers with the cassette's next interaction, streaming
// it when asked to.
func (r *Replay) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	r.mu.Lock()
	i := r.next
	if i < len(r.items) {
		r.next++
	}
	r.mu.Unlock()
	if i >= len(r.items) {
		return nil, &Error{Provider: "replay", Fix: SettingRecord, Err: fmt.Errorf(
			"the run asked for call %d but the cassette %s holds only %d: %w", i+1, r.path, len(r.items), ErrDiverged)}
	}
	in := r.items[i]
	c := ConstraintOf(opts)
	if bound, ok := ctx.Value(constraintCtxKey).(*Constraint); ok && c == nil {
		c = bound // the constraint as a model of New passes it on
	}
	if err := r.check(i, in, msgs, c); err != nil {
		return nil, &Error{Provider: "replay", Fix: SettingRecord, Err: err}
	}
	if in.Error != nil {
		return nil, &Error{Provider: "replay", StatusCode: in.Error.StatusCode, Temporary: in.Error.Temporary,
			Err: errors.New(in.Error.Message)}
	}
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	content := in.Response.Content
	if o.StreamingReasoningFunc != nil && in.Response.Reasoning != "" {
		for _, chunk := range Chunks(in.Response.Reasoning) {
			if err := o.StreamingReasoningFunc(ctx, []byte(chunk), nil); err != nil {
				return nil, fmt.Errorf("replay: streaming: %w", err)
			}
		}
	}
	if o.StreamingFunc != nil {
		for _, chunk := range Chunks(content) {
			if err := o.StreamingFunc(ctx, []byte(chunk)); err != nil {
				return nil, fmt.Errorf("replay: streaming: %w", err)
			}
		}
	}
	info := map[string]any{}
	if u := in.Response.Usage; u != nil {
		info["PromptTokens"], info["CompletionTokens"], info["TotalTokens"] = u.PromptTokens, u.CompletionTokens, u.TotalTokens
	}
	var calls []llms.ToolCall
	for _, tc := range in.Response.ToolCalls {
		calls = append(calls, llms.ToolCall{ID: tc.ID, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content: content, ReasoningContent: in.Response.Reasoning, GenerationInfo: info, ToolCalls: calls,
		StopReason: in.Response.StopReason,
	}}}, nil
}

// check compares a request with the cassette's.
func (r *Replay) check(i int, in Interaction, msgs []llms.MessageContent, c *Constraint) error {
	diverged := func(format string, a ...any) error {
		return fmt.Errorf("call %d diverges from the cassette %s: %s: %w",
			i+1, r.path, fmt.Sprintf(format, a...), ErrDiverged)
	}
	if len(in.Expect) > 0 {
		last := ""
		if len(msgs) > 0 {
			last = MessageText(msgs[len(msgs)-1])
		}
		for _, want := range in.Expect {
			if !strings.Contains(last, want) {
				return diverged("a cassette replays only the conversation it recorded, and this prompt does not contain %q; it ends %q", want, tail(last, 120))
			}
		}
	}
	if in.Request == nil {
		return nil
	}
	if recorded := in.Request.Constraint != nil; recorded && c == nil {
		return diverged("the recording bound the reply (%s) and the run does not ask to", in.Request.Constraint.Mode)
	}
	want := in.Request.Messages
	if len(want) != len(msgs) {
		return diverged("the run sent %d messages, the recording %d", len(msgs), len(want))
	}
	for j, m := range msgs {
		got := MessageText(m)
		if string(m.Role) != want[j].Role || got != want[j].Text {
			k := 0
			for k < len(got) && k < len(want[j].Text) && got[k] == want[j].Text[k] {
				k++
			}
			return diverged("message %d (%s) differs at byte %d: the run sent %q, the recording has %q",
				j+1, m.Role, k, snippet(got, k), snippet(want[j].Text, k))
		}
	}
	return nil
}

// Constraining returns the mode the recording bound its replies in, so
// that a replayed run speaks the protocol the recorded one spoke.
func (r *Replay) Constraining(context.Context) (Mode, string) {
	for _, in := range r.items {
		if in.Request != nil && in.Request.Constraint != nil {
			return in.Request.Constraint.Mode, "as recorded in " + r.path
		}
	}
	return ModeNone, ""
}

// ConstraintRefused is nil: a replay refuses nothing.
func (r *Replay) ConstraintRefused() error { return nil }

// Call implements the deprecated part of llms.Model.
func (r *Replay) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, p, opts...)
}

// Chunks splits text into pieces the size of a few tokens, on character
// boundaries, as a server streams them.
func Chunks(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(len(text), 6)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// snippet returns the bytes of s around at, for a message.
func snippet(s string, at int) string {
	return strings.ToValidUTF8(s[max(0, at-20):min(len(s), at+40)], "")
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return snippet(s, len(s)-n+20)
}

// MaxCassette is the most read of a cassette that [NewReplay] reads:
// hours of recorded runs.
const MaxCassette = 256 << 20
