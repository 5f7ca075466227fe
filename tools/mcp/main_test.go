package mcp

import (
	"os"
	"testing"

	"github.com/react-agent/react-agent/tools/mcp/internal/testserver"
)

// TestMain runs the test server instead of the tests when the test binary
// is started as one (see testServer).
func TestMain(m *testing.M) {
	if os.Getenv(testserver.EnvVar) != "" {
		os.Exit(testserver.Main(os.Args[1:], os.Stderr))
	}
	os.Exit(m.Run())
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
