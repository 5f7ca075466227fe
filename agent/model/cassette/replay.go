package cassette

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools/bounded"
)

// provider is the name a replay's errors give as their provider's.
const provider = "replay"

// Replay is a model that answers from a cassette, in order, and fails
// clearly when the run asks for something the cassette did not record.
// It binds replies as the recording did (model.Constrainer), so that a
// replayed run speaks the recorded run's protocol.
type Replay struct {
	path  string
	items []Interaction
	mu    sync.Mutex
	next  int
}

// Open reads the cassette at path: a regular file of at most MaxCassette
// bytes (a device or a FIFO is refused, not waited on), read line by line
// until ctx ends.
func Open(ctx context.Context, path string) (*Replay, error) {
	if path == "" {
		return nil, &model.Error{Provider: provider, Fix: model.SettingReplay,
			Err: fmt.Errorf("%w: name a cassette written by a recorded run", model.ErrNoCassette)}
	}
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

// Generate answers with the cassette's next interaction, streaming it
// when asked to.
func (r *Replay) Generate(ctx context.Context, req model.Request) (*model.Reply, error) {
	r.mu.Lock()
	i := r.next
	if i < len(r.items) {
		r.next++
	}
	r.mu.Unlock()
	if i >= len(r.items) {
		return nil, &model.Error{Provider: provider, Fix: model.SettingRecord, Err: &DivergedError{Path: r.path, Call: i + 1,
			Difference: fmt.Sprintf("the cassette holds only %s", plural(len(r.items), "call", "calls"))}}
	}
	in := r.items[i]
	if err := r.check(i, in, req.Messages, req.Constraint); err != nil {
		return nil, &model.Error{Provider: provider, Fix: model.SettingRecord, Err: err}
	}
	if in.Error != nil {
		return nil, &model.Error{Provider: provider, StatusCode: in.Error.StatusCode, Temporary: in.Error.Temporary,
			Retry: in.Error.Retry, Err: errors.New(in.Error.Message)}
	}
	resp := in.Response
	if fn := req.OnReasoning; fn != nil && resp.Reasoning != "" {
		for _, chunk := range model.Chunks(resp.Reasoning) {
			if err := fn(ctx, []byte(chunk)); err != nil {
				return nil, fmt.Errorf("replay: streaming: %w", err)
			}
		}
	}
	if fn := req.OnText; fn != nil {
		for _, chunk := range model.Chunks(resp.Content) {
			if err := fn(ctx, []byte(chunk)); err != nil {
				return nil, fmt.Errorf("replay: streaming: %w", err)
			}
		}
	}
	reply := &model.Reply{Text: resp.Content, Reasoning: resp.Reasoning, Finish: model.Finish(resp.StopReason),
		FinishWord: resp.StopReason}
	if in.Request != nil {
		reply.Binding = in.Request.Constraint
	}
	if u := resp.Usage; u != nil {
		reply.Usage = *u
	}
	for _, tc := range resp.ToolCalls {
		reply.ToolCalls = append(reply.ToolCalls, llms.ToolCall{ID: tc.ID, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
	}
	return reply, nil
}

// GenerateContent is Generate for langchaingo's callers.
func (r *Replay) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	reply, err := r.Generate(ctx, model.RequestOf(msgs, opts))
	if err != nil {
		return nil, err
	}
	return reply.Content(), nil
}

// Call implements the deprecated part of llms.Model.
func (r *Replay) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, p, opts...)
}

// check compares a request with the cassette's.
func (r *Replay) check(i int, in Interaction, msgs []llms.MessageContent, c *model.Constraint) error {
	if err := r.differs(i, in, msgs, c); err != nil {
		return err
	}
	return nil
}

// differs returns how a request differs from the cassette's, or nil.
func (r *Replay) differs(i int, in Interaction, msgs []llms.MessageContent, c *model.Constraint) *DivergedError {
	diverged := func(format string, a ...any) *DivergedError {
		return &DivergedError{Path: r.path, Call: i + 1, Difference: fmt.Sprintf(format, a...)}
	}
	if len(in.Expect) > 0 {
		last := ""
		if len(msgs) > 0 {
			last = model.MessageText(msgs[len(msgs)-1])
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
		got := model.MessageText(m)
		if string(m.Role) != want[j].Role || got != want[j].Text {
			k := 0
			for k < len(got) && k < len(want[j].Text) && got[k] == want[j].Text[k] {
				k++
			}
			d := diverged("in message %d (%s), at byte %d, the run sent %q where the recording has %q",
				j+1, m.Role, k, snippet(got, k), snippet(want[j].Text, k))
			d.Message, d.Role = j+1, string(m.Role)
			return d
		}
	}
	return nil
}

// Constraining returns the mode the recording bound its replies in, so
// that a replayed run speaks the protocol the recorded one spoke.
func (r *Replay) Constraining(context.Context) (model.Mode, string) {
	for _, in := range r.items {
		if in.Request != nil && in.Request.Constraint != nil {
			return in.Request.Constraint.Mode, "as recorded in " + r.path
		}
	}
	return model.ModeNone, ""
}

// ConstraintRefused is nil: a replay refuses nothing.
func (r *Replay) ConstraintRefused() error { return nil }

// Describe says that a replay answers from a cassette, with no server.
func (r *Replay) Describe() model.Description { return model.Description{Provider: "replay"} }

// String names the cassette, for logs.
func (r *Replay) String() string { return "replay of " + r.path }

// DivergedError is a call of a replayed run that its cassette did not
// record: the run sent other than the recorded run did, or asked for
// more calls than it made. It matches model.ErrDiverged.
type DivergedError struct {
	// Path is the cassette's.
	Path string
	// Call is the call of the run, counted from 1.
	Call int
	// Difference says how the call differs from the recording, in words:
	// "in message 1 (system), at byte 556, the run sent "…" where the
	// recording has "…"", "the cassette holds only 4 calls".
	Difference string
	// Message is the message that differs, counted from 1, and Role its
	// role ("system", "human"); 0 and "" when the difference is not of
	// one message.
	Message int
	Role    string
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("call %d diverges from the cassette %s: %s", e.Call, e.Path, e.Difference)
}

// Is reports whether target is model.ErrDiverged.
func (e *DivergedError) Is(target error) bool { return target == model.ErrDiverged }

// plural says n of a thing: "1 call", "4 calls".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
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
