// Package agent runs the ReAct loop: it asks a model for the next step,
// parses the reply, runs the tool the model chose, shows it the
// observation, and repeats until the model gives a final answer or a limit
// is reached.
//
// The model is any langchaingo model (github.com/tmc/langchaingo/llms);
// model.New (package agent/model) builds one for Ollama, OpenAI-compatible
// servers, llamafile, Anthropic or Google AI, which tells the agent its
// usage, stop reason, served model and server typed (a model.Generator),
// and package agent/model/cassette records a run to a cassette that it
// plays back offline. A model call is made again only by the agent's
// retry policy (see WithRetries), each time with an event.Retry.
//
//	m, err := model.New(ctx, model.Config{Provider: "ollama"})
//	...
//	a := agent.New(m, registry, agent.WithMaxIterations(10))
//	res, err := a.Run(ctx, "What is 17 * 23 + 4?")
//
// Callers see and steer a run through [Hooks] (confirming shell commands is
// one), follow it as a stream of [event.Event]s (the terminal trace of
// package agent/trace is one reader),
// receive tokens as they arrive with [WithStreaming], and hold a
// conversation over several questions with [Chat].
//
// Each run is traced with OpenTelemetry, as its semantic conventions for
// generative AI (v1.41.0) name the spans: an invoke_agent span over a chat
// span for each attempt of a model call and an execute_tool span for each
// tool call. They go to the provider of [WithTracerProvider], the global
// one by default, inside the trace of the caller's context; prompts and
// replies go into them only with [WithSpanContent].
package agent
