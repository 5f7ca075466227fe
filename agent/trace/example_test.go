package trace_test

import (
	"github.com/react-agent/react-agent/agent/event"

	"context"
	"os"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/agent/trace"
	"github.com/react-agent/react-agent/tools"
)

// A trace for the terminal, as the CLI prints it to stderr.
func ExampleNew() {
	m, _ := cassette.Open(context.Background(), "../../testdata/agent/demo.jsonl")
	reg, _ := tools.Builtins(tools.DefaultOptions())
	// On a terminal, add trace.Color(true) and trace.Spinner(true),
	// and pass tr.Token to agent.WithStreaming to see the model write.
	tr := trace.New(os.Stdout)
	defer tr.Close()
	a := agent.New(m, reg, agent.WithEvents(func(e event.Event) {
		e.Duration = 0 // keep the output stable
		tr.Event(e)
	}))
	a.Run(context.Background(), "What is 17*23+4?")
	// Output:
	// [1] thinking:
	//     The user wants 17 * 23 + 4. I should multiply first, then add.
	// [1] Thought: I will compute 17 * 23 first.
	// [1] Action: calculator {"expression":"17 * 23"}
	// [1] Observation: 391
	// [2] Thought: 17 * 23 is 391. Now I add 4.
	// [2] Action: calculator {"expression":"391 + 4"}
	// [2] Observation: 395
	// [3] Thought: I now know the final answer.
	// [3] Final Answer: 17 * 23 + 4 = 395
}
