package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
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
