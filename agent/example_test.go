package agent_test

import (
	"github.com/react-agent/react-agent/agent/event"

	"cmp"
	"context"
	"fmt"
	"os"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/tools"
)

// The offline demo: a scripted cassette plays the model, and the real
// calculator does the arithmetic.
func ExampleAgent_Run() {
	ctx := context.Background()
	m, err := cassette.Open(ctx, "../testdata/agent/demo.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	a := agent.New(m, reg, agent.WithMaxIterations(10))
	res, err := a.Run(ctx, "What is 17*23+4?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Answer)
	fmt.Println(res.StopReason, res.Iterations)
	for _, s := range res.Steps[:2] {
		fmt.Println(s.Action, s.Args["expression"], "=", s.Observation)
	}
	// Output:
	// 17 * 23 + 4 = 395
	// final_answer 3
	// calculator 17 * 23 = 391
	// calculator 391 + 4 = 395
}

// The event stream as JSON, one object a line, as the CLI's --json prints
// it.
func ExampleJSONLines() {
	m, _ := cassette.Open(context.Background(), "../testdata/agent/demo.jsonl")
	reg, _ := tools.Builtins(tools.DefaultOptions())
	write := event.JSONLines(os.Stdout)
	a := agent.New(m, reg, agent.WithEvents(func(e event.Event) {
		e.Duration = 0 // keep the output stable
		write(e)
	}))
	a.Run(context.Background(), "What is 17*23+4?")
	// Output:
	// {"type":"model","iteration":1,"forced":false}
	// {"type":"thought","iteration":1,"text":"I will compute 17 * 23 first.","reasoning":"The user wants 17 * 23 + 4. I should multiply first, then add.","duration_ms":0}
	// {"type":"action","iteration":1,"tool":"calculator","args":{"expression":"17 * 23"}}
	// {"type":"observation","iteration":1,"tool":"calculator","content":"391","error":false,"duration_ms":0}
	// {"type":"model","iteration":2,"forced":false}
	// {"type":"thought","iteration":2,"text":"17 * 23 is 391. Now I add 4.","duration_ms":0}
	// {"type":"action","iteration":2,"tool":"calculator","args":{"expression":"391 + 4"}}
	// {"type":"observation","iteration":2,"tool":"calculator","content":"395","error":false,"duration_ms":0}
	// {"type":"model","iteration":3,"forced":false}
	// {"type":"thought","iteration":3,"text":"I now know the final answer.","duration_ms":0}
	// {"type":"final","iteration":3,"answer":"17 * 23 + 4 = 395","iterations":3,"forced":false,"stop_reason":"final_answer","usage":{"prompt_tokens":1722,"completion_tokens":98,"total_tokens":1820},"duration_ms":0}
}

func ExampleChat() {
	m, _ := cassette.Open(context.Background(), "../testdata/agent/demo.jsonl")
	reg, _ := tools.Builtins(tools.DefaultOptions())
	chat := agent.NewChat(agent.New(m, reg), 20)
	res, err := chat.Ask(context.Background(), "What is 17*23+4?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Answer, len(chat.History()))
	// Output: 17 * 23 + 4 = 395 1
}

// A run's spans, as a service that embeds the agent gets them: here kept
// in memory by the OpenTelemetry SDK, and printed in the order they end,
// each with its parent.
func ExampleWithTracerProvider() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	m, _ := cassette.Open(context.Background(), "../testdata/agent/demo.jsonl")
	reg, _ := tools.Builtins(tools.DefaultOptions())
	ctx := agent.InConversation(context.Background(), "c0ffee")
	agent.New(m, reg, agent.WithTracerProvider(tp)).Run(ctx, "What is 17*23+4?")
	names := map[trace.SpanID]string{}
	for _, s := range rec.Ended() {
		names[s.SpanContext().SpanID()] = s.Name()
	}
	for _, s := range rec.Ended() {
		fmt.Printf("%s (in %s)\n", s.Name(), cmp.Or(names[s.Parent().SpanID()], "no span"))
	}
	// Output:
	// chat (in invoke_agent react-agent)
	// execute_tool calculator (in invoke_agent react-agent)
	// chat (in invoke_agent react-agent)
	// execute_tool calculator (in invoke_agent react-agent)
	// chat (in invoke_agent react-agent)
	// invoke_agent react-agent (in no span)
}
