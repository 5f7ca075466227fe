package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/tools"
)

// usageError is an error in the command line: a flag, an argument or a
// setting that cannot be used as given. Run prints it after the command's
// name and exits with status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }

// Unwrap returns the cause.
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error formatted as fmt.Errorf does, wrapping the
// errors its %w verbs name.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// errInterrupted is the error of a command stopped by Ctrl-C or SIGTERM.
var errInterrupted = errors.New("interrupted")

// interrupted returns errInterrupted when ctx was cancelled by a signal,
// and err otherwise.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// reworded is an error whose message is written again for people: the
// message of its cause was written for the model. errors.Is and errors.As
// still find the cause.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }

// Unwrap returns the cause.
func (e *reworded) Unwrap() error { return e.err }

// notRun says for people why a call of tool did not run when it needed
// confirmation: the tools' message tells the model to try another way.
func notRun(tool string, err error) error {
	switch {
	case errors.Is(err, tools.ErrNoConfirmer):
		return &reworded{tool + ": not run: the call needs your confirmation, and there is no terminal to ask on", err}
	case errors.Is(err, tools.ErrNotConfirmed):
		return &reworded{tool + ": not run: you did not allow it", err}
	}
	return err
}

// exitError is an exit status whose message was already printed.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// contradicting returns a usage error when more than one of the flags of
// fs called names is on: set to a value other than its default, on the
// command line or by a setting.
func contradicting(fs *pflag.FlagSet, names ...string) error {
	var on []string
	for _, name := range names {
		if f := fs.Lookup(name); f != nil && f.Changed && f.Value.String() != f.DefValue {
			on = append(on, "--"+name)
		}
	}
	switch len(on) {
	case 0, 1:
		return nil
	case 2:
		return usagef("%s and %s contradict each other; pass one", on[0], on[1])
	}
	return usagef("%s and %s contradict each other; pass one", strings.Join(on[:len(on)-1], ", "), on[len(on)-1])
}

// tidy drops from an error's message a label the line already shows: the
// command's name that Run prints before it ("eval: open …" after
// "react-agent eval:"), and a label said twice ("replay: replay: open
// …"), as errors wrapped at two levels say it.
func tidy(cmd, msg string) string {
	if cmd != "" {
		msg = strings.TrimPrefix(msg, cmd+": ")
	}
	if label, rest, ok := strings.Cut(msg, ": "); ok && label != "" && !strings.ContainsAny(label, " \n") && strings.HasPrefix(rest, label+": ") {
		msg = rest
	}
	return msg
}
