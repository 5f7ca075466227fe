package realserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
)

// Require is the environment variable that makes a missing server a
// failure rather than a skip, as CI sets it.
const Require = "REACT_AGENT_REQUIRE_SERVERS"

// The versions the package was written against; CI installs these.
const (
	LlamaServerBuild = "8355"
	OllamaVersion    = "0.24.0"
)

// A Server is a real model server running for a test.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT, without /v1.
	URL string
	// Model is the name to ask the server for the model it serves.
	Model string
	// Dir is the server's own folder: its HOME, its models, the model file.
	Dir string

	cmd  *exec.Cmd
	log  *logBuffer
	done chan struct{} // closed when the process has ended
	err  error         // how it ended, once done is closed
}

// Log returns what the server has written to its standard output and
// error so far (the last 8 MB of it).
func (s *Server) Log() string { return s.log.String() }

// WaitLog waits until the server's log holds text, or until d has passed,
// and reports whether it does.
func (s *Server) WaitLog(text string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if strings.Contains(s.Log(), text) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill kills the server and everything it started at once (SIGKILL to
// its process group), as a crash or the OOM killer would, and waits until
// it is gone. A reply being streamed ends without its end.
func (s *Server) Kill() {
	if s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-s.done
}

// Alive reports whether the server's process is still running.
func (s *Server) Alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// An Option changes the server a test gets.
type Option func(*config)

type config struct {
	model gguf.Model
	ctx   int
	name  string
	args  []string
	env   []string
	plain bool
	param []string // Modelfile PARAMETER lines, KEY VALUE
}

// Context makes the server's context window n tokens: the model declares
// it, llama-server runs with -c n, and Ollama's Modelfile sets num_ctx.
// Without it the window is 4096 tokens.
func Context(n int) Option {
	return func(c *config) { c.ctx = n }
}

// Spell makes the model spell text in reply to any prompt (see
// gguf.Model.Spell); without it the model writes random ASCII.
func Spell(text string) Option {
	return func(c *config) { c.model.Spell = text }
}

// NoTools gives the model a chat template that knows nothing of tools:
// llama-server's /props says it does not support tool calls, and Ollama
// refuses a request with tools.
func NoTools() Option {
	return func(c *config) { c.plain = true }
}

// Model serves m, as it is but for its template and context length,
// which the other options set.
func Model(m gguf.Model) Option {
	return func(c *config) { c.model = m }
}

// Name is the name the model is served under, "tiny" unless given.
func Name(name string) Option {
	return func(c *config) { c.name = name }
}

// Args adds command-line arguments to llama-server's (Ollama's serve
// takes none).
func Args(args ...string) Option {
	return func(c *config) { c.args = append(c.args, args...) }
}

// Parameter sets a parameter of the model in Ollama's Modelfile, as in
// Parameter("repeat_penalty", "1"), which a request's options still
// override (llama-server takes none: its defaults are its own).
func Parameter(key, value string) Option {
	return func(c *config) { c.param = append(c.param, key+" "+value) }
}

// Env adds environment variables, KEY=VALUE, to the server's.
func Env(env ...string) Option {
	return func(c *config) { c.env = append(c.env, env...) }
}

func configure(opts []Option) config {
	c := config{name: "tiny", ctx: 4096}
	c.model.Seed = 1
	for _, opt := range opts {
		opt(&c)
	}
	c.model.Context = max(c.model.Context, c.ctx)
	return c
}

// find returns the binary named by the environment variable env, else the
// first of the usual places that holds one; it skips or fails t when there
// is none, with what to do.
func find(t testing.TB, what, env, advice string, usual ...string) string {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		for _, p := range usual {
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				path = p
				break
			}
		}
	}
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	where := strings.Join(usual, " or ")
	if v := os.Getenv(env); v != "" {
		where = v
	}
	if os.Getenv(Require) == "1" {
		t.Fatalf("%s is 1, and %s is not at %s; %s, or set %s to the binary", Require, what, where, advice, env)
	}
	t.Skipf("%s is not at %s (%s, or set %s to the binary, to test against it)", what, where, advice, env)
	return ""
}

// root returns the project's root: the nearest folder above the working
// directory that holds go.mod.
func root() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// CacheDir returns the folder CI builds the servers in, outside the
// clone: $XDG_CACHE_HOME/react-agent, or ~/.cache/react-agent.
func CacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "react-agent")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "react-agent")
}

// freePort returns a loopback port nothing listens on, now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs cmd in a process group of its own, logging into a buffer,
// and stops it when the test ends, with its log in the test's when the
// test failed.
func start(t testing.TB, cmd *exec.Cmd, what string) *Server {
	t.Helper()
	s := &Server{cmd: cmd, log: &logBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", what, err)
	}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		if s.Alive() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(5 * time.Second):
				s.Kill()
			}
		}
		// Whatever the server started in its group goes with it.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("the log of %s:\n%s", what, tail(s.Log(), 60))
		}
	})
	return s
}

// waitReady waits until GET url answers 200, for at most d. It fails
// when the server ends first, or does not answer in time, with the end
// of its log.
func (s *Server) waitReady(url string, d time.Duration, what string) error {
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return nil
		}
		if !s.Alive() {
			return fmt.Errorf("%s ended before it was ready (%v):\n%s", what, s.err, tail(s.Log(), 40))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not ready within %v:\n%s", what, d, tail(s.Log(), 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tail returns the last n lines of text.
func tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[%d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// logBuffer keeps what a server writes, the last 8 MB of it, safe for
// concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

const maxLog = 8 << 20

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if l.b.Len() > maxLog {
		keep := l.b.Bytes()[l.b.Len()-maxLog/2:]
		l.b = *bytes.NewBuffer(append([]byte(nil), keep...))
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
