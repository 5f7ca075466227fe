package model

import (
	"context"
	"fmt"
	"net/http"
)

// replayProvider answers from a cassette written by a Recorder, offline.
var replayProvider = Provider{
	Name: "replay",
	open: func(ctx context.Context, cfg Config, _ *http.Client) (opened, error) {
		if cfg.Replay == "" {
			return opened{}, &Error{Fix: SettingReplay, Err: fmt.Errorf("%w: name a cassette written by a recorded run", ErrNoCassette)}
		}
		m, err := newReplay(ctx, cfg.Replay)
		if err != nil {
			return opened{}, err
		}
		// It binds replies as the recording did, so that a replayed run
		// speaks the recorded run's protocol.
		con := &constrainer{detect: func(ctx context.Context) (Mode, string, string) {
			mode, how := m.Constraining(ctx)
			return mode, "replay", how
		}}
		return opened{model: m, con: con}, nil
	},
}
