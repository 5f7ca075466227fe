package cassette

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
)

// Recorder is a model that writes every call it passes on to a cassette.
// It passes on what its model knows of its server: how it binds replies
// (model.Constrainer), its context window (model.Windowed) and the
// parameters it refused (model.Dropper).
type Recorder struct {
	model llms.Model
	gen   model.Generator
	path  string
	mu    sync.Mutex
}

// NewRecorder returns a model that passes calls to m and writes each to
// the cassette at path, which it empties first.
func NewRecorder(m llms.Model, path string) (*Recorder, error) {
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return nil, fmt.Errorf("record: cannot write the cassette: %w", err)
	}
	return &Recorder{model: m, gen: model.AsGenerator(m), path: path}, nil
}

// Generate passes the call on and records it. A streamed call that the
// caller stopped on purpose, by returning an error from its streaming
// function, is recorded as the text streamed until then, with the
// reasoning streamed apart: replayed, it streams the same to the caller,
// who stops it at the same place.
func (r *Recorder) Generate(ctx context.Context, req model.Request) (*model.Reply, error) {
	var streamed, reasoned strings.Builder
	var stopped error // what the caller's streaming function returned
	if think := req.OnReasoning; think != nil {
		req.OnReasoning = func(ctx context.Context, chunk []byte) error {
			reasoned.Write(chunk)
			return think(ctx, chunk)
		}
	}
	if stream := req.OnText; stream != nil {
		req.OnText = func(ctx context.Context, chunk []byte) error {
			streamed.Write(chunk)
			if err := stream(ctx, chunk); err != nil {
				stopped = err
				return err
			}
			return nil
		}
	}
	in := Interaction{Request: recorded(req)}
	reply, err := r.gen.Generate(ctx, req)
	switch {
	case err != nil && stopped != nil && errors.Is(err, stopped):
		in.Response = &Response{Content: streamed.String(), Reasoning: reasoned.String()}
	case err != nil:
		me := model.Classify(ctx, err)
		in.Error = &Error{Message: err.Error(), StatusCode: me.StatusCode, Temporary: me.Temporary, Retry: me.Retry}
	default:
		in.Request.Constraint = reply.Binding
		in.Response = &Response{Content: reply.Text, Reasoning: reply.Reasoning}
		if reply.Finish == model.FinishLength {
			in.Response.StopReason = reply.FinishWord
			if in.Response.StopReason == "" {
				in.Response.StopReason = string(reply.Finish)
			}
		}
		for _, tc := range reply.ToolCalls {
			if tc.FunctionCall != nil {
				in.Response.ToolCalls = append(in.Response.ToolCalls,
					ToolCall{ID: tc.ID, Name: tc.FunctionCall.Name, Arguments: tc.FunctionCall.Arguments})
			}
		}
		if u := reply.Usage; u != (model.Usage{}) {
			in.Response.Usage = &u
		}
	}
	if werr := r.write(in); werr != nil && err == nil {
		return nil, werr
	}
	return reply, err
}

// GenerateContent is Generate for langchaingo's callers.
func (r *Recorder) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	reply, err := r.Generate(ctx, model.RequestOf(msgs, opts))
	if err != nil {
		return nil, err
	}
	return reply.Content(), nil
}

// Call implements the deprecated part of llms.Model.
func (r *Recorder) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, p, opts...)
}

// Dropped passes on the parameters the recorded model's server refused.
func (r *Recorder) Dropped() []string {
	if d, ok := r.model.(model.Dropper); ok {
		return d.Dropped()
	}
	return nil
}

// Constraining passes on how the recorded model's server binds replies.
func (r *Recorder) Constraining(ctx context.Context) (model.Mode, string) {
	return model.Constraining(ctx, r.model)
}

// ConstraintRefused passes on the recorded server's refusal of the
// constraint.
func (r *Recorder) ConstraintRefused() error {
	if c, ok := r.model.(model.Constrainer); ok {
		return c.ConstraintRefused()
	}
	return nil
}

// ContextWindow passes on the recorded model's context window.
func (r *Recorder) ContextWindow() int {
	if w, ok := r.model.(model.Windowed); ok {
		return w.ContextWindow()
	}
	return 0
}

// Window passes on what the recorded model knows of its context window.
func (r *Recorder) Window(ctx context.Context) model.Window { return model.WindowOf(ctx, r.model) }

// Describe passes on what the recorded model says of its calls.
func (r *Recorder) Describe() model.Description { return model.Describe(r.model) }

// String names the recorded model, for logs.
func (r *Recorder) String() string { return fmt.Sprint(r.model) }

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

// recorded returns what a cassette keeps of req.
func recorded(req model.Request) *Request {
	var o llms.CallOptions
	for _, opt := range req.Options {
		opt(&o)
	}
	out := &Request{Model: o.Model, Stop: req.Stop, Temperature: o.Temperature}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, Message{Role: string(m.Role), Text: model.MessageText(m)})
	}
	return out
}
