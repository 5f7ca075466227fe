package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestCorrectionsSpeakTheProtocolInForce runs a model whose first reply
// the server cuts at the token limit, through the real clients, in each
// protocol: the correction the model gets speaks the protocol the run
// asked it to write (labelled lines, one JSON object, or tool calls), and
// the cut reply, none of which was used, is not sent back to it.
func TestCorrectionsSpeakTheProtocolInForce(t *testing.T) {
	const cut = "Zanzibar"
	tests := []struct {
		name      string
		protocol  Protocol
		constrain Constrain
		replies   []string
		want      []string // in the correction
		not       []string // nowhere in the second request's last message
	}{
		{"the text protocol", ProtocolText, ConstrainOff,
			[]string{"Thought: " + strings.Repeat(cut+" ", 40), "Thought: I know it.\nFinal Answer: Paris."},
			[]string{"cut off", "Thought: <your reasoning>", "Action Input:"}, []string{cut, `"action_input"`}},
		{"the JSON object protocol", ProtocolText, ConstrainOn,
			[]string{`{"thought": "` + strings.Repeat(cut+" ", 40) + `"}`, `{"thought": "I know it.", "action": "Final Answer", "action_input": "Paris."}`},
			[]string{"cut off", `"thought"`, `"action_input"`}, []string{cut, "Action Input", "Thought:"}},
		{"the native protocol", ProtocolNative, ConstrainOff,
			[]string{strings.Repeat(cut+" ", 40), "Paris."},
			[]string{"cut off", "call one of the tools"}, []string{cut, "Action Input", "Thought:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewOllama(tt.replies)
			defer s.Close()
			m, err := model.New(context.Background(), model.Config{Provider: "ollama", BaseURL: s.URL, Model: "m",
				MaxTokens: 16})
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(m, registry(t), WithProtocol(tt.protocol), WithConstrain(tt.constrain)).Run(context.Background(), "What is the capital of France?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "Paris." || res.ParseErrors != 1 {
				t.Fatalf("answer %q, %d parse errors, steps %+v", res.Answer, res.ParseErrors, res.Steps)
			}
			correction := res.Steps[0].Observation
			for _, w := range tt.want {
				if !strings.Contains(correction, w) {
					t.Errorf("the correction does not say %q:\n%s", w, correction)
				}
			}
			msgs, _ := s.Request(1)["messages"].([]any)
			var sent []string
			for _, m := range msgs[1:] { // after the system prompt
				c, _ := m.(map[string]any)["content"].(string)
				sent = append(sent, c)
			}
			all := strings.Join(sent, "\n")
			if !strings.Contains(all, correction) {
				t.Errorf("the second request does not hold the correction:\n%s", all)
			}
			for _, n := range tt.not {
				if strings.Contains(all, n) {
					t.Errorf("the second request holds %q:\n%s", n, all)
				}
			}
		})
	}
}

// TestTheFormatIsRemindedOnce: a model that fails to write a step three
// times is reminded of the format with the first correction only, and in
// a few lines.
func TestTheFormatIsRemindedOnce(t *testing.T) {
	m := scripted("Thought: hmm", "Action:", "Observation: 4", final("42"))
	res, err := New(m, registry(t)).Run(context.Background(), "What is 17 + 25?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "42" || res.ParseErrors != 3 {
		t.Fatalf("answer %q after %d parse errors", res.Answer, res.ParseErrors)
	}
	last := m.last(3)
	if n := strings.Count(last, "Thought: <your reasoning>"); n != 1 {
		t.Errorf("the last prompt reminds the model of the format %d times:\n%s", n, last)
	}
	for i, s := range res.Steps[:3] {
		if lines := strings.Count(s.Observation, "\n") + 1; lines > 8 {
			t.Errorf("correction %d is %d lines:\n%s", i+1, lines, s.Observation)
		}
	}
}
