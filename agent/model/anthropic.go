package model

import (
	"context"
	"fmt"
	"net/http"

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
// options of package model, which the replay takes from the context.
type borrowed struct{ llms.Model }

func (b borrowed) generate(ctx context.Context, k *call) (*llms.ContentResponse, error) {
	return b.GenerateContent(ctx, k.msgs, k.opts...)
}
