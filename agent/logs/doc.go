// Package logs keeps every run of the agent in a local SQLite database, so
// that people can list, read, search and continue their conversations.
//
// A run is one question and what came of it: the events of the loop as
// they arrived (thoughts, actions, observations, the answer), the
// provider, model and server, the stop reason and the tokens used. Runs
// that follow one another in a chat, or continue an earlier run, share a
// conversation ID.
//
// A command records its runs through a [Session], which takes the
// agent's events as they come:
//
//	sess, err := logs.OpenSession(ctx, path, logs.WithSecrets(apiKey))
//	...
//	defer sess.Close()
//	err = sess.Continue(ctx, "")          // or not: a new conversation
//	sess.Use(logs.Run{Provider: "ollama", Model: "qwen2.5:7b", Protocol: "text"})
//	sess.Begin(ctx, question, "")
//	a := agent.New(m, reg, agent.WithEvents(sess.Event))
//	res, err := a.Run(ctx, question)
//	sess.End(ctx, logs.Outcome{Answer: res.Answer, StopReason: string(res.StopReason)})
//
// Each event is written as it comes, in the background, so a run that
// crashes or is killed leaves a consistent record, marked
// [StatusUnfinished], and a run never waits on the log: when another
// process holds its write lock, the writes wait for it and
// [Session.Close] waits for them a bounded time. Text is stripped of
// secrets before it is written (see [redact.Text]), and the database
// is readable by its owner only. [Open] refuses a path that holds
// something other than a log, and leaves it as it was.
//
// Several processes may write to one database at once: it runs in WAL
// mode with a busy timeout. Its schema is versioned with PRAGMA
// user_version, and [Open] brings an older database up to date.
//
// The package imports nothing of package agent: it takes the agent's
// events (package event) and plain values of its own, and [WriteText]
// shows them again through the trace (package trace), as a run showed
// them.
package logs
