package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoLogIsN runs with -n, as llm's users write --no-log: nothing is
// logged.
func TestNoLogIsN(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "logs.db")
	got := run(t, invocation{args: append(append([]string{"-q", "-n"}, demo...), "What is 17 * 23 + 4?"), env: []string{"REACT_AGENT_LOG_DB=" + db}})
	if _, err := os.Stat(db); got.code != 0 || err == nil {
		t.Fatalf("want the answer and no log\n%s", got)
	}
}
