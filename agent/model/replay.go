package model

import (
	"context"
	"fmt"
	"net/http"
)

// replayProvider answers from a cassette written by a Recorder, offline.
var replayProvider = Provider{
	Name: "replay",
	open: func(_ context.Context, cfg Config, _ *http.Client) (opened, error) {
		if cfg.Replay == "" {
			return opened{}, &Error{Fix: "Replay", Err: fmt.Errorf("%w: name a cassette written by a recorded run", ErrNoCassette)}
		}
		m, err := NewReplay(cfg.Replay)
		return opened{model: m}, err
	},
}
