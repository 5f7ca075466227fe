package cli

import (
	"context"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/model/cassette"
)

// cassetteFlags are --record and --replay: the cassette a run writes its
// model calls to, and the one the replay provider answers from.
type cassetteFlags struct {
	record, replay string
}

// openModel returns the model cfg names, composed with the cassettes of
// c: answered from c.replay for the replay provider, and recorded to
// c.record when given.
func openModel(ctx context.Context, cfg model.Config, c cassetteFlags) (llms.Model, error) {
	var m llms.Model
	var err error
	if cfg.Provider == "replay" {
		m, err = cassette.Open(ctx, c.replay)
	} else {
		m, err = model.New(ctx, cfg)
	}
	if err != nil {
		return nil, err
	}
	if c.record == "" {
		return m, nil
	}
	return recorded(m, c.record)
}

// recorded returns m, writing every call it makes to the cassette at
// path.
func recorded(m llms.Model, path string) (llms.Model, error) {
	rec, err := cassette.NewRecorder(m, path)
	if err != nil {
		return nil, err
	}
	return rec, nil
}
