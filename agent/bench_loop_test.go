package agent

import (
	"fmt"

	"github.com/react-agent/react-agent/agent/event"

	"context"
	"io"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// instantModel answers at once from a script, without copying the prompt,
// so that a benchmark measures the loop and not the model.
type instantModel struct {
	replies []*llms.ContentResponse
	n       int
}

func newInstantModel(replies ...string) *instantModel {
	m := &instantModel{}
	for _, r := range replies {
		m.replies = append(m.replies, &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: r}}})
	}
	return m
}

func (m *instantModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	r := m.replies[m.n%len(m.replies)]
	m.n++
	return r, nil
}

func (m *instantModel) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, opts...)
}

// benchmarkRun measures runs of steps tool calls with 8 KiB observations
// and reports the loop's own time per step: everything but the model.
func benchmarkRun(b *testing.B, steps int, opts ...Option) {
	obs := strings.Repeat("observation text ", 8<<10/17)
	big := funcTool{name: "big", schema: oneString("input"), fn: func(context.Context, map[string]any) (string, error) {
		return obs, nil
	}}
	replies := make([]string, 0, steps+1)
	for i := range steps {
		// Each call differs: the same call twice is not run again.
		replies = append(replies, action("big", fmt.Sprintf(`{"input": "query %d"}`, i)))
	}
	replies = append(replies, final("done"))
	a := New(newInstantModel(replies...), registry(b, big), append(opts, WithMaxIterations(steps+1))...)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := a.Run(ctx, "What is in the observations?")
		if err != nil || len(res.Steps) != steps+1 {
			b.Fatalf("got %v, %d steps", err, len(res.Steps))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps+1), "ns/step")
}

func BenchmarkLoop10Steps(b *testing.B) { benchmarkRun(b, 10) }

// BenchmarkLoop40Steps shows that the time per step stays flat as runs
// grow: the loop's work is linear in the number of steps.
func BenchmarkLoop40Steps(b *testing.B) { benchmarkRun(b, 40) }

// BenchmarkLoop40StepsWithEvents is BenchmarkLoop40Steps with the JSON
// events on, as the command line runs it with --json.
func BenchmarkLoop40StepsWithEvents(b *testing.B) {
	benchmarkRun(b, 40, WithEvents(event.JSONLines(io.Discard)))
}
