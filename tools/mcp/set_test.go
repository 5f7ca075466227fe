package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
	"github.com/react-agent/react-agent/tools/mcp/internal/testserver"
)

// start starts servers, and closes them when the test ends.
func start(t testing.TB, opts Options, servers ...Server) *Set {
	t.Helper()
	set, err := Start(context.Background(), servers, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return set
}

// registry returns a registry of the built-in tools and those of set.
func registry(t testing.TB, set *Set, limits tools.Limits) *tools.Registry {
	t.Helper()
	reg, err := tools.Builtins(tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range set.Tools() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	reg.SetLimits(limits)
	return reg
}

// names returns the names of the tools of set, sorted.
func names(set *Set) []string {
	var n []string
	for _, t := range set.Tools() {
		n = append(n, t.Name())
	}
	slices.Sort(n)
	return n
}

// callPid asks the test server called through tool name for its process ID.
func callPid(t *testing.T, reg *tools.Registry, name string) int {
	t.Helper()
	out, err := reg.Call(context.Background(), name, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

var serverTools = []string{"crash", "crash_once", "crash_once_idempotent", "echo", "fail", "hang", "image", "pid", "spawn"}

func prefixed(prefix string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, prefix+n)
	}
	return out
}

func TestStartNamesTools(t *testing.T) {
	tests := []struct {
		name    string
		servers []Server
		opts    Options
		want    []string
	}{
		{"one server's tools keep their names", []Server{testServer(t, "solo")}, Options{}, serverTools},
		{"a tool named like a built-in takes its server's name", []Server{testServer(t, "x", "-shadow")}, Options{},
			append(slices.Clone(serverTools), "x_calculator")},
		{"a reserved name is not taken", []Server{testServer(t, "my server")}, Options{Reserved: []string{"Echo"}},
			[]string{"crash", "crash_once", "crash_once_idempotent", "fail", "hang", "image", "my_server_echo", "pid", "spawn"}},
		{"the tools two servers share take their servers' names", []Server{testServer(t, "a"), testServer(t, "b")}, Options{},
			append(prefixed("a_", serverTools...), prefixed("b_", serverTools...)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := slices.Sorted(slices.Values(tt.want))
			if got := names(start(t, tt.opts, tt.servers...)); !slices.Equal(got, want) {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
	t.Run("two servers of one name are refused", func(t *testing.T) {
		_, err := Start(context.Background(), []Server{testServer(t, "a"), testServer(t, "a")}, Options{})
		if err == nil || !strings.Contains(err.Error(), `MCP server "a": is declared in servers.json too`) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("an allowed tool the server lacks is named with the ones it has", func(t *testing.T) {
		s := testServer(t, "a")
		s.Allow = []string{"ecoh"}
		_, err := Start(context.Background(), []Server{s}, Options{})
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), `"allow" names "ecoh", which is not one of its tools: crash, crash_once, crash_once_idempotent, echo, `) {
			t.Errorf("got %v", err)
		}
	})
}

func TestCall(t *testing.T) {
	reg := registry(t, start(t, Options{}, testServer(t, "test")), tools.Limits{})
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string // the observation, or a substring of the error
		wantErr bool
	}{
		{"text content is the observation", "echo", map[string]any{"text": "hello"}, "hello", false},
		{"arguments are converted to the schema's types", "echo", map[string]any{"text": "ab", "repeat": "3"}, "ababab", false},
		{"an image is summed up in one line", "image", nil, "a grey square\n[image image/png, 12 KB]", false},
		{"an isError result is an error with the server's message", "fail", map[string]any{"message": "no such row"}, "fail: no such row", true},
		{"the registry checks arguments against the server's schema", "echo", map[string]any{"txt": "x"}, `echo: unknown argument "txt"; expected {"text": string, "repeat": integer (optional)}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reg.Call(context.Background(), tt.tool, tt.args)
			switch {
			case tt.wantErr && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %q, %v; want an error with %q", got, err, tt.want)
			case !tt.wantErr && (err != nil || got != tt.want):
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	t.Run("a description of several lines is one paragraph", func(t *testing.T) {
		if tl, _ := reg.Get("image"); tl.Description() != "Returns a picture of 12 KiB and a caption." {
			t.Errorf("got %q", tl.Description())
		}
	})
}

func TestCallTimeout(t *testing.T) {
	reg := registry(t, start(t, Options{}, testServer(t, "test")), tools.Limits{Timeout: 300 * time.Millisecond})
	begin := time.Now()
	_, err := reg.Call(context.Background(), "hang", nil)
	if !errors.Is(err, tools.ErrTimeout) {
		t.Fatalf("got %v, want a timeout", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("the call took %s to time out after 300ms", d)
	}
	if out, err := reg.Call(context.Background(), "echo", map[string]any{"text": "still here"}); err != nil || out != "still here" {
		t.Errorf("after a timeout, echo gave %q, %v", out, err)
	}
}

func TestConfirmation(t *testing.T) {
	careful := testServer(t, "careful")
	careful.Allow = []string{"pid"}
	trusted := testServer(t, "trusted")
	trusted.Confirm = false
	set := start(t, Options{}, careful, trusted)
	tests := []struct {
		tool       string
		wantPrompt string // "" for no confirmation
	}{
		{"careful_echo", "The MCP server \"careful\" is to run its tool echo (careful_echo here) with these arguments:\n\n    {\n      \"text\": \"hi\\u001b[2J\"\n    }\n\nRun it?"},
		{"careful_pid", ""},
		{"trusted_echo", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			i := slices.IndexFunc(set.Tools(), func(x tools.Tool) bool { return x.Name() == tt.tool })
			tl := set.Tools()[i]
			prompt, needed := tl.(tools.Confirmable).Confirmation(map[string]any{"text": "hi\x1b[2J"})
			if needed != (tt.wantPrompt != "") || prompt != tt.wantPrompt {
				t.Errorf("got %v %q, want %q", needed, prompt, tt.wantPrompt)
			}
			if s := tl.(interface{ Server() string }).Server(); s != strings.Split(tt.tool, "_")[0] {
				t.Errorf("Server() = %q", s)
			}
		})
	}
}

func TestConfirmationShowsInvisibleCharacters(t *testing.T) {
	set := start(t, Options{}, testServer(t, "careful"))
	i := slices.IndexFunc(set.Tools(), func(x tools.Tool) bool { return x.Name() == "echo" })
	tl := set.Tools()[i].(tools.Confirmable)
	for _, r := range []rune{'\u200B', '\u200E', '\u200F', '\u061C', '\u2060', '\u00AD', '\uFEFF', '\u180E', '\U000E0041', '\u2066'} {
		prompt, needed := tl.Confirmation(map[string]any{"text": "rm -rf /tmp/safe" + string(r)})
		want := fmt.Sprintf(`"rm -rf /tmp/safe\u%04x"`, r)
		if r > 0xffff {
			want = fmt.Sprintf(`"rm -rf /tmp/safe\U%08x"`, r)
		}
		if !needed || escape.Hidden(prompt) != "" || !strings.Contains(prompt, want) {
			t.Errorf("%U: needed = %v, prompt:\n%q\nwant it to show %s", r, needed, prompt, want)
		}
	}
}

func TestStartFails(t *testing.T) {
	hang := testServer(t, "slow", "-hang-start")
	missing := Server{Name: "gone", Transport: Stdio, Command: "react-agent-no-such-server --flag", File: "servers.json"}
	tests := []struct {
		name    string
		server  Server
		want    []string
		timeout bool // the server is given 500ms, and does not answer
	}{
		{"a server that exits quotes its stderr, escaped", testServer(t, "broken", "-fail-start"),
			[]string{`MCP server "broken" (from servers.json) did not start: it exited with exit status 1 before the MCP handshake; the last lines of its stderr:`,
				"\n    loading the settings\n    error: the database \\x1b[31mis locked\\x1b[0m"}, false},
		{"a command not in PATH is named", missing, []string{`the command "react-agent-no-such-server --flag" is not in PATH; if it holds arguments, put them in "args"`}, false},
		{"a server that does not answer in time is given up", hang, []string{`MCP server "slow" (from servers.json) did not start: it did not answer within 500ms; it wrote nothing on stderr`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := time.Minute
			if tt.timeout {
				limit = 500 * time.Millisecond
			}
			begin := time.Now()
			_, err := Start(context.Background(), []Server{tt.server}, Options{StartTimeout: limit})
			var se *StartError
			if !errors.As(err, &se) || se.Server != tt.server.Name {
				t.Fatalf("got %v, want a *StartError for %s", err, tt.server.Name)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
			if errors.Is(err, context.DeadlineExceeded) != tt.timeout {
				t.Errorf("errors.Is(err, context.DeadlineExceeded) = %v", !tt.timeout)
			}
			if d := time.Since(begin); d > 10*time.Second {
				t.Errorf("Start took %s to fail", d)
			}
		})
	}
}

func TestRemoteServer(t *testing.T) {
	newServer := func(*http.Request) *mcp.Server { return testserver.New(testserver.Options{}) }
	tests := []struct {
		name, typ string
		handler   http.Handler
	}{
		{"streamable HTTP", "http", mcp.NewStreamableHTTPHandler(newServer, nil)},
		{"SSE, whose stream outlives the start", "sse", mcp.NewSSEHandler(newServer, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer s3cret" {
					http.Error(w, "who are you?", http.StatusUnauthorized)
					return
				}
				tt.handler.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			dir := t.TempDir()
			t.Setenv("MCP_TEST_TOKEN", "s3cret")
			servers, err := LoadConfig(writeFile(t, dir, "remote.json", `{"mcpServers": {
				"remote": {"url": "`+srv.URL+`", "type": "`+tt.typ+`", "headers": {"Authorization": "Bearer ${MCP_TEST_TOKEN}"}}}}`))
			if err != nil {
				t.Fatal(err)
			}
			reg := registry(t, start(t, Options{}, servers...), tools.Limits{})
			for _, text := range []string{"over HTTP", "and again"} {
				if out, err := reg.Call(context.Background(), "echo", map[string]any{"text": text}); err != nil || out != text {
					t.Errorf("got %q, %v", out, err)
				}
			}

			servers[0].Headers = nil
			_, err = Start(context.Background(), servers, Options{})
			var se *StartError
			if !errors.As(err, &se) || se.URL != srv.URL || !strings.Contains(err.Error(), "Unauthorized") || strings.Contains(err.Error(), "stderr") {
				t.Errorf("without its header: got %v", err)
			}
		})
	}
}

func TestClaudeDesktopFile(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "claude_desktop_config.json", `{
  "mcpServers": {
    "test": {
      "command": "`+filepath.ToSlash(exe)+`",
      "args": [],
      "env": {"`+testserver.EnvVar+`": "1", "GORACE": "atexit_sleep_ms=0"}
    }
  }
}`)
	servers, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry(t, start(t, Options{}, servers...), tools.Limits{})
	if out, err := reg.Call(context.Background(), "echo", map[string]any{"text": "from Claude's file"}); err != nil || out != "from Claude's file" {
		t.Errorf("got %q, %v", out, err)
	}
}
