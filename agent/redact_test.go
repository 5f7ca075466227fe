package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
)

// TestRedactorKeepsSecretsFromTheModel runs tools whose output and error
// hold a secret the log hides, as the stderr tail of an MCP server that
// died quoted a value of its envFile: with the log's redactor, neither the
// model, nor the events, nor the steps see it.
func TestRedactorKeepsSecretsFromTheModel(t *testing.T) {
	const secret = "correct-horse-battery-staple"
	leak := funcTool{name: "leak", schema: oneString("input"), fn: func(context.Context, map[string]any) (string, error) {
		return "the service says: SERVICE_PASSPHRASE=" + secret + " and GH_PAT=ghp0123456789abcdef", nil
	}}
	die := funcTool{name: "die", schema: oneString("input"), fn: func(context.Context, map[string]any) (string, error) {
		return "", fmt.Errorf("MCP server %q exited; the last lines of its stderr:\n    loading %s\n    fatal: bad key", "svc", secret)
	}}
	for _, redact := range []bool{false, true} {
		t.Run(fmt.Sprintf("redactor %v", redact), func(t *testing.T) {
			m := scripted(action("leak", `{"input": "a"}`), action("die", `{"input": "b"}`), final("done"))
			var seen []string
			opts := []Option{WithEvents(func(e event.Event) { seen = append(seen, e.Text) })}
			if redact {
				opts = append(opts, WithRedactor(model.NewRedactor(secret)))
			}
			res, err := New(m, registry(t, leak, die), opts...).Run(context.Background(), "q")
			if err != nil {
				t.Fatal(err)
			}
			var read []string
			for i := 1; i < 3; i++ {
				read = append(read, m.last(i))
			}
			for _, s := range res.Steps {
				read = append(read, s.Observation, s.Error)
			}
			read = append(read, seen...)
			all := strings.Join(read, "\n")
			if leaked := strings.Contains(all, secret) || strings.Contains(all, "ghp0123456789abcdef"); leaked == redact {
				t.Errorf("the secret reached the model, the events or the steps: %v, want %v:\n%s", leaked, !redact, all)
			}
			if redact && (!strings.Contains(m.last(1), "SERVICE_PASSPHRASE=REDACTED") || !strings.Contains(m.last(2), "loading REDACTED")) {
				t.Errorf("the model does not read where the secrets were:\n%s\n%s", m.last(1), m.last(2))
			}
		})
	}
}
