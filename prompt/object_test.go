package prompt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

func TestFormatObjectReadsBackAsTheSameStep(t *testing.T) {
	p := parser.New(nil)
	tests := []struct {
		name string
		step parser.Step
		want string
	}{
		{"a call with its arguments", parser.Step{Kind: parser.KindAction, Thought: "add", Action: "calculator", Args: map[string]any{"expression": "2+2"}},
			`{"thought": "add", "action": "calculator", "action_input": {"expression":"2+2"}}`},
		{"a final answer with quotes and markup", parser.Step{Kind: parser.KindFinal, Thought: "done", FinalAnswer: `He said "<b>hi</b>"`},
			`{"thought": "done", "action": "Final Answer", "action_input": "He said \"<b>hi</b>\""}`},
		{"a call without arguments", parser.Step{Kind: parser.KindAction, Thought: "look", Action: "clock", Args: map[string]any{}},
			`{"thought": "look", "action": "clock", "action_input": {}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FormatObject(tt.step)
			if got != tt.want {
				t.Fatalf("FormatObject = %s, want %s", got, tt.want)
			}
			back, err := p.Parse(got)
			if err != nil {
				t.Fatalf("the parser cannot read %s: %v", got, err)
			}
			if !reflect.DeepEqual(back, tt.step) {
				t.Errorf("read back %+v, want %+v", back, tt.step)
			}
		})
	}
}

func TestTheJSONObjectTemplateTeachesTheObjectAndItsScratchpadWritesIt(t *testing.T) {
	tmpl := JSONObject()
	sys, err := tmpl.System(Data{Tools: []Tool{{Name: "calculator", Description: "Arithmetic.", Primary: "expression",
		Args: []Arg{{Name: "expression", Type: "string", Required: true}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"action": "the tool to use, one of [calculator]"`, `"action_input": {"expression":"..."}`, `"action": "Final Answer"`} {
		if !strings.Contains(sys, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, sys)
		}
	}
	pad := tmpl.Begin("What is 2+2?")
	pad.AddStep(parser.Step{Kind: parser.KindAction, Thought: "add", Action: "calculator", Args: map[string]any{"expression": "2+2"}}, "4")
	pad.AddFinalRequest()
	want := "Question: What is 2+2?\n\n" + `{"thought": "add", "action": "calculator", "action_input": {"expression":"2+2"}}` +
		"\nObservation: 4\n\n" + `You cannot use any more tools.`
	if !strings.HasPrefix(pad.String(), want) {
		t.Errorf("the scratchpad reads\n%s\nwant it to start\n%s", pad.String(), want)
	}
}
