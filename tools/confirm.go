package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/react-agent/react-agent/tools/escape"
)

// ErrNotConfirmed is matched (with errors.Is) by the error [Confirm]
// returns when a tool call was not allowed to run.
var ErrNotConfirmed = errors.New("not confirmed")

// ErrNoConfirmer is matched, besides [ErrNotConfirmed], by the error of a
// call that needed confirmation when nobody could give it: no terminal to
// ask on, and no standing permission.
var ErrNoConfirmer = errors.New("nobody can confirm it")

// Confirmable is implemented by tools that must be confirmed by the user
// before each call, such as shell and plugin tools.
type Confirmable interface {
	// Confirmation returns the question to ask before running the tool
	// with args, showing exactly what will run, and whether to ask at all.
	Confirmation(args map[string]any) (prompt string, needed bool)
}

// Confirmer asks the user whether a tool call may run.
type Confirmer interface {
	// Confirm shows prompt and reports whether the user allowed the call.
	Confirm(ctx context.Context, prompt string) (bool, error)
}

// Confirm asks c about calling t with args when t is [Confirmable] and
// needs it. What in the question could pass for other text (a Cyrillic а
// in apple.com, a stack of combining marks) is shown as an escape, with a
// note, before the question's last line. It returns nil when the call may go ahead, or an error,
// matching [ErrNotConfirmed], that tells the model the call did not run.
func Confirm(ctx context.Context, c Confirmer, t Tool, args map[string]any) error {
	ct, ok := t.(Confirmable)
	if !ok {
		return nil
	}
	prompt, needed := ct.Confirmation(args)
	if !needed {
		return nil
	}
	// Letters that pass for others, and stacks of marks, are shown as
	// escapes, with a word of why before the question.
	if shown, note := escape.Unmistakable(prompt); note != "" {
		i := strings.LastIndexByte(shown, '\n') + 1
		prompt = shown[:i] + note + "\n" + shown[i:]
	}
	if c == nil {
		return fmt.Errorf("%s: %w: the call needs the user's confirmation, and %w in this run; do not retry it: try another way, or answer with what you have", t.Name(), ErrNotConfirmed, ErrNoConfirmer)
	}
	var err error
	if tc, isTC := c.(ToolConfirmer); isTC {
		ok, err = tc.ConfirmTool(ctx, t.Name(), prompt)
	} else {
		ok, err = c.Confirm(ctx, prompt)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t.Name(), err)
	}
	if !ok {
		return fmt.Errorf("%s: %w: the user declined to run it; do not retry the same call, try another way or answer with what you have", t.Name(), ErrNotConfirmed)
	}
	return nil
}

// ToolConfirmer is a Confirmer told which tool asks, so that the user may
// allow that tool for the rest of the session. [Confirm] uses ConfirmTool
// when its Confirmer has it.
type ToolConfirmer interface {
	Confirmer
	// ConfirmTool is Confirm for a call of the tool called name.
	ConfirmTool(ctx context.Context, name, prompt string) (bool, error)
}

// TerminalConfirmer asks y/N questions on a terminal.
type TerminalConfirmer struct {
	in  *os.File
	out io.Writer
	yes bool
	// isTerminal reports whether a file descriptor is a terminal.
	isTerminal func(fd int) bool
	mu         sync.Mutex
	// always holds the tools the user allowed for the session.
	always map[string]bool

	// Scope says for how long the answer "a" allows a tool, as the
	// questions put it: "in this session" when empty. Set it before the
	// first question.
	Scope string
}

// NewTerminalConfirmer returns a Confirmer that writes its questions to out
// and reads the answer from in. With yes it allows every call without
// asking. Without yes, when in is not a terminal, it refuses every call
// with an error matching [ErrNoConfirmer].
func NewTerminalConfirmer(in *os.File, out io.Writer, yes bool) *TerminalConfirmer {
	return &TerminalConfirmer{in: in, out: out, yes: yes, isTerminal: term.IsTerminal}
}

// Confirm writes prompt and a y/N hint, then waits for a line: "y" or "yes"
// (any case) allows the call, anything else (an empty line, end of input)
// refuses it. It returns early with ctx's error when ctx ends first.
func (c *TerminalConfirmer) Confirm(ctx context.Context, prompt string) (bool, error) {
	return c.ConfirmTool(ctx, "", prompt)
}

// ConfirmTool is Confirm with a third answer: "a" or "always" allows this
// call and every later call of the tool called name, without asking
// again, for as long as c is used.
func (c *TerminalConfirmer) ConfirmTool(ctx context.Context, name, prompt string) (bool, error) {
	if c.yes {
		return true, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	scope := c.Scope
	if scope == "" {
		scope = "in this session"
	}
	if name != "" && c.always[name] {
		// Not asked, but shown: what runs, and why it may.
		if _, err := fmt.Fprintf(c.out, "%s [allowed: you answered a, always %s %s]\n", prompt, name, scope); err != nil {
			return false, fmt.Errorf("showing the allowed call: %w", err)
		}
		return true, nil
	}
	if c.in == nil || !c.isTerminal(int(c.in.Fd())) {
		return false, fmt.Errorf("%w: the call needs the user's confirmation, and %w: there is no terminal to ask on; do not retry it: try another way, or answer with what you have", ErrNotConfirmed, ErrNoConfirmer)
	}
	hint := "[y/N]"
	if name != "" {
		hint = fmt.Sprintf("[y/N, or a: always %s %s]", name, scope)
	}
	if _, err := fmt.Fprintf(c.out, "%s %s ", prompt, hint); err != nil {
		return false, fmt.Errorf("asking for confirmation: %w", err)
	}
	line, err := readLineContext(ctx, c.in)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(c.out)
		return false, ctx.Err()
	case err != nil && line == "":
		fmt.Fprintln(c.out)
		if errors.Is(err, io.EOF) {
			return false, nil // End of input refuses, like N.
		}
		return false, fmt.Errorf("reading the confirmation: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	case "a", "always":
		if name == "" {
			return false, nil
		}
		if c.always == nil {
			c.always = map[string]bool{}
		}
		c.always[name] = true
		return true, nil
	}
	return false, nil
}

// readLine reads one line a byte at a time, so that nothing after the
// newline is consumed from the terminal.
func readLine(r io.Reader) (string, error) {
	var line []byte
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return string(line), nil
			}
			line = append(line, b[0])
		}
		if err != nil {
			return string(line), err
		}
	}
}
