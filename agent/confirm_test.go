package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/tools"
)

type answer struct {
	ok    bool
	err   error
	asked []string
}

func (a *answer) Confirm(_ context.Context, prompt string) (bool, error) {
	a.asked = append(a.asked, prompt)
	return a.ok, a.err
}

func TestConfirmation(t *testing.T) {
	ran := 0
	shell := confirmTool{funcTool{name: "shell", schema: oneString("command"),
		fn: func(context.Context, map[string]any) (string, error) { ran++; return "ran", nil }}}
	tests := []struct {
		name    string
		c       *answer
		tool    string
		wantRan int
		wantObs string
		wantErr bool
	}{
		{"an allowed call runs", &answer{ok: true}, "shell", 1, "ran", false},
		{"a refused call does not run and the model is told", &answer{}, "shell", 0, "declined", false},
		{"a tool that needs no confirmation is not asked about", &answer{}, "echo", 0, "hi", false},
		{"a failure to ask ends the run", &answer{err: errors.New("tty gone")}, "shell", 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran = 0
			reg := registry(t, shell, echoTool())
			input := `{"command": "rm -rf /tmp/x"}`
			if tt.tool == "echo" {
				input = `{"text": "hi"}`
			}
			m := scripted(action(tt.tool, input), final("done"))
			res, err := New(m, reg, WithHooks(Confirmation(reg, tt.c))).Run(context.Background(), "q")
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v", err)
			}
			if ran != tt.wantRan {
				t.Errorf("the tool ran %d times, want %d", ran, tt.wantRan)
			}
			if tt.tool == "shell" && (len(tt.c.asked) != 1 || tt.c.asked[0] != "run rm -rf /tmp/x?") {
				t.Errorf("asked %q", tt.c.asked)
			}
			if tt.tool == "echo" && len(tt.c.asked) != 0 {
				t.Errorf("asked %q about a tool that needs no confirmation", tt.c.asked)
			}
			if !tt.wantErr && !strings.Contains(res.Steps[0].Observation, tt.wantObs) {
				t.Errorf("observation %q, want it to contain %q", res.Steps[0].Observation, tt.wantObs)
			}
		})
	}
	var _ tools.Confirmer = (*answer)(nil)
}
