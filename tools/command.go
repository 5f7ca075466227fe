package tools

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"time"
)

// waitDelay is how long the output pipes of a finished or killed command
// may stay open (held by a background child) before they are closed.
const waitDelay = 500 * time.Millisecond

// commandOutput is what a command printed, each stream capped, and how it
// ended.
type commandOutput struct {
	stdout, stderr cappedBuffer
	// status is "" for success, else "exit status N" or "signal: killed".
	status string
}

// callMarker is the environment variable that marks the processes of one
// command with a random value.
const callMarker = "REACT_AGENT_TOOL_CALL"

// runCommand runs argv in a process group of its own, with the
// environment env, feeding it stdin and keeping at most max bytes of each
// output stream. When ctx ends, the whole group is killed; when the
// command ends, whatever it left running in its group is killed too, so
// no child outlives the call; nor does the group outlive this process,
// however it ends (see dieWithUs). A non-zero exit is not an error: it is
// reported in status. The error is for a command that could not start or
// was stopped by ctx.
func runCommand(ctx context.Context, argv, env []string, stdin io.Reader, max int64) (*commandOutput, error) {
	out := &commandOutput{stdout: cappedBuffer{max: max}, stderr: cappedBuffer{max: max}}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = stdin
	cmd.Stdout = &out.stdout
	cmd.Stderr = &out.stderr
	cmd.WaitDelay = waitDelay
	inOwnGroup(cmd)
	// Every process the command starts inherits the marker, so that what
	// it leaves behind can be found and killed, in its group or not.
	marker := callMarker + "=" + rand.Text()
	cmd.Env = append(slices.Clip(env), marker)
	// And its group dies with react-agent, killed or not.
	started, done := dieWithUs(cmd)
	err := cmd.Start()
	started()
	defer done()
	if err != nil {
		return nil, err
	}
	err = cmd.Wait()
	_ = killGroup(cmd) // Background children the command left behind.
	killMarked(marker) // And those that left its group.
	if ctx.Err() != nil {
		return out, fmt.Errorf("stopped, and its process group killed: %w", context.Cause(ctx))
	}
	var exit *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
	case errors.As(err, &exit):
		out.status = exit.Error()
	default:
		return out, err
	}
	return out, nil
}
