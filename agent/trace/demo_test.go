package trace

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/tools"
)

// TestDemoCassette runs the README's offline demo: the scripted cassette
// drives the whole loop with the real calculator.
func TestDemoCassette(t *testing.T) {
	m, err := cassette.Open(context.Background(), "../../testdata/agent/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var trace bytes.Buffer
	tr := New(&trace)
	res, err := agent.New(m, reg, agent.WithEvents(tr.Event)).Run(context.Background(), "What is 17*23+4?")
	tr.Close()
	if err != nil {
		t.Fatalf("%v\ntrace:\n%s", err, trace.String())
	}
	if res.Answer != "17 * 23 + 4 = 395" || res.Iterations != 3 || res.Usage.TotalTokens != 1820 {
		t.Errorf("answer %q after %d iterations, usage %+v", res.Answer, res.Iterations, res.Usage)
	}
	for _, want := range []string{"thinking:", "[1] Action: calculator {\"expression\":\"17 * 23\"}", "[2] Observation: 395", "[3] Final Answer: 17 * 23 + 4 = 395"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace.String())
		}
	}
}
