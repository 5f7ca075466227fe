package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/agent/trace"
)

// TestStopsReadingAfterACompleteAction runs against servers that ignore
// stop sequences and stream a long made-up continuation slowly: in every
// mode, shown or not, the agent reads no more than a few pieces past the
// complete action, whatever follows it.
func TestStopsReadingAfterACompleteAction(t *testing.T) {
	action := "Thought: I will add.\nAction: add\nAction Input: {\"a\": 17, \"b\": 25}"
	tail := strings.Repeat("Thought: I know it now, and I go on and on about it.\n", 60) + "Final Answer: 99"
	tails := map[string]string{
		"a made-up observation":              "\nObservation: 99\n" + tail,
		"a new thought, with no observation": "\n" + tail,
		"an observation on the same line":    " Observation: 99\n" + tail,
	}
	actionPieces := len(model.Chunks(action))
	for _, provider := range []string{"ollama", "openai"} {
		for name, rest := range tails {
			for _, shown := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s, %s, shown=%v", provider, name, shown), func(t *testing.T) {
					start := modeltest.NewOllama
					if provider == "openai" {
						start = modeltest.NewOpenAI
					}
					s := start([]string{action + rest, "Thought: done\nFinal Answer: 42"}, modeltest.IgnoreStops(), modeltest.Slow(2*time.Millisecond))
					defer s.Close()
					m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: s.URL, APIKey: "k", Model: "m"})
					if err != nil {
						t.Fatal(err)
					}
					var opts []Option
					if shown {
						opts = append(opts, WithStreaming(func(string) {}))
					}
					res, err := New(m, registry(t), opts...).Run(context.Background(), "What is 17 + 25?")
					if err != nil {
						t.Fatal(err)
					}
					if res.Answer != "42" || res.Steps[0].Observation != "42" {
						t.Fatalf("answer %q, first observation %q", res.Answer, res.Steps[0].Observation)
					}
					t.Logf("pieces past the action: %d (the reply has %d in all)", s.Sent(0)-actionPieces, len(model.Chunks(action+rest)))
					// The server may have written a piece or two before it
					// saw the client hang up.
					if past := s.Sent(0) - actionPieces; past > 4 {
						t.Errorf("the server sent %d pieces past the %d of the action (of %d in all)",
							past, actionPieces, len(model.Chunks(action+rest)))
					}
				})
			}
		}
	}
}

// TestReasoningInAFieldOfItsOwn runs servers that send the reasoning apart
// from the reply (Ollama's "thinking", vLLM's "reasoning_content"): it is
// kept as the step's reasoning, and an Observation or an Action inside it
// neither cuts the reply nor is read as protocol.
func TestReasoningInAFieldOfItsOwn(t *testing.T) {
	reply := "<think>I could write Action: add, then Observation: 5. No.</think>\nThought: I know it.\nFinal Answer: 42"
	for _, provider := range []string{"ollama", "openai"} {
		for _, shown := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, shown=%v", provider, shown), func(t *testing.T) {
				start := modeltest.NewOllama
				if provider == "openai" {
					start = modeltest.NewOpenAI
				}
				s := start([]string{reply}, modeltest.SeparateThinking())
				defer s.Close()
				m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: s.URL, APIKey: "k", Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				var opts []Option
				if shown {
					opts = append(opts, WithStreaming(func(string) {}))
				}
				res, err := New(m, registry(t), opts...).Run(context.Background(), "q")
				if err != nil {
					t.Fatal(err)
				}
				if res.Answer != "42" || len(res.Steps) != 1 {
					t.Fatalf("answer %q in %d steps, want 42 in 1", res.Answer, len(res.Steps))
				}
				if got := res.Steps[0].Reasoning; !strings.Contains(got, "Observation: 5") {
					t.Errorf("reasoning %q, want the server's thinking", got)
				}
			})
		}
	}
}

// TestReasoningSurvivesTheAgentsOwnCut runs servers that refuse stop
// sequences, as reasoning models do, ignore them, and send the reasoning
// apart from the reply: the agent cuts the first reply itself, after its
// action, and the reasoning of that step reaches the step, the thought
// event (and so --json and the log), the trace, and a recorded cassette
// that replays it.
func TestReasoningSurvivesTheAgentsOwnCut(t *testing.T) {
	thinking := "The user wants a sum. I should add 17 and 25."
	first := "<think>" + thinking + "</think>\n" + action("add", `{"a": 17, "b": 25}`) + "\nObservation: 41\nThought: so it is 41.\nFinal Answer: 41"
	for _, provider := range []string{"ollama", "openai"} {
		for _, shown := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, shown=%v", provider, shown), func(t *testing.T) {
				start := modeltest.NewOllama
				if provider == "openai" {
					start = modeltest.NewOpenAI
				}
				s := start([]string{first, "Thought: done\nFinal Answer: 42"},
					modeltest.Reject("stop"), modeltest.IgnoreStops(), modeltest.SeparateThinking())
				defer s.Close()
				path := filepath.Join(t.TempDir(), "run.jsonl")
				served, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: s.URL, APIKey: "k", Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				m, err := cassette.NewRecorder(served, path)
				if err != nil {
					t.Fatal(err)
				}
				var screen, jsonl strings.Builder
				tr := trace.New(&screen)
				opts := []Option{WithEvents(tr.Event), WithEvents(event.JSONLines(&jsonl))}
				if shown {
					opts = append(opts, WithStreaming(tr.Token))
				}
				res, err := New(m, registry(t), opts...).Run(context.Background(), "What is 17 + 25?")
				tr.Close()
				if err != nil {
					t.Fatal(err)
				}
				if res.Answer != "42" || res.Steps[0].Observation != "42" {
					t.Fatalf("answer %q, first observation %q: the reply was not cut after its action", res.Answer, res.Steps[0].Observation)
				}
				if got := res.Steps[0].Reasoning; got != thinking {
					t.Errorf("step 1's reasoning is %q, want %q", got, thinking)
				}
				if !strings.Contains(jsonl.String(), `"type":"thought","iteration":1,"text":"I will use add.","reasoning":"`+thinking+`"`) {
					t.Errorf("the JSON thought event of step 1 lacks the reasoning:\n%s", jsonl.String())
				}
				// Streamed, the reasoning comes first, as it arrives; else
				// with the thought.
				if want := map[bool]string{true: "[1] thinking: " + thinking + "\nThought: I will use add.",
					false: "thinking:\n    " + thinking}[shown]; !strings.Contains(screen.String(), want) {
					t.Errorf("the trace lacks the reasoning:\n%s", screen.String())
				}
				replay, err := cassette.Open(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				again, err := New(replay, registry(t), opts...).Run(context.Background(), "What is 17 + 25?")
				if err != nil || again.Steps[0].Reasoning != thinking {
					t.Errorf("replayed, step 1's reasoning is %q (%v), want %q", again.Steps[0].Reasoning, err, thinking)
				}
			})
		}
	}
}

// TestTheScreenShowsNothingTheAgentCuts streams, on a trace, the replies
// of servers that refuse stop sequences and ignore them, whose first
// reply runs on into an observation the model made up: the screen never
// shows that observation, in any chunking, and the warning that the agent
// cuts replies itself comes before the reply.
func TestTheScreenShowsNothingTheAgentCuts(t *testing.T) {
	first := action("add", `{"a": 17, "b": 25}`) + "\nObservation: 41\nThought: so it is 41.\nFinal Answer: 41"
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			start := modeltest.NewOllama
			if provider == "openai" {
				start = modeltest.NewOpenAI
			}
			s := start([]string{first, "Thought: done\nFinal Answer: 42"}, modeltest.Reject("stop"), modeltest.IgnoreStops())
			defer s.Close()
			m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: s.URL, APIKey: "k", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			var screen strings.Builder
			tr := trace.New(&screen)
			_, err = New(m, registry(t), WithEvents(tr.Event), WithStreaming(tr.Token)).Run(context.Background(), "What is 17 + 25?")
			tr.Close()
			if err != nil {
				t.Fatal(err)
			}
			out := screen.String()
			if strings.Contains(out, "\nObserv") || strings.Contains(out, "41") {
				t.Errorf("the screen shows the made-up observation:\n%s", out)
			}
			warning, reply := strings.Index(out, "agent cuts replies itself"), strings.Index(out, "I will use add")
			if warning < 0 || reply < 0 || warning > reply || !strings.Contains(out, "[1] Observation: 42") {
				t.Errorf("want the warning, then the reply and the real observation:\n%s", out)
			}
		})
	}
}
