package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/redact"
	"github.com/react-agent/react-agent/tools"
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
	for _, withRedactor := range []bool{false, true} {
		t.Run(fmt.Sprintf("redactor %v", withRedactor), func(t *testing.T) {
			m := scripted(action("leak", `{"input": "a"}`), action("die", `{"input": "b"}`), final("done"))
			var seen []string
			opts := []Option{WithEvents(func(e event.Event) { seen = append(seen, e.Text) })}
			if withRedactor {
				opts = append(opts, WithRedactor(redact.New(secret)))
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
			if leaked := strings.Contains(all, secret) || strings.Contains(all, "ghp0123456789abcdef"); leaked == withRedactor {
				t.Errorf("the secret reached the model, the events or the steps: %v, want %v:\n%s", leaked, !withRedactor, all)
			}
			if withRedactor && (!strings.Contains(m.last(1), "SERVICE_PASSPHRASE=REDACTED") || !strings.Contains(m.last(2), "loading REDACTED")) {
				t.Errorf("the model does not read where the secrets were:\n%s\n%s", m.last(1), m.last(2))
			}
		})
	}
}

// TestASecretCutByTheObservationLimitIsStillRedacted runs tools whose
// output and error hold a secret that the --max-observation cut falls in
// the middle of: the secret is removed before the cut, so that its first
// half never reaches the model.
func TestASecretCutByTheObservationLimitIsStillRedacted(t *testing.T) {
	const secret, limit = "correct-horse-battery-staple", 100
	padding := strings.Repeat("x", limit-10) // the cut falls 10 bytes into the secret
	out := funcTool{name: "out", schema: oneString("input"), fn: func(context.Context, map[string]any) (string, error) {
		return padding + secret + " and more", nil
	}}
	fail := funcTool{name: "fail", schema: oneString("input"), fn: func(context.Context, map[string]any) (string, error) {
		return "", fmt.Errorf("%s%s and more", padding[len("Error: "):], secret)
	}}
	m := scripted(action("out", `{"input": "a"}`), action("fail", `{"input": "b"}`), final("done"))
	reg := registry(t, out, fail)
	reg.SetLimits(tools.Limits{MaxObservation: limit})
	res, err := New(m, reg, WithRedactor(redact.New(secret))).Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	read := []string{m.last(1), m.last(2)}
	for _, s := range res.Steps {
		read = append(read, s.Observation, s.Error)
	}
	for _, r := range read {
		if strings.Contains(r, secret[:10]) {
			t.Errorf("the first part of the secret reached the model or the steps:\n%s", r)
		}
	}
	if !strings.Contains(m.last(1), "[truncated:") || !strings.Contains(m.last(1), redact.Redacted) {
		t.Errorf("want the observation cut, and the secret's place marked:\n%s", m.last(1))
	}
}
