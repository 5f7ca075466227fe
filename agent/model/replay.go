package model

import (
	"context"
	"fmt"
	"net/http"
)

// openReplay opens the cassette of a recorded run, which answers offline.
func openReplay(ctx context.Context, _ Resolved, cfg Config, _ *http.Client) (opened, error) {
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
	return opened{client: borrowed{m}, con: con, images: true}, nil
}
