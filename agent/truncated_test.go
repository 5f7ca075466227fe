package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/parser"
)

// TestACutReplyIsNeverAnAnswer runs against servers that stop a reply at
// the request's token limit and say so (finish_reason, done_reason
// "length"), through the real clients, in both protocols: the cut reply
// goes back to the model as a parse error that says it was cut, and the
// next, shorter reply is the answer.
func TestACutReplyIsNeverAnAnswer(t *testing.T) {
	long := "Paris is the capital of France, and it has been for a very long time indeed."
	for _, srv := range nativeServers {
		for _, protocol := range []Protocol{ProtocolText, ProtocolNative} {
			t.Run(fmt.Sprintf("%s, %s protocol", srv.provider, protocol), func(t *testing.T) {
				replies := []string{"Thought: I know it.\nFinal Answer: " + long, "Final Answer: Paris."}
				if protocol == ProtocolNative {
					replies = []string{long, "Paris."}
				}
				s := srv.start(replies)
				defer s.Close()
				m, err := model.New(context.Background(), model.Config{Provider: srv.provider, BaseURL: s.URL, APIKey: "k", Model: "m",
					MaxTokens: 6})
				if err != nil {
					t.Fatal(err)
				}
				res, err := New(m, registry(t), WithProtocol(protocol)).Run(context.Background(), "What is the capital of France?")
				if err != nil {
					t.Fatal(err)
				}
				if res.Answer != "Paris." || res.ParseErrors != 1 || !strings.Contains(res.Steps[0].Error, "cut off") {
					t.Fatalf("answer %q, %d parse errors, first step %+v", res.Answer, res.ParseErrors, res.Steps[0])
				}
				if sent := fmt.Sprint(s.Request(1)); !strings.Contains(sent, "cut off") {
					t.Errorf("the second request does not tell the model its reply was cut: %s", sent)
				}
			})
		}
	}
}

// TestACutForcedAnswerIsNoAnswer: when the answer asked for after the
// last step is cut at the token limit, the run ends without one rather
// than with half of it.
func TestACutForcedAnswerIsNoAnswer(t *testing.T) {
	s := modeltest.NewOpenAI([]string{action("echo", `{"text": "hi"}`), "Final Answer: hi, and a long story about it that goes on and on, far past the token limit."})
	defer s.Close()
	m, err := model.New(context.Background(), model.Config{Provider: "openai", BaseURL: s.URL, APIKey: "k", Model: "m", MaxTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(m, registry(t), WithMaxIterations(1)).Run(context.Background(), "Say hi.")
	if !errors.Is(err, ErrNoAnswer) || res.Answer != "" || !strings.Contains(err.Error(), "cut off") {
		t.Fatalf("answer %q, error %v; want no answer, as the one asked for was cut", res.Answer, err)
	}
	var le *LimitError
	if !errors.As(err, &le) || !le.Asked || le.Err != ErrTokenLimit || !errors.Is(err, ErrTokenLimit) {
		t.Errorf("want a LimitError whose Err is ErrTokenLimit: %#v", le)
	}
}

// TestAReplyThatCopiesTheLastStepIsReadAfterTheCopy: a model that copies
// its last step from the transcript before its answer gets its answer
// taken, not the copied call made again.
func TestAReplyThatCopiesTheLastStepIsReadAfterTheCopy(t *testing.T) {
	first := action("echo", `{"text": "hi"}`)
	m := scripted(first, first+"\nObservation: hi\nThought: I know it now.\nFinal Answer: It said hi.")
	res, err := New(m, registry(t)).Run(context.Background(), "What does echo say?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "It said hi." || res.Iterations != 2 {
		t.Fatalf("answer %q after %d iterations, steps %+v", res.Answer, res.Iterations, res.Steps)
	}
}

func TestPastStepsAreTheCallsWithTheirObservations(t *testing.T) {
	r := &runState{res: &Result{Steps: []Step{
		{Kind: parser.KindAction, Action: "echo", Args: map[string]any{"text": "a"}, Observation: "a"},
		{Error: "a parse error", Observation: "a parse error"},
		{Kind: parser.KindAction, Action: "add", Args: map[string]any{"a": 1.0, "b": 2.0}, Observation: "3"},
	}}}
	past := r.pastSteps()
	if len(past) != 2 || past[0].Step.Action != "echo" || past[1].Observation != "3" || past[1].Step.Args["b"] != 2.0 {
		t.Errorf("past steps %+v", past)
	}
}

// TestARunOfRepliesCutAtTheTokenLimitEndsWithoutAnAnswer runs against
// llama-server replies cut by n_predict (stop_type "limit"): neither the
// cut text nor a cut action is taken, and the run ends with an error that
// says the replies were cut.
func TestARunOfRepliesCutAtTheTokenLimitEndsWithoutAnAnswer(t *testing.T) {
	for _, tt := range []struct{ name, completion string }{
		{"a cut thought", "completion-stream-limit"},     // "Thoue"
		{"a cut action", "completion-stream-cut-action"}, // ...Action Input: {"text": "hel
	} {
		for _, c := range []Constrain{ConstrainOff, ConstrainAuto} {
			t.Run(fmt.Sprintf("%s, constrain %s", tt.name, c), func(t *testing.T) {
				srv, _ := recordedLlamaCpp(t, tt.completion)
				m, err := model.New(context.Background(), model.Config{Provider: "llamacpp", BaseURL: srv.URL})
				if err != nil {
					t.Fatal(err)
				}
				ran := 0
				echo := funcTool{name: "echo", schema: oneString("text"), fn: func(context.Context, map[string]any) (string, error) {
					ran++
					return "", nil
				}}
				res, err := New(m, registry(t, echo), WithConstrain(c)).Run(context.Background(), "Say hello.")
				if !errors.Is(err, ErrTokenLimit) || res.Answer != "" || ran != 0 {
					t.Fatalf("answer %q, the tool ran %d times, error %v; want no answer, no call and ErrTokenLimit", res.Answer, ran, err)
				}
			})
		}
	}
}
