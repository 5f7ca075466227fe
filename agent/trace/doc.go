// Package trace shows a run of the agent to a person as it happens: each
// model call, thought, action and observation, a parse error, a warning
// and a call made again, and the final answer or the error that ends the
// run, one tagged line each, read from the run's events (package event).
// A Trace writes to a terminal, with colours and a spinner when asked,
// streamed text as it arrives, and text from outside (a model's, a tool's,
// a server's) with its control characters made visible; a Progress shows
// how far an evaluation has come.
//
//	tr := trace.New(os.Stderr, trace.Color(true))
//	defer tr.Close()
//	a := agent.New(m, reg, agent.WithEvents(tr.Event), agent.WithStreaming(tr.Token))
package trace
