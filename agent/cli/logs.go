package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/logs"
)

// logsFlags are the flags of logs.
type logsFlags struct {
	query, model, since string
	log                 *logFlags
	limit               int
	json                bool
}

// addLogsFlags adds the flags of logs to fs.
func addLogsFlags(fs *pflag.FlagSet) *logsFlags {
	f := &logsFlags{}
	grouped(fs, "Listing flags", func() {
		fs.IntVarP(&f.limit, "limit", "n", 10, "how many conversations to list (0: all)")
		fs.StringVarP(&f.query, "query", "q", "", "list the conversations that hold all these words (see below)")
		fs.StringVar(&f.model, "model", "", "list the conversations with a model whose name contains this")
		fs.StringVar(&f.since, "since", "", "list the conversations with a run since this time: a date (2026-11-01), or a span back from now (24h, 7d)")
		fs.BoolVar(&f.json, "json", false, "print JSON rather than text")
	})
	grouped(fs, "Log flags", func() { f.log = addLogFlags(fs, false) })
	addConfigFlag(fs)
	return f
}

// logsCommand is `react-agent logs`, and logs show, delete and path.
func logsCommand() *command {
	return &command{
		name: "logs", args: "[flags]", does: "the conversations logged; also logs show, delete and path",
		synopsis: "logs [flags]   (and: logs show [--json] [ID], logs delete ID, logs path)",
		examples: `  react-agent logs
  react-agent logs -q "population tokyo" --since 7d
  react-agent logs -q 'qwen2.5 "new york"'
  react-agent logs --model qwen -n 50 --json
  react-agent logs show 3f9a
  react-agent logs delete 3f9a2c1b7d4e
  react-agent logs path

"logs" lists the latest conversations; "logs show" prints one whole, as
the trace showed it (the latest when no ID is given; the start of an ID
will do); "logs delete" deletes one; "logs path" prints where the log is.

"logs -q" lists the conversations that hold every word given, in any
order, each also as the start of a longer word (tok finds Tokyo); case
and accents do not count. Words in double quotes must come together, in
that order. Everything else is text: qwen2.5, gpt-4o, 2+2, e-mail, AND,
OR and NOT search for themselves.
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addLogsFlags(fs)
			return func(c *call) error { return runLogs(c, f) }
		},
		check: func(args []string) error {
			sub, rest := logsSub(args)
			want := map[string]int{"": 0, "path": 0, "show": 1, "delete": 1}
			if most, ok := want[sub]; !ok || len(rest) > most || (sub == "delete" && len(rest) == 0) {
				return usagef("logs takes no argument, or one of: list, show [ID], delete ID, path; got %q", args)
			}
			return nil
		},
		complete: func(positional int) ([]candidate, bool) {
			if positional > 0 {
				return nil, false
			}
			return []candidate{{"show", "print a conversation whole"}, {"delete", "delete a conversation"},
				{"path", "where the log is"}}, false
		},
	}
}

// logsSub returns the subcommand of logs ("" to list) and its arguments.
func logsSub(args []string) (sub string, rest []string) {
	if len(args) == 0 {
		return "", nil
	}
	if sub = args[0]; sub == "list" {
		sub = "" // as in llm: logs list is logs
	}
	return sub, args[1:]
}

// runLogs lists, shows or deletes the conversations logged.
func runLogs(c *call, f *logsFlags) error {
	stdout, stderr := c.stdout, c.stderr
	path, err := f.log.path()
	if err != nil {
		return err
	}
	sub, rest := logsSub(c.args)
	if sub == "path" {
		fmt.Fprintln(stdout, path)
		return nil
	}
	q := logs.Query{Text: f.query, Model: f.model, Limit: f.limit}
	if f.since != "" {
		if q.Since, err = logs.ParseSince(f.since, c.now()); err != nil {
			return usagef("--since: %v", err)
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && sub == "" {
		fmt.Fprintf(stderr, "no runs logged yet in %s\n", path)
		return nil
	}
	ctx := context.Background()
	store, err := logs.Open(ctx, path)
	if err != nil {
		return err
	}
	defer store.Close()
	switch sub {
	case "":
		list, err := store.List(ctx, q)
		switch {
		case errors.Is(err, logs.ErrNoWords):
			return usagef("--query: %v; write a word or a number", err)
		case err != nil:
			return err
		case f.json:
			return writeJSON(stdout, append([]logs.Summary{}, list...))
		}
		return logs.WriteList(stdout, list)
	case "delete":
		id, err := store.Resolve(ctx, rest[0])
		if err == nil {
			err = store.Delete(ctx, id)
		}
		if err == nil {
			fmt.Fprintf(stderr, "deleted conversation %s\n", id)
		}
		return err
	}
	id, err := store.Latest(ctx)
	if len(rest) == 1 {
		id, err = store.Resolve(ctx, rest[0])
	}
	if err != nil {
		return err
	}
	runs, err := store.Runs(ctx, id)
	switch {
	case err != nil:
		return err
	case f.json:
		return writeJSON(stdout, runs)
	}
	return logs.WriteText(stdout, runs)
}
