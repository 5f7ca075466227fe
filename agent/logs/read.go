package logs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Summary describes a conversation in a list.
type Summary struct {
	// ID is the conversation's ID.
	ID string `json:"id"`
	// Question is the first question of the conversation.
	Question string `json:"question"`
	// Runs is the number of runs in the conversation.
	Runs int `json:"runs"`
	// Last is when the latest run started.
	Last time.Time `json:"last"`
	// Provider and Model are those of the latest run.
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Status is that of the latest run.
	Status Status `json:"status"`
	// Answer is the latest run's answer.
	Answer string `json:"answer"`
}

// Query selects conversations: those with a run that matches all the
// fields set.
type Query struct {
	// Text is searched for in questions, context, answers and events:
	// each of its words must appear in one of them, in any order, and a
	// word matches the words it starts (tok finds Tokyo). Case and
	// accents do not count. Words in double quotes must appear together,
	// in that order; every other character is text, operators of FTS5
	// included. A word given twice counts once. A text with no letter or
	// digit is an error wrapping [ErrNoWords]; one longer than
	// [MaxSearchText] bytes or of more than [MaxSearchWords] different
	// words, an error wrapping [ErrSearchTooLong].
	Text string
	// Model is a part of the model's name, such as "qwen".
	Model string
	// Since keeps runs started at this time or later.
	Since time.Time
	// Limit is the number of conversations returned at most, the latest
	// first; 0 or less means all.
	Limit int
}

// List returns the conversations that match q, the latest first.
func (s *Store) List(ctx context.Context, q Query) (_ []Summary, err error) {
	defer func() { err = damaged(s.path, err) }()
	var where []string
	var args []any
	text, err := parseSearch(q.Text)
	if err != nil {
		return nil, fmt.Errorf("searching the log for %q: %w", q.Text, err)
	}
	if text.match != "" {
		if s.readOnly {
			// Indexing is a write: a log opened to read is searched as
			// it was indexed.
		} else if err := s.indexUnfinished(ctx); err != nil {
			return nil, fmt.Errorf("searching the log: %w", err)
		}
		where = append(where, `(r.id IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?)
			OR r.id IN (SELECT e.run_id FROM events e WHERE e.id IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?)))`)
		args = append(args, text.match, text.match)
	}
	for _, w := range text.within {
		where = append(where, `(instr(lower(r.question), ?) OR instr(lower(r.context), ?) OR instr(lower(r.answer), ?)
			OR EXISTS (SELECT 1 FROM events e WHERE e.run_id = r.id
				AND (instr(lower(e.text), ?) OR instr(lower(e.reasoning), ?) OR instr(lower(e.args), ?))))`)
		args = append(args, w, w, w, w, w, w)
	}
	if q.Model != "" {
		where = append(where, "instr(lower(r.model), lower(?)) > 0")
		args = append(args, q.Model)
	}
	if !q.Since.IsZero() {
		where = append(where, "r.started_at >= ?")
		args = append(args, q.Since.UnixNano())
	}
	cond := ""
	if len(where) > 0 {
		cond = "WHERE " + strings.Join(where, " AND ")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, `WITH hits AS (
			SELECT r.conversation, MAX(r.id) AS last FROM runs r `+cond+`
			GROUP BY r.conversation ORDER BY last DESC LIMIT ?)
		SELECT h.conversation, f.question, l.started_at, l.provider, l.model, l.finished_at, l.answer, l.stop_reason,
			(SELECT COUNT(*) FROM runs c WHERE c.conversation = h.conversation)
		FROM hits h
		JOIN runs l ON l.id = h.last
		JOIN runs f ON f.id = (SELECT MIN(id) FROM runs m WHERE m.conversation = h.conversation)
		ORDER BY h.last DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing the log: %w", err)
	}
	defer rows.Close()
	var list []Summary
	for rows.Next() {
		var (
			sum      Summary
			last     int64
			finished sql.NullInt64
			stop     string
		)
		if err := rows.Scan(&sum.ID, &sum.Question, &last, &sum.Provider, &sum.Model, &finished, &sum.Answer, &stop, &sum.Runs); err != nil {
			return nil, fmt.Errorf("listing the log: %w", err)
		}
		sum.Last = time.Unix(0, last)
		sum.Status = status(finished, sum.Answer, stop)
		list = append(list, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the log: %w", err)
	}
	return list, nil
}

// Resolve returns the ID of the conversation whose ID is id or starts
// with it, as Git takes a commit's short hash. It returns an error
// wrapping [ErrNotFound] when none does, and an error naming them when
// several do.
func (s *Store) Resolve(ctx context.Context, id string) (_ string, err error) {
	defer func() { err = damaged(s.path, err) }()
	if id == "" {
		return "", fmt.Errorf("conversation ID is empty: %w", ErrNotFound)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT conversation FROM runs
		WHERE substr(conversation, 1, length(?1)) = ?1 ORDER BY conversation LIMIT 3`, id)
	if err != nil {
		return "", fmt.Errorf("looking up conversation %q: %w", id, err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", fmt.Errorf("looking up conversation %q: %w", id, err)
		}
		found = append(found, c)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("looking up conversation %q: %w", id, err)
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("conversation %q: %w", id, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("conversation ID %q is ambiguous: it starts %s; give more of it", id, strings.Join(found, ", "))
}

// Latest returns the ID of the conversation of the latest run, or an
// error wrapping [ErrNotFound] when the log is empty.
func (s *Store) Latest(ctx context.Context) (_ string, err error) {
	defer func() { err = damaged(s.path, err) }()
	var id string
	err = s.db.QueryRowContext(ctx, "SELECT conversation FROM runs ORDER BY id DESC LIMIT 1").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("no conversation yet: %w", ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("finding the latest conversation: %w", err)
	}
	return id, nil
}

// Turn is a question of a conversation and its answer.
type Turn struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// Turns returns the questions of conversation id that have an answer,
// with their answers, oldest first: what a continued conversation
// remembers.
func (s *Store) Turns(ctx context.Context, id string) (_ []Turn, err error) {
	defer func() { err = damaged(s.path, err) }()
	rows, err := s.db.QueryContext(ctx, `SELECT question, answer FROM runs
		WHERE conversation = ? AND answer != '' ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("reading conversation %s: %w", id, err)
	}
	defer rows.Close()
	var turns []Turn
	for rows.Next() {
		var t Turn
		if err := rows.Scan(&t.Question, &t.Answer); err != nil {
			return nil, fmt.Errorf("reading conversation %s: %w", id, err)
		}
		turns = append(turns, t)
	}
	return turns, rows.Err()
}

// Runs returns the runs of conversation id with their events, oldest
// first, or an error wrapping [ErrNotFound] when it has none.
func (s *Store) Runs(ctx context.Context, id string) (_ []Run, err error) {
	defer func() { err = damaged(s.path, err) }()
	runs, err := s.runs(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading conversation %s: %w", id, err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("conversation %q: %w", id, ErrNotFound)
	}
	for i := range runs {
		if runs[i].Events, err = s.events(ctx, runs[i].ID); err != nil {
			return nil, fmt.Errorf("reading conversation %s: %w", id, err)
		}
	}
	return runs, nil
}

func (s *Store) runs(ctx context.Context, id string) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, conversation, started_at, finished_at, question, context,
		provider, model, base_url, protocol, prompt, prompt_file, lang, tools, answer, stop_reason, error,
		prompt_tokens, completion_tokens, total_tokens, duration_ns, provider_found
		FROM runs WHERE conversation = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		var (
			r                 Run
			started, duration int64
			finished          sql.NullInt64
			tools             string
		)
		err := rows.Scan(&r.ID, &r.Conversation, &started, &finished, &r.Question, &r.Context,
			&r.Provider, &r.Model, &r.BaseURL, &r.Protocol, &r.Prompt, &r.PromptFile, &r.Lang, &tools, &r.Answer, &r.StopReason, &r.Error,
			&r.Usage.PromptTokens, &r.Usage.CompletionTokens, &r.Usage.TotalTokens, &duration, &r.ProviderFound)
		if err != nil {
			return nil, err
		}
		if tools != "" {
			if err := json.Unmarshal([]byte(tools), &r.Tools); err != nil {
				return nil, fmt.Errorf("reading the tools of run %d: %w", r.ID, err)
			}
		}
		r.Started, r.Duration = time.Unix(0, started), time.Duration(duration)
		if finished.Valid {
			r.Finished = time.Unix(0, finished.Int64)
		}
		r.Status = status(finished, r.Answer, r.StopReason)
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

func (s *Store) events(ctx context.Context, run int64) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT iteration, kind, text, reasoning, tool, args, failed, forced,
		stop_reason, duration_ns, elapsed_ns FROM events WHERE run_id = ? ORDER BY id`, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	events := []Event{}
	for rows.Next() {
		var (
			e                 Event
			args              string
			duration, elapsed int64
		)
		err := rows.Scan(&e.Iteration, &e.Kind, &e.Text, &e.Reasoning, &e.Tool, &args, &e.Failed, &e.Forced,
			&e.StopReason, &duration, &elapsed)
		if err != nil {
			return nil, err
		}
		e.Duration, e.Elapsed = time.Duration(duration), time.Duration(elapsed)
		if args != "" {
			if err := json.Unmarshal([]byte(args), &e.Args); err != nil {
				e.Args = map[string]any{"unreadable": args}
			}
		}
		if problem, ok := e.Args[problemKey].(string); ok && e.Kind == "parse_error" && len(e.Args) == 1 {
			e.Problem, e.Args = problem, nil
		}
		events = append(events, e)
	}
	return events, rows.Err()
}

// Delete removes conversation id, all its runs and their events, and
// returns an error wrapping [ErrNotFound] when there was none.
func (s *Store) Delete(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("deleting conversation %s: %w", id, err)
	}
	defer tx.Rollback()
	if err := unindexConversation(ctx, tx, id); err != nil {
		return fmt.Errorf("deleting conversation %s: %w", id, err)
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM runs WHERE conversation = ?", id)
	if err != nil {
		return fmt.Errorf("deleting conversation %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("conversation %q: %w", id, ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("deleting conversation %s: %w", id, err)
	}
	return nil
}
