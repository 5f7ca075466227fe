//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// dyingServer is an MCP server in sh that lists one tool and dies when it
// is called, with a value of its environment on stderr, as a server whose
// database would not open does.
const dyingServer = `#!/bin/sh
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case "$line" in
	*'"method":"initialize"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"svc","version":"1"}}}\n' "$id" ;;
	*'"method":"tools/list"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"status","description":"The status of the service.","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
	*'"method":"tools/call"'*)
		echo "opening the database with $SERVICE_PASSPHRASE" >&2
		echo "fatal: the database is locked" >&2
		exit 1 ;;
	*'"method"'*)
		[ -n "$id" ] && printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id" ;;
	esac
done
`

// TestTheModelReadsNoMCPSecret runs an MCP server, its envFile holding
// SERVICE_PASSPHRASE, that dies when called and quotes the passphrase on
// stderr: once, the model read it three times in the tail of the server's
// stderr while the log showed it redacted. Now neither does.
func TestTheModelReadsNoMCPSecret(t *testing.T) {
	const passphrase = "correct-horse-battery-staple"
	dir := t.TempDir()
	server := filepath.Join(dir, "server.sh")
	os.WriteFile(server, []byte(dyingServer), 0o700)
	os.WriteFile(filepath.Join(dir, "svc.env"), []byte("SERVICE_PASSPHRASE="+passphrase+"\n"), 0o600)
	config := filepath.Join(dir, "mcp.json")
	os.WriteFile(config, []byte(`{"servers": {"svc": {"command": "./server.sh", "envFile": "svc.env", "confirm": false}}}`), 0o600)
	s := modeltest.NewOllama([]string{
		"Thought: I will check.\nAction: status\nAction Input: {}",
		"Thought: It died.\nFinal Answer: the service is down",
	})
	t.Cleanup(s.Close)
	db := filepath.Join(dir, "logs.db")
	got := invocation{args: []string{"-q", "--base-url", s.URL, "--mcp-config", config, "Is the service up?"},
		env: []string{"REACT_AGENT_LOG_DB=" + db}}.run(t)
	if got.code != 0 || s.Calls() != 2 {
		t.Fatalf("exit %d after %d model calls\n%s", got.code, s.Calls(), got)
	}
	second := fmt.Sprint(s.Request(1))
	if strings.Contains(second, passphrase) || !strings.Contains(second, "opening the database with REDACTED") {
		t.Errorf("the model read the passphrase, or not where it was:\n%s", second)
	}
	shown := invocation{args: []string{"logs", "show", "--json"}, env: []string{"REACT_AGENT_LOG_DB=" + db}}.run(t)
	if shown.code != 0 || strings.Contains(shown.stdout, passphrase) || !strings.Contains(shown.stdout, "REDACTED") {
		t.Errorf("the log keeps the passphrase, or no run\n%s", shown)
	}
}
