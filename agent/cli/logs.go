package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/logs"
)

// logsFlags are the flags of logs.
type logsFlags struct {
	query, model, since string
	log                 *logFlags
	limit               int
	json, answer        bool
	// yes deletes a conversation named by the start of its ID unasked.
	yes bool
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
		fs.BoolVarP(&f.answer, "answer", "r", false, "with show (or alone), print only the latest answer of the conversation, as llm's logs -r does")
	})
	grouped(fs, "Log flags", func() {
		f.log = addLogFlags(fs, false)
		fs.BoolVar(&f.yes, "yes", false, "with delete, delete the conversation the start of an ID names without asking")
	})
	addConfigFlag(fs)
	return f
}

// logsCommand is `react-agent logs`, and logs show, delete and path.
func logsCommand() *command {
	return &command{
		name: "logs", args: "[flags]", does: "list the conversations logged; show or delete one",
		synopsis: "logs [flags]\n       react-agent logs show [--json] [ID] | logs delete ID | logs path",
		examples: `  react-agent logs
  react-agent logs -q "population tokyo" --since 7d
  react-agent logs -q 'qwen2.5 "new york"'
  react-agent logs --model qwen -n 50 --json
  react-agent logs show 3f9a
  react-agent logs -r   (the latest answer alone)
  react-agent logs delete 3f9a2c1b7d4e
  react-agent logs delete 3f9a --yes   (the start of an ID, unasked)
  react-agent logs path

"logs" lists the latest conversations; "logs show" prints one whole, as
the trace showed it (the latest when no ID is given; the start of an ID
will do); "logs delete" deletes one: the start of its ID is asked about
first, on a terminal, or needs --yes; "logs path" prints where the log is.

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
			switch most, ok := want[sub]; {
			case sub == "delete" && len(rest) == 0:
				return usagef("logs delete needs the ID of the conversation to delete, or its start, as logs lists them: react-agent logs delete 3f9a")
			case !ok:
				return usagef("logs takes no argument, or one of: list, show [ID], delete ID, path; got %q%s", args, didYouMean(sub, []string{"list", "show", "delete", "path"}))
			case len(rest) > most:
				return usagef("logs %s takes %s, got %q", sub, map[int]string{0: "nothing more", 1: "one ID"}[most], rest)
			}
			return nil
		},
		complete: func(e *env, args []string) ([]candidate, bool) {
			switch {
			case len(args) == 0:
				return []candidate{{"show", "print a conversation whole"}, {"delete", "delete a conversation"},
					{"path", "where the log is"}}, false
			case len(args) == 1 && (args[0] == "show" || args[0] == "delete"):
				return e.conversationIDs(), false
			}
			return nil, false
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
	path, err := c.logPath(f.log)
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
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		// Nothing to read: the log is not made for it.
		if sub == "" && !f.answer {
			fmt.Fprintf(stderr, "no runs logged yet in %s\n", path)
			return nil
		}
		return fmt.Errorf("no conversation in the log yet (%s)", path)
	}
	ctx := context.Background()
	open := logs.OpenReadOnly // what only reads the log writes nothing
	if sub == "delete" {
		open = func(ctx context.Context, path string) (*logs.Store, error) { return logs.Open(ctx, path) }
	}
	store, err := open(ctx, path)
	if err != nil {
		return err
	}
	defer store.Close()
	switch {
	case sub == "" && !f.answer:
		list, err := store.List(ctx, q)
		switch {
		case errors.Is(err, logs.ErrNoWords):
			return usagef("--query: %v; write a word or a number", err)
		case errors.Is(err, logs.ErrSearchTooLong):
			return usagef("--query: %v", err)
		case err != nil:
			return err
		case f.json:
			return c.writeJSON(stdout, append([]logs.Summary{}, list...))
		case len(list) == 0 && (f.query != "" || f.model != "" || f.since != ""):
			fmt.Fprintln(stderr, "no conversation in the log matches "+describeQuery(f))
			return nil
		case len(list) == 0:
			fmt.Fprintf(stderr, "no conversation in the log yet (%s)\n", path)
			return nil
		}
		return logs.WriteList(stdout, list, c.width(stdout))
	case sub == "delete":
		id, err := store.Resolve(ctx, rest[0])
		if err == nil && id != rest[0] && !f.yes {
			err = c.confirmDelete(ctx, store, rest[0], id)
		}
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
	case f.answer:
		return c.latestAnswer(id, runs)
	case f.json:
		return c.writeJSON(stdout, runs)
	}
	return logs.WriteText(stdout, runs)
}

// latestAnswer prints the latest answer of the conversation id, whose
// runs are runs, and says on stderr why the latest run has none, when it
// has none, with how to see it.
func (c *call) latestAnswer(id string, runs []logs.Run) error {
	answered := -1
	for i := len(runs) - 1; i >= 0 && answered < 0; i-- {
		if runs[i].Answer != "" {
			answered = i
		}
	}
	last := len(runs) - 1
	if answered == last && last >= 0 {
		fmt.Fprintln(c.stdout, c.forTerminal(c.stdout, runs[last].Answer))
		return nil
	}
	why := "has no answer"
	if last >= 0 {
		switch r := runs[last]; r.Status {
		case logs.StatusFailed:
			why = "failed"
			if msg, _, _ := strings.Cut(r.Error, "\n"); msg != "" {
				why += ": " + c.forTerminal(c.stderr, msg)
			}
		case logs.StatusInterrupted:
			why = "was interrupted"
		case logs.StatusUnfinished:
			why = "has not finished: it is still running, or its process ended without a word"
		}
	}
	see := "react-agent logs show " + id
	if answered < 0 {
		return fmt.Errorf("the latest run of conversation %s %s; %s shows it", id, why, see)
	}
	fmt.Fprintf(c.stderr, "react-agent: the latest run of conversation %s %s; the answer before it follows (%s shows both)\n", id, why, see)
	fmt.Fprintln(c.stdout, c.forTerminal(c.stdout, runs[answered].Answer))
	return nil
}

// describeQuery says what the filters of logs ask for.
func describeQuery(f *logsFlags) string {
	var parts []string
	if f.query != "" {
		parts = append(parts, fmt.Sprintf("-q %q", f.query))
	}
	if f.model != "" {
		parts = append(parts, fmt.Sprintf("--model %q", f.model))
	}
	if f.since != "" {
		parts = append(parts, "--since "+f.since)
	}
	return strings.Join(parts, " ")
}

// conversationIDs returns the IDs of the latest conversations in the log,
// each with its first question, for completion; none when the log cannot
// be read.
func (e *env) conversationIDs() []candidate {
	path := e.getenv("REACT_AGENT_LOG_DB")
	if path == "" {
		var err error
		if path, err = e.defaultLog(); err != nil {
			return nil
		}
	}
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	store, err := logs.OpenReadOnly(ctx, path)
	if err != nil {
		return nil
	}
	defer store.Close()
	list, err := store.List(ctx, logs.Query{Limit: 50})
	if err != nil {
		return nil
	}
	var cands []candidate
	for _, s := range list {
		cands = append(cands, candidate{s.ID, firstLine(cell(s.Question))})
	}
	return cands
}

// confirmDelete asks whether to delete the conversation id, which the
// start of an ID, given, names: a slip of a few characters would delete
// another conversation than the one meant. It asks on the terminal (stdin,
// or the controlling one), showing the conversation's first question and
// its runs; without a terminal to ask on, the deletion is refused, saying
// to pass the whole ID or --yes.
func (c *call) confirmDelete(ctx context.Context, store *logs.Store, given, id string) error {
	runs, err := store.Runs(ctx, id)
	if err != nil {
		return err
	}
	what := id
	if len(runs) > 0 {
		what = fmt.Sprintf("%s, %q (%s)", id, firstLine(cell(runs[0].Question)), plural(len(runs), "run", "runs"))
	}
	in, out, closeTTY := c.askTerminal()
	defer closeTTY()
	if in == nil {
		return usagef("%s is the start of conversation %s; with no terminal to ask on, pass the whole ID, or --yes to delete it", given, what)
	}
	fmt.Fprintf(out, "Delete conversation %s? [y/N] ", what)
	answer, err := bufio.NewReader(io.LimitReader(in, 1<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(out)
	}
	fmt.Fprintf(c.stderr, "react-agent: conversation %s is kept\n", id)
	return exitError(exitFailure)
}

// askTerminal returns where a question to the person is asked: stdin and
// stderr when stdin is a terminal, else the controlling terminal; a nil
// in when there is neither.
func (e *env) askTerminal() (in io.Reader, out io.Writer, closeFn func()) {
	if e.terminal(e.stdin) {
		return e.stdin, e.stderr, func() {}
	}
	if tty, err := e.openTTY(); err == nil {
		return tty, tty, func() { tty.Close() }
	}
	return nil, nil, func() {}
}
