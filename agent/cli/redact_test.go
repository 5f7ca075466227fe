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
// the API key in use and the password of the server's URL: the model's
// next request holds the error without them, as the log does. Once the
// password was read as it was.
func TestTheModelReadsNoSecretTheLogHides(t *testing.T) {
	const key = "sk-test-0123456789abcdefghij"
	const password = "the-password-of-the-server"
	tools := filepath.Join(t.TempDir(), "tools.yaml")
	os.WriteFile(tools, []byte(fmt.Sprintf(`tools:
  - name: status
    description: The service's status.
    command: ["sh", "-c", "echo 'loading with %s and %s' >&2; exit 1"]
    confirm: false
`, key, password)), 0o600)
	s := modeltest.NewOllama([]string{
		"Thought: I will check.\nAction: status\nAction Input: {}",
		"Thought: It failed.\nFinal Answer: the service is down",
	})
	t.Cleanup(s.Close)
	url := strings.Replace(s.URL, "http://", "http://me:"+password+"@", 1)
	got := args("-q", "--base-url", url, "--api-key", key, "--tools-config", tools, "Is the service up?").run(t)
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	if second := fmt.Sprint(s.Request(1)); strings.Contains(second, key) || strings.Contains(second, password) ||
		!strings.Contains(second, "loading with REDACTED and REDACTED") {
		t.Errorf("the model read the API key or the URL's password, or not where they were:\n%s", second)
	}
}
