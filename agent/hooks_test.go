package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// steer is a test hook that records what it sees and steers tool calls.
type steer struct {
	NoHooks
	seen     []string
	decision func(*ToolCall) Decision
	rewrite  string
	failAt   string
	finished int
}

func (h *steer) BeforeModel(_ context.Context, req *ModelRequest) error {
	h.seen = append(h.seen, "model")
	if h.failAt == "model" {
		return errors.New("hook says stop")
	}
	return nil
}

func (h *steer) AfterParse(_ context.Context, r *Reply) error {
	h.seen = append(h.seen, "parse:"+string(r.Step.Kind))
	return nil
}

func (h *steer) BeforeTool(_ context.Context, call *ToolCall) (Decision, error) {
	h.seen = append(h.seen, "tool:"+call.Tool)
	if h.failAt == "tool" {
		return Decision{}, errors.New("hook says stop")
	}
	if h.decision != nil {
		return h.decision(call), nil
	}
	return Allow(), nil
}

func (h *steer) AfterTool(_ context.Context, call *ToolCall, obs *Observation) error {
	h.seen = append(h.seen, "done:"+obs.Text)
	if h.rewrite != "" {
		obs.Text = h.rewrite
	}
	return nil
}

func (h *steer) OnFinish(context.Context, *Result) { h.finished++ }

func TestHooks(t *testing.T) {
	tests := []struct {
		name       string
		hook       *steer
		wantSeen   string
		wantObs    string
		wantErr    bool
		wantInArgs any
	}{
		{
			name:     "hooks see every stage in order",
			hook:     &steer{},
			wantSeen: "model parse:action tool:echo done:hi model parse:final",
			wantObs:  "hi",
		},
		{
			name:     "a denied call is not run and the model sees the reason",
			hook:     &steer{decision: func(*ToolCall) Decision { return Deny("not on Sundays") }},
			wantSeen: "model parse:action tool:echo model parse:final",
			wantObs:  "Error: the call was not run: not on Sundays",
		},
		{
			name: "a hook can change the arguments",
			hook: &steer{decision: func(*ToolCall) Decision {
				return WithArgs(map[string]any{"text": "changed"})
			}},
			wantSeen:   "model parse:action tool:echo done:changed model parse:final",
			wantObs:    "changed",
			wantInArgs: "changed",
		},
		{
			name:     "a hook can rewrite the observation",
			hook:     &steer{rewrite: "[redacted]"},
			wantSeen: "model parse:action tool:echo done:hi model parse:final",
			wantObs:  "[redacted]",
		},
		{
			name:     "an error from a hook ends the run",
			hook:     &steer{failAt: "tool"},
			wantSeen: "model parse:action tool:echo",
			wantErr:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := scripted(action("echo", `{"text": "hi"}`), final("done"))
			res, err := New(m, registry(t), WithHooks(tt.hook)).Run(context.Background(), "q")
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if got := strings.Join(tt.hook.seen, " "); got != tt.wantSeen {
				t.Errorf("hooks saw %q, want %q", got, tt.wantSeen)
			}
			if tt.hook.finished != 1 {
				t.Errorf("OnFinish called %d times, want 1", tt.hook.finished)
			}
			if tt.wantErr {
				return
			}
			if s := res.Steps[0]; s.Observation != tt.wantObs {
				t.Errorf("observation %q, want %q", s.Observation, tt.wantObs)
			}
			if !strings.Contains(m.last(1), "Observation: "+tt.wantObs+"\n") {
				t.Errorf("the model was not shown %q:\n%s", tt.wantObs, m.last(1))
			}
			if tt.wantInArgs != nil && res.Steps[0].Args["text"] != tt.wantInArgs {
				t.Errorf("step args %v", res.Steps[0].Args)
			}
		})
	}
}
