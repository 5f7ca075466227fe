package mcp

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/tools/mcp/internal/hostile"
	"github.com/react-agent/react-agent/tools/mcp/internal/testserver"
)

// hostileVar is the environment variable that makes a test binary serve
// a hostile MCP server over HTTP instead of running its tests, for
// measuring react-agent against it: ATTACK[,SIZE],ADDRESS, such as
// endless-json,127.0.0.1:8931 or pages,15000000,127.0.0.1:8931.
const hostileVar = "REACT_AGENT_MCP_HOSTILE"

// TestMain runs the test server instead of the tests when the test binary
// is started as one (see testServer), or the hostile server.
func TestMain(m *testing.M) {
	if os.Getenv(testserver.EnvVar) != "" {
		os.Exit(testserver.Main(os.Args[1:], os.Stderr))
	}
	if spec := os.Getenv(hostileVar); spec != "" {
		os.Exit(serveHostile(spec))
	}
	os.Exit(m.Run())
}

// serveHostile serves the hostile server that spec describes, until the
// process is killed.
func serveHostile(spec string) int {
	parts := strings.Split(spec, ",")
	s := &hostile.Server{Attack: hostile.Attack(parts[0])}
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		s.Size = n
	}
	addr := parts[len(parts)-1]
	fmt.Fprintf(os.Stderr, "serving %s on http://%s/mcp\n", s.Attack, addr)
	fmt.Fprintln(os.Stderr, http.ListenAndServe(addr, s))
	return 1
}

// testServer declares the test server, run by the test binary itself,
// with the server's flags.
func testServer(t testing.TB, name string, flags ...string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: name, Transport: Stdio, Command: exe, Args: flags,
		Env: serverEnv(), Confirm: true, File: "servers.json"}
}

// serverEnv is the environment of the test server: the variable that
// makes the test binary one, and no second at exit under the race
// detector.
func serverEnv() map[string]string {
	return map[string]string{testserver.EnvVar: "1", "GORACE": "atexit_sleep_ms=0"}
}
