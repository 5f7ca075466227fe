package trace

import (
	"fmt"

	"github.com/react-agent/react-agent/agent/event"

	"context"
	"io"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/tools"
)

// replies is a model that answers at once from a script, so that the
// benchmark measures the loop and its readers, not a model.
type replies []*llms.ContentResponse

func (r *replies) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	next := (*r)[0]
	*r = append((*r)[1:], next)
	return next, nil
}

func (r *replies) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, p, opts...)
}

// bigTool returns 8 KiB observations.
type bigTool struct{}

func (bigTool) Name() string        { return "big" }
func (bigTool) Description() string { return "Returns a long text." }
func (bigTool) Schema() tools.Schema {
	return tools.Schema{Args: []tools.Arg{{Name: "input", Type: "string", Required: true}}, Primary: "input"}
}
func (bigTool) Call(context.Context, map[string]any) (string, error) {
	return strings.Repeat("observation text ", 8<<10/17), nil
}

// BenchmarkLoop40StepsWithTrace runs 40 tool calls with 8 KiB observations
// as the command line runs them with --json on a terminal: the trace and
// the JSON events both read every event.
func BenchmarkLoop40StepsWithTrace(b *testing.B) {
	const steps = 40
	var script replies
	for i := range steps {
		script = append(script, &llms.ContentResponse{Choices: []*llms.ContentChoice{{
			Content: fmt.Sprintf("Thought: more.\nAction: big\nAction Input: {\"input\": \"query %d\"}", i)}}})
	}
	script = append(script, &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Thought: done.\nFinal Answer: done"}}})
	reg, err := tools.NewRegistry(bigTool{})
	if err != nil {
		b.Fatal(err)
	}
	a := agent.New(&script, reg, agent.WithMaxIterations(steps+1),
		agent.WithEvents(New(io.Discard).Event), agent.WithEvents(event.JSONLines(io.Discard)))
	b.ReportAllocs()
	for b.Loop() {
		if res, err := a.Run(context.Background(), "What is in the observations?"); err != nil || len(res.Steps) != steps+1 {
			b.Fatalf("got %v, %d steps", err, len(res.Steps))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps+1), "ns/step")
}

// BenchmarkStreamedReply streams a reply of a thought and a call, a few
// bytes at a time, as a model server sends it.
func BenchmarkStreamedReply(b *testing.B) {
	reply := "Thought: " + strings.Repeat("I should look this up before I answer. ", 40) +
		"\nAction: web_search\nAction Input: {\"query\": \"" + strings.Repeat("population of tokyo ", 20) + "\"}\n"
	var pieces []string
	for r := []rune(reply); len(r) > 0; r = r[min(4, len(r)):] {
		pieces = append(pieces, string(r[:min(4, len(r))]))
	}
	b.SetBytes(int64(len(reply)))
	for b.Loop() {
		tr := New(io.Discard)
		tr.Event(event.Event{Kind: event.Model, Iteration: 1})
		for _, p := range pieces {
			tr.Token(p)
		}
		tr.Event(event.Event{Kind: event.Thought, Iteration: 1, Text: "I should look this up."})
		tr.Close()
	}
}
