package model

import (
	"context"
	"errors"
	"sync"
)

// ErrNoToolCalls means the server says the model takes no tool
// definitions: llama-server's /props, for a chat template without tool
// support, whose calls with tools it answers in text, dropping the tools
// without a word. A call with tools then fails with this error rather
// than be sent.
var ErrNoToolCalls = errors.New("the server does not support tools for this model: its chat template takes no tool definitions")

// toolSupport finds, once, whether a server takes tool definitions.
type toolSupport struct {
	// check reports whether the server takes tools, and whether it could
	// tell.
	check func(ctx context.Context) (supported, known bool)

	mu        sync.Mutex
	done      bool
	supported bool
	known     bool
}

// refuses reports whether the server is known to take no tools. It asks
// the server the first time; a look that the context cut short is asked
// again.
func (t *toolSupport) refuses(ctx context.Context) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		t.supported, t.known = t.check(ctx)
		t.done = ctx.Err() == nil
	}
	return t.known && !t.supported
}
