package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
)

// inherited are the variables a server gets from react-agent's
// environment, as the reference MCP clients pass them: enough to find
// programs and a home folder, and no API keys meant for the model.
var inherited = map[string][]string{
	"windows": {"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"},
	"":        {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG", "LC_ALL"},
}

// environ returns the environment of a server's process: the inherited
// variables that are set, then the server's own.
func environ(own map[string]string) []string {
	names, ok := inherited[runtime.GOOS]
	if !ok {
		names = inherited[""]
	}
	var env []string
	for _, name := range names {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for k, v := range own {
		env = append(env, k+"="+v)
	}
	return env
}

// server is one MCP server of a [Set]: its settings and its current
// connection, which is replaced once if the server stops.
type server struct {
	cfg     Server
	client  *mcp.Client
	life    context.Context // its end kills the server's processes
	timeout time.Duration   // of a start
	stderr  tail

	mu        sync.Mutex
	conn      *conn // nil once the server has stopped for good
	restarted bool
	closed    bool
	stopped   string // why the server stopped for good
}

// conn is one connection to a server: a process it runs in, or a session
// with a remote one.
type conn struct {
	sess *mcp.ClientSession
	cmd  *exec.Cmd          // nil for a remote server
	end  context.CancelFunc // kills the process group, while it runs
	done chan struct{}      // closed when the session has ended
}

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
		cmd.Env = environ(s.cfg.Env)
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
	case HTTP:
		t = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient()}
	case SSE:
		t = &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient()}
	default:
		end()
		return nil, fmt.Errorf("unknown transport %q", s.cfg.Transport)
	}
	// A server that does not answer in time is killed at once, rather
	// than asked to stop first.
	stopKill := context.AfterFunc(ctx, end)
	sess, err := s.client.Connect(ctx, t, nil)
	stopKill()
	if err != nil {
		c.kill()
		switch {
		case ctx.Err() != nil && s.life.Err() == nil:
			return nil, timeoutError(fmt.Sprintf("it did not answer within %s", s.timeout))
		case c.cmd != nil && c.cmd.ProcessState != nil && c.cmd.ProcessState.Exited():
			return nil, fmt.Errorf("it exited with %v before the MCP handshake", c.cmd.ProcessState)
		}
		return nil, err
	}
	c.sess = sess
	go func() {
		sess.Wait()
		close(c.done)
	}()
	return c, nil
}

// start connects to the server and lists its tools, within the start-up
// time limit.
func (s *server) start(ctx context.Context) ([]*mcp.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	c, err := s.connect(ctx)
	if err != nil {
		return nil, s.startError(err)
	}
	var list []*mcp.Tool
	for t, err := range c.sess.Tools(ctx, nil) {
		if err != nil {
			c.close()
			if ctx.Err() != nil && s.life.Err() == nil {
				err = timeoutError(fmt.Sprintf("it did not list its tools within %s", s.timeout))
			} else {
				err = fmt.Errorf("listing its tools: %w", err)
			}
			return nil, s.startError(err)
		}
		list = append(list, t)
	}
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
	return list, nil
}

func (s *server) startError(err error) error {
	return &StartError{Server: s.cfg.Name, File: s.cfg.File, URL: s.cfg.URL, Err: err, Stderr: s.stderr.Lines()}
}

// call calls the tool the server calls name. When the server's connection
// ends during the call, the server is started again, once in the run, and
// the call made again.
func (s *server) call(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	c, err := s.current()
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{} // not null: servers want an object
	}
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	res, err := c.sess.CallTool(ctx, params)
	if err == nil || ctx.Err() != nil || !c.ended(err) {
		return res, err
	}
	if c, err = s.restart(c); err != nil {
		return nil, err
	}
	res, err = c.sess.CallTool(ctx, params)
	if err != nil && ctx.Err() == nil && c.ended(err) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stop(c, fmt.Sprintf("stopped (%s) during the call, and again after it was restarted", c.status()))
		return nil, s.stoppedError()
	}
	return res, err
}

// current returns the server's connection, or the error that says it
// stopped for good.
func (s *server) current() (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil, s.stoppedError()
	}
	return s.conn, nil
}

// restart replaces dead, the connection that ended, unless it was
// replaced meanwhile or the server was restarted once already.
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
	case s.restarted:
		s.stop(dead, fmt.Sprintf("stopped (%s) and was restarted once already", dead.status()))
		return nil, s.stoppedError()
	}
	s.restarted = true
	status := dead.status()
	dead.close()
	ctx, cancel := context.WithTimeout(s.life, s.timeout)
	defer cancel()
	c, err := s.connect(ctx)
	if err != nil {
		s.stop(nil, fmt.Sprintf("stopped (%s), and starting it again failed: %v", status, err))
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

// kill kills the server's process group, if it has one.
func (c *conn) kill() {
	c.end()
	if c.cmd != nil {
		killGroup(c.cmd)
	}
}

// httpClient returns the client of a remote server, which sends its
// headers with every request.
func (s *server) httpClient() *http.Client {
	if len(s.cfg.Headers) == 0 {
		return nil
	}
	return &http.Client{Transport: headers{base: http.DefaultTransport, h: s.cfg.Headers}}
}

// headers adds fixed headers to each request.
type headers struct {
	base http.RoundTripper
	h    map[string]string
}

func (t headers) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.h {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}
