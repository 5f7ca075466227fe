package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestTheModelReadsNoSecretTheLogHides runs a tool whose error quotes
// the API key in use: the model's next request holds the error without
// the key, as the log does.
func TestTheModelReadsNoSecretTheLogHides(t *testing.T) {
	const key = "sk-test-0123456789abcdefghij"
	tools := filepath.Join(t.TempDir(), "tools.yaml")
	os.WriteFile(tools, []byte(fmt.Sprintf(`tools:
  - name: status
    description: The service's status.
    command: ["sh", "-c", "echo 'loading with %s' >&2; exit 1"]
    confirm: false
`, key)), 0o600)
	s := modeltest.NewOllama([]string{
		"Thought: I will check.\nAction: status\nAction Input: {}",
		"Thought: It failed.\nFinal Answer: the service is down",
	})
	t.Cleanup(s.Close)
	got := args("-q", "--base-url", s.URL, "--api-key", key, "--tools-config", tools, "Is the service up?").run(t)
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	if second := fmt.Sprint(s.Request(1)); strings.Contains(second, key) || !strings.Contains(second, "loading with REDACTED") {
		t.Errorf("the model read the API key, or not where it was:\n%s", second)
	}
}
