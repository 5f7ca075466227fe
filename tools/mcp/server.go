package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/react-agent/react-agent/tools"
)

const (
	// terminateWait is how long a server may take to exit once its stdin
	// is closed, and again once it is sent SIGTERM, before it is killed.
	terminateWait = 2 * time.Second
	// waitDelay is how long the stderr of an ended server may stay open,
	// held by a child it left, before it is closed.
	waitDelay = time.Second
	// endGrace is how long a failed call waits to learn whether the
	// server's connection ended with it.
	endGrace = time.Second
	// killWait bounds how long a closed server's processes, killed, may
	// take to be gone.
	killWait = 2 * time.Second
)

// environ returns the environment of a server's process: the variables
// every tool's process gets (see [tools.Environ]), then the server's own.
func environ(own map[string]string) []string {
	env := tools.Environ(nil)
	for k, v := range own {
		env = append(env, k+"="+v)
	}
	return env
}

// Bounds of a server's list of tools; MaxReply bounds its bytes.
const (
	maxTools = 1000
	maxPages = 100
)

// server is one MCP server of a [Set]: its settings and its current
// connection, which is replaced once if the server stops.
type server struct {
	cfg      Server
	client   *mcp.Client
	life     context.Context // its end kills the server's processes
	timeout  time.Duration   // of a start
	maxReply int64
	maxError int
	stderr   tail

	mu        sync.Mutex
	conn      *conn // nil once the server has stopped for good
	restarted bool
	closed    bool
	stopped   string // why the server stopped for good
}

// conn is one connection to a server: a process it runs in, or a session
// with a remote one.
type conn struct {
	sess   *mcp.ClientSession
	cmd    *exec.Cmd          // nil for a remote server
	http   *http.Client       // nil for a server that runs a command
	marker string             // NAME=value in the environment of the process and its children
	end    context.CancelFunc // kills the process group, while it runs
	done   chan struct{}      // closed when the session has ended

	// overflowed is set when a reply passed the server's MaxReply, which
	// ends the connection: live is then closed, once it is set.
	overflowed atomic.Bool
	live       atomic.Pointer[mcp.ClientSession]
}

// markerVar is the environment variable that marks the processes of one
// connection to a server that runs a command.
const markerVar = "REACT_AGENT_MCP_SERVER"

// connect starts the server's process or connects to its URL, and makes
// the MCP handshake within ctx.
func (s *server) connect(ctx context.Context) (*conn, error) {
	life, end := context.WithCancel(s.life)
	c := &conn{end: end, done: make(chan struct{})}
	var t mcp.Transport
	switch s.cfg.Transport {
	case Stdio:
		cmd := exec.CommandContext(life, s.cfg.Command, s.cfg.Args...)
		cmd.Dir = s.cfg.Dir
		// Every process the server starts inherits the marker, so that
		// what leaves its process group can be found and killed.
		c.marker = markerVar + "=" + rand.Text()
		cmd.Env = append(environ(s.cfg.Env), c.marker)
		cmd.Stderr = &s.stderr
		cmd.WaitDelay = waitDelay
		inOwnGroup(cmd)
		if errors.Is(cmd.Err, exec.ErrNotFound) {
			hint := ""
			if strings.ContainsAny(s.cfg.Command, " \t") {
				hint = `; if it holds arguments, put them in "args"`
			}
			end()
			return nil, fmt.Errorf("the command %q is not in PATH%s", s.cfg.Command, hint)
		}
		c.cmd = cmd
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateWait}
	case HTTP, SSE:
		client, err := newRemote(ctx, s.cfg.URL, s.cfg.Headers, s.maxReply, c.overflow)
		if err != nil {
			end()
			return nil, err
		}
		c.http = client
		if s.cfg.Transport == HTTP {
			t = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxEventSize: int(s.maxReply)}
		} else {
			t = &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxEventSize: int(s.maxReply)}
		}
	default:
		end()
		return nil, fmt.Errorf("unknown transport %q", s.cfg.Transport)
	}
	// A server that does not answer in time is killed at once, rather
	// than asked to stop first. The connection lives on life, not ctx:
	// the SSE transport keeps the context of Connect for its stream.
	stopKill := context.AfterFunc(ctx, end)
	sess, err := s.client.Connect(life, t, nil)
	stopKill()
	if err != nil {
		c.kill()
		switch {
		case c.overflowed.Load():
			return nil, s.tooLarge(false)
		case ctx.Err() != nil && s.life.Err() == nil:
			return nil, timeoutError(fmt.Sprintf("it did not answer within %s", s.timeout))
		case c.cmd != nil && c.cmd.ProcessState != nil && c.cmd.ProcessState.Exited():
			return nil, fmt.Errorf("it exited with %v before the MCP handshake", c.cmd.ProcessState)
		}
		return nil, err
	}
	c.sess = sess
	c.live.Store(sess)
	if c.overflowed.Load() {
		sess.Close()
	}
	go func() {
		sess.Wait()
		close(c.done)
	}()
	return c, nil
}

// overflow ends the connection, whose server sent a reply larger than
// MaxReply: the SDK would go on reading, or wait for a reply it dropped.
func (c *conn) overflow() {
	if !c.overflowed.CompareAndSwap(false, true) {
		return
	}
	if sess := c.live.Load(); sess != nil {
		go sess.Close()
	}
}

// tooLarge is the error of a reply larger than MaxReply, during a call
// or else during the start.
func (s *server) tooLarge(call bool) error {
	if !call {
		return fmt.Errorf("%w: it sent more than %s, the most react-agent reads of one reply", ErrReplyTooLarge, size(int(s.maxReply)))
	}
	return fmt.Errorf("%w: it sent more than %s, the most react-agent reads of one reply; its connection was closed: ask it for less at a time", ErrReplyTooLarge, size(int(s.maxReply)))
}

// start connects to the server and lists its tools, within the start-up
// time limit. cut says what was left out of a list that passed the bounds.
func (s *server) start(ctx context.Context) (list []*mcp.Tool, cut string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	c, err := s.connect(ctx)
	if err != nil {
		return nil, "", s.startError(err)
	}
	list, cut, err = s.list(ctx, c)
	if err != nil {
		c.close()
		switch {
		case c.overflowed.Load():
			err = s.tooLarge(false)
		case ctx.Err() != nil && s.life.Err() == nil:
			err = timeoutError(fmt.Sprintf("it did not list its tools within %s", s.timeout))
		default:
			err = fmt.Errorf("listing its tools: %w", err)
		}
		return nil, "", s.startError(err)
	}
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
	return list, cut, nil
}

// list reads the server's tools, page by page, up to maxTools tools,
// maxPages pages or maxReply bytes of tools. cut says what was left out
// when a bound was reached.
func (s *server) list(ctx context.Context, c *conn) (list []*mcp.Tool, cut string, err error) {
	params := &mcp.ListToolsParams{}
	var total int64
	for page := 1; ; page++ {
		res, err := c.sess.ListTools(ctx, params)
		if err != nil {
			return nil, "", err
		}
		for _, t := range res.Tools {
			b, _ := json.Marshal(t)
			total += int64(len(b))
			switch {
			case len(list) == maxTools:
				cut = fmt.Sprintf("more than %d tools", maxTools)
			case total > s.maxReply:
				cut = fmt.Sprintf("more than %s of tools", size(int(s.maxReply)))
			}
			if cut != "" {
				return list, s.cutWarning(cut, len(list)), nil
			}
			list = append(list, t)
		}
		if res.NextCursor == "" {
			return list, "", nil
		}
		if page == maxPages {
			return list, s.cutWarning(fmt.Sprintf("more than %d pages of tools", maxPages), len(list)), nil
		}
		params.Cursor = res.NextCursor
	}
}

// cutWarning says that the server's list of tools was cut after n tools.
func (s *server) cutWarning(why string, n int) string {
	return fmt.Sprintf("MCP server %q lists %s, more than react-agent reads; only its first %d tools are used", s.cfg.Name, why, n)
}

func (s *server) startError(err error) error {
	return &StartError{Server: s.cfg.Name, File: s.cfg.File, URL: s.cfg.URL, Err: err, Stderr: s.stderr.Lines()}
}

// ErrCallInterrupted is matched (with errors.Is) by the error of a call
// during which its server stopped: the call may have taken effect, so it
// is not made again unless the tool says it is safe to repeat
// (readOnlyHint or idempotentHint).
var ErrCallInterrupted = errors.New("the MCP server stopped during the call")

// call calls the tool the server calls name. A server whose connection
// has ended is started again first, once in the run. When the connection
// ends during the call, the call is made again on a new one only if
// repeatable says it is safe, since the server may have done what it was
// asked before it stopped.
func (s *server) call(ctx context.Context, name string, args map[string]any, repeatable bool) (*mcp.CallToolResult, error) {
	c, err := s.current()
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{} // not null: servers want an object
	}
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	res, err := c.sess.CallTool(ctx, params)
	switch {
	case err == nil || ctx.Err() != nil:
		return res, err
	case c.overflowed.Load():
		return nil, s.tooLarge(true)
	case !c.ended(err):
		return res, err
	case !repeatable:
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.restarted && s.conn == c {
			s.stop(c, fmt.Sprintf("stopped (%s) during the call, which may or may not have taken effect, and was restarted once already", c.status()))
			return nil, s.stoppedError()
		}
		return nil, s.interrupted(c)
	}
	if c, err = s.restart(c); err != nil {
		return nil, err
	}
	res, err = c.sess.CallTool(ctx, params)
	switch {
	case err == nil || ctx.Err() != nil:
		return res, err
	case c.overflowed.Load():
		return nil, s.tooLarge(true)
	case c.ended(err):
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stop(c, fmt.Sprintf("stopped (%s) during the call, and again after it was restarted", c.status()))
		return nil, s.stoppedError()
	}
	return res, err
}

// interrupted is the error of a call during which the connection c ended,
// which is not made again. The next call starts the server again.
func (s *server) interrupted(c *conn) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the MCP server %q stopped (%s) during the call, which may or may not have taken effect; it was not made again, since the tool does not say that is safe: check whether it took effect before you call it again", s.cfg.Name, c.status())
	if s.cfg.Transport == Stdio {
		writeStderr(&b, s.stderr.Lines())
	}
	return &interruptedError{msg: b.String()}
}

// interruptedError is the error of an interrupted call; it matches
// [ErrCallInterrupted].
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string        { return e.msg }
func (e *interruptedError) Is(target error) bool { return target == ErrCallInterrupted }

// current returns the server's connection, started again if it has ended
// (the request not yet sent), or the error that says the server stopped
// for good.
func (s *server) current() (*conn, error) {
	s.mu.Lock()
	c := s.conn
	if c == nil {
		defer s.mu.Unlock()
		return nil, s.stoppedError()
	}
	s.mu.Unlock()
	select {
	case <-c.done:
	default:
		if !c.overflowed.Load() {
			return c, nil
		}
	}
	return s.restart(c)
}

// restart replaces dead, the connection that ended, unless it was
// replaced meanwhile or the server was restarted once already. A
// connection that was ended for a reply too large is replaced whatever
// the count.
func (s *server) restart(dead *conn) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.conn != dead && s.conn != nil:
		return s.conn, nil // another call restarted it
	case s.conn == nil || s.closed:
		return nil, s.stoppedError()
	case s.life.Err() != nil:
		return nil, s.life.Err()
	case s.restarted && !dead.overflowed.Load():
		s.stop(dead, fmt.Sprintf("stopped (%s) and was restarted once already", dead.status()))
		return nil, s.stoppedError()
	}
	if !dead.overflowed.Load() {
		s.restarted = true
	}
	status := dead.status()
	dead.close()
	ctx, cancel := context.WithTimeout(s.life, s.timeout)
	defer cancel()
	c, err := s.connect(ctx)
	if err != nil {
		s.stop(nil, fmt.Sprintf("stopped (%s), and starting it again failed: %s", status, clip(err.Error())))
		return nil, s.stoppedError()
	}
	s.conn = c
	return c, nil
}

// stop records that the server stopped for good, and why. It is called
// with s.mu held.
func (s *server) stop(c *conn, why string) {
	if c != nil {
		c.close()
	}
	s.conn = nil
	if s.stopped == "" {
		s.stopped = why
	}
}

// stoppedError is the error of a call to a server that stopped for good.
// It is called with s.mu held.
func (s *server) stoppedError() error {
	why := s.stopped
	if s.closed && why == "" {
		why = "was closed"
	}
	return &stoppedError{server: s.cfg.Name, why: why, stderr: s.stderr.Lines(), remote: s.cfg.Transport != Stdio}
}

// close ends the server's session and process.
func (s *server) close() {
	s.mu.Lock()
	c := s.conn
	s.conn, s.closed = nil, true
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// ended reports whether the connection ended, err being the error of a
// call on it: an error the server sent back means it is still there.
func (c *conn) ended(err error) bool {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return false
	}
	select {
	case <-c.done:
		return true
	case <-time.After(endGrace):
		return false
	}
}

// status says how an ended connection ended: the exit status of its
// process, or that the remote session closed.
func (c *conn) status() string {
	<-c.done
	if c.cmd != nil && c.cmd.ProcessState != nil {
		return c.cmd.ProcessState.String()
	}
	return "its connection closed"
}

// close closes the session, which ends the server's process (closing its
// stdin, then SIGTERM, then SIGKILL), and kills what the process left
// running in its process group.
func (c *conn) close() {
	if c.sess != nil {
		c.sess.Close()
	}
	c.kill()
}

// kill kills the server's process group, if it has one, and the
// processes that left it, and waits until they are gone.
func (c *conn) kill() {
	c.end()
	if c.cmd != nil {
		killGroup(c.cmd)
		tools.KillMarked(c.marker, killWait)
	}
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
}
