// Package logs keeps every run of the agent in a local SQLite database, so
// that people can list, read, search and continue their conversations.
//
// A run is one question and what came of it: the events of the loop as
// they arrived (thoughts, actions, observations, the answer), the
// provider and model, the stop reason and the tokens used. Runs that
// follow one another in a chat, or continue an earlier run, share a
// conversation ID.
//
//	store, err := logs.Open(ctx, path, logs.WithSecrets(apiKey))
//	...
//	rec, err := store.Start(ctx, logs.Run{Conversation: logs.NewID(), Question: q})
//	rec.Add(ctx, logs.Event{Kind: "thought", Iteration: 1, Text: "..."})
//	rec.Finish(ctx, logs.Outcome{Answer: "...", StopReason: "final_answer"})
//
// Each event is written as it is added, so a run that crashes or is
// killed leaves a consistent record, marked [StatusUnfinished]. Text is
// stripped of secrets before it is written (see [Redact]).
//
// Several processes may write to one database at once: it runs in WAL
// mode with a busy timeout. Its schema is versioned with PRAGMA
// user_version, and [Open] brings an older database up to date.
//
// The package holds its own plain record types and imports nothing of
// the agent's; the command line converts the agent's events into them.
package logs
