package model

import (
	"context"
	"fmt"
	"net/http"
)

// openReplay refuses to open the replay provider, whose models answer from
// a cassette: package cassette opens them (cassette.Open).
func openReplay(context.Context, Resolved, Config, *http.Client) (opened, error) {
	return opened{}, &Error{Fix: SettingReplay, Err: fmt.Errorf("%w: the replay provider answers from a cassette, which package cassette opens", ErrNoCassette)}
}
