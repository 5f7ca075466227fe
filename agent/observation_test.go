package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools"
)

// TestToolErrorsAreCutLikeOutput runs a tool whose error is 2 MB long,
// as an MCP result with isError or a JSON-RPC error can be, with an
// observation cap of 1000 bytes: the model, the observation event (and
// so the log that records it) and the step all get the cut text, whose
// marker counts the bytes left out.
func TestToolErrorsAreCutLikeOutput(t *testing.T) {
	huge := strings.Repeat("the server says no. ", 2<<20/20)
	boom := funcTool{name: "boom", schema: oneString("input"), fn: func(context.Context, map[string]any) (string, error) {
		return "", errors.New(huge)
	}}
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			start := modeltest.NewOllama
			if provider == "openai" {
				start = modeltest.NewOpenAI
			}
			srv := start([]string{action("boom", `{"input": "x"}`), final("it failed")})
			defer srv.Close()
			m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: srv.URL, APIKey: "k", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			reg := registry(t, boom)
			reg.SetLimits(tools.Limits{MaxObservation: 1000})
			var observed []string
			res, err := New(m, reg, WithEvents(func(e event.Event) {
				if e.Kind == event.Observation {
					observed = append(observed, e.Text)
				}
			})).Run(context.Background(), "q")
			if err != nil {
				t.Fatal(err)
			}
			if len(observed) != 1 || len(observed[0]) > 1100 {
				t.Fatalf("the observation event holds %d bytes, want at most the cap and a marker", len(observed[0]))
			}
			if want := fmt.Sprintf("\n[truncated: %d bytes omitted]", len("Error: ")+len(huge)-1000); !strings.HasSuffix(observed[0], want) {
				t.Errorf("the observation ends %q, want a marker like %q", observed[0][len(observed[0])-60:], want)
			}
			prompt := fmt.Sprint(srv.Request(1)["messages"])
			if len(prompt) > 20<<10 || !strings.Contains(prompt, "[truncated: ") {
				t.Errorf("the second prompt holds %d bytes; want the cut error", len(prompt))
			}
			if got := len(res.Steps[0].Error); got > 1100 {
				t.Errorf("the step's error holds %d bytes", got)
			}
		})
	}
}
