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

// borrowed is a langchaingo model as a client: Anthropic's, and the
// replay's. The call's options go to it as they were given, but for the
// options of package model, which the replay takes from the context. A
// streamed reply passes through a reply of ours, which ends it at the
// bound of the call's tokens, as the other clients do: langchaingo's
// clients gather it with += on a string, in time that grows with its
// square.
type borrowed struct{ llms.Model }

// errAtBound stops a borrowed client's stream at the bound of the reply.
var errAtBound = errors.New("the reply passed its bound")

func (b borrowed) generate(ctx context.Context, k *call) (*llms.ContentResponse, error) {
	if !k.stream() || k.maxTokens() == 0 {
		return b.GenerateContent(ctx, k.msgs, k.opts...)
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
	if r.over {
		return r.response(), nil // cut at the bound, as a server cuts one
	}
	return resp, err
}
