package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
)

// openAnthropic opens Anthropic's API through langchaingo's client.
func openAnthropic(_ context.Context, r Resolved, _ Config, hc *http.Client) (opened, error) {
	if r.Key == "" {
		return opened{}, &Error{Fix: SettingAPIKey, Err: fmt.Errorf("%w: set %s", ErrNoAPIKey, r.Provider.KeyEnv)}
	}
	m, err := anthropic.New(anthropic.WithModel(r.Model), anthropic.WithToken(r.Key), anthropic.WithHTTPClient(doer{hc}),
		anthropic.WithBaseURL(r.URL))
	return opened{client: borrowed{m}, images: true}, err
}

// borrowed is a langchaingo model as a client: Anthropic's. The call's
// options go to it as they were given. A streamed reply passes through a reply of ours, which ends it at the
// bound of the call's tokens, as the other clients do: langchaingo's
// clients gather it with += on a string, in time that grows with its
// square.
type borrowed struct{ llms.Model }

// errAtBound stops a borrowed client's stream at the bound of the reply.
var errAtBound = errors.New("the reply passed its bound")

func (b borrowed) generate(ctx context.Context, k *call) (*Reply, error) {
	if !k.stream() || k.maxTokens() == 0 {
		resp, err := b.GenerateContent(ctx, k.msgs, k.opts...)
		if err != nil {
			return nil, err
		}
		if len(resp.Choices) == 0 || resp.Choices[0] == nil {
			return nil, &Error{Err: errNoReply, Temporary: true, Retry: RetryNoReply}
		}
		return ReplyOf(resp.Choices[0]), nil
	}
	r := newReply(k, k.maxTokens())
	pass := func(ctx context.Context, p piece) error {
		if err := r.add(ctx, p); err != nil {
			return err
		}
		if r.over {
			return errAtBound
		}
		return nil
	}
	opts := append(slices.Clip(k.opts),
		llms.WithStreamingFunc(func(ctx context.Context, text []byte) error { return pass(ctx, piece{text: string(text)}) }))
	if k.o.StreamingReasoningFunc != nil {
		opts = append(opts, llms.WithStreamingReasoningFunc(func(ctx context.Context, reasoning, _ []byte) error {
			return pass(ctx, piece{reasoning: string(reasoning)})
		}))
	}
	resp, err := b.GenerateContent(ctx, k.msgs, opts...)
	switch {
	case r.over:
		return r.result(), nil // cut at the bound, as a server cuts one
	case err != nil:
		return nil, err
	case len(resp.Choices) == 0 || resp.Choices[0] == nil:
		return nil, &Error{Err: errNoReply, Temporary: true, Retry: RetryNoReply}
	}
	return ReplyOf(resp.Choices[0]), nil
}

// hint says nothing more of an error: langchaingo's client knows nothing
// more of its server.
func (borrowed) hint(context.Context, *Error) {}

// info says nothing of the window: langchaingo's client knows nothing of
// it.
func (borrowed) info(context.Context) Window { return Window{} }
