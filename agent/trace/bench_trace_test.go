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
