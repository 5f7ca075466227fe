package logs

import (
	"context"
	"database/sql"
	"fmt"
)

// indexEvents adds to the full-text index the events not yet in it of
// the runs r that cond selects, with args for its parameters. The caller
// holds a write transaction, so no event is written meanwhile.
func indexEvents(ctx context.Context, tx *sql.Tx, cond string, args ...any) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO events_fts (rowid, text, reasoning, tool, args)
		SELECT e.id, e.text, e.reasoning, e.tool, e.args FROM runs r JOIN events e ON e.run_id = r.id
		WHERE `+cond+` AND e.id > r.indexed_upto`, args...)
	if err != nil {
		return fmt.Errorf("indexing events: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs AS r
		SET indexed_upto = (SELECT coalesce(max(e.id), r.indexed_upto) FROM events e WHERE e.run_id = r.id)
		WHERE `+cond, args...)
	if err != nil {
		return fmt.Errorf("indexing events: %w", err)
	}
	return nil
}

// indexUnfinished indexes the events of the unfinished runs, so that a
// search finds them too.
func (s *Store) indexUnfinished(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("indexing events: %w", err)
	}
	defer tx.Rollback()
	if err := indexEvents(ctx, tx, "r.finished_at IS NULL"); err != nil {
		return err
	}
	return tx.Commit()
}

// unindexConversation removes the events of a conversation from the
// full-text index; its runs leave it by trigger.
func unindexConversation(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO events_fts (events_fts, rowid, text, reasoning, tool, args)
		SELECT 'delete', e.id, e.text, e.reasoning, e.tool, e.args FROM runs r JOIN events e ON e.run_id = r.id
		WHERE r.conversation = ? AND e.id <= r.indexed_upto`, id)
	return err
}
