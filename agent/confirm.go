package agent

import (
	"context"
	"errors"

	"github.com/react-agent/react-agent/tools"
)

// Confirmation returns hooks that ask c before each call of a tool that
// needs confirmation (a tools.Confirmable such as the shell and plugin
// tools). A refused call is not run, and the model is told why. The CLI
// passes tools.NewTerminalConfirmer(os.Stdin, os.Stderr, yes).
func Confirmation(reg *tools.Registry, c tools.Confirmer) Hooks {
	return confirmHooks{reg: reg, c: c}
}

type confirmHooks struct {
	NoHooks
	reg *tools.Registry
	c   tools.Confirmer
}

func (h confirmHooks) BeforeTool(ctx context.Context, call *ToolCall) (Decision, error) {
	t, args, err := h.reg.Prepare(call.Tool, call.Args)
	if err != nil {
		return Allow(), nil // the registry tells the model what is wrong
	}
	err = tools.Confirm(ctx, h.c, t, args)
	switch {
	case err == nil:
		return Allow(), nil
	case ctx.Err() != nil:
		return Decision{}, err
	case errors.Is(err, tools.ErrNotConfirmed):
		return Deny(err.Error()), nil
	}
	return Decision{}, err
}
