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
package agent
