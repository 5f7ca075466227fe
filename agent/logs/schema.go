package logs

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema changes in order: migrations[i] takes a
// database from version i to version i+1, where the version is kept in
// PRAGMA user_version. Append to the list; never change an entry that has
// shipped.
var migrations = []string{
	// 1: runs and their events.
	`CREATE TABLE runs (
		id                INTEGER PRIMARY KEY,
		conversation      TEXT    NOT NULL,
		started_at        INTEGER NOT NULL, -- Unix time in nanoseconds
		finished_at       INTEGER,          -- NULL while the run is unfinished
		question          TEXT    NOT NULL,
		context           TEXT    NOT NULL DEFAULT '',
		provider          TEXT    NOT NULL DEFAULT '',
		model             TEXT    NOT NULL DEFAULT '',
		protocol          TEXT    NOT NULL DEFAULT '',
		answer            TEXT    NOT NULL DEFAULT '',
		stop_reason       TEXT    NOT NULL DEFAULT '',
		error             TEXT    NOT NULL DEFAULT '',
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		total_tokens      INTEGER NOT NULL DEFAULT 0,
		duration_ns       INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX runs_conversation ON runs (conversation, id);
	CREATE INDEX runs_started ON runs (started_at);
	CREATE TABLE events (
		id          INTEGER PRIMARY KEY,
		run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		iteration   INTEGER NOT NULL,
		kind        TEXT    NOT NULL,
		text        TEXT    NOT NULL DEFAULT '',
		reasoning   TEXT    NOT NULL DEFAULT '',
		tool        TEXT    NOT NULL DEFAULT '',
		args        TEXT    NOT NULL DEFAULT '', -- a JSON object
		failed      INTEGER NOT NULL DEFAULT 0,
		forced      INTEGER NOT NULL DEFAULT 0,
		stop_reason TEXT    NOT NULL DEFAULT '',
		duration_ns INTEGER NOT NULL DEFAULT 0,
		elapsed_ns  INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX events_run ON events (run_id, id);`,

	// 2: full-text search of questions, answers and events. Runs are
	// indexed by triggers. Events are indexed in batches, not one by one
	// as they are written, which would cost a new index segment per event:
	// a run's events when it finishes, and those of unfinished runs
	// before a search. runs.indexed_upto is the last event of the run in
	// the index.
	`ALTER TABLE runs ADD COLUMN indexed_upto INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX runs_unfinished ON runs (id) WHERE finished_at IS NULL;
	CREATE VIRTUAL TABLE runs_fts USING fts5 (question, context, answer,
		content='runs', content_rowid='id', columnsize=0, detail=column);
	CREATE VIRTUAL TABLE events_fts USING fts5 (text, reasoning, tool, args,
		content='events', content_rowid='id', columnsize=0, detail=column);
	CREATE TRIGGER runs_fts_insert AFTER INSERT ON runs BEGIN
		INSERT INTO runs_fts (rowid, question, context, answer) VALUES (new.id, new.question, new.context, new.answer);
	END;
	CREATE TRIGGER runs_fts_delete AFTER DELETE ON runs BEGIN
		INSERT INTO runs_fts (runs_fts, rowid, question, context, answer) VALUES ('delete', old.id, old.question, old.context, old.answer);
	END;
	CREATE TRIGGER runs_fts_update AFTER UPDATE OF question, context, answer ON runs BEGIN
		INSERT INTO runs_fts (runs_fts, rowid, question, context, answer) VALUES ('delete', old.id, old.question, old.context, old.answer);
		INSERT INTO runs_fts (rowid, question, context, answer) VALUES (new.id, new.question, new.context, new.answer);
	END;
	INSERT INTO runs_fts (runs_fts) VALUES ('rebuild');
	INSERT INTO events_fts (events_fts) VALUES ('rebuild');
	UPDATE runs SET indexed_upto = coalesce((SELECT max(id) FROM events WHERE run_id = runs.id), 0);`,

	// 3: the server's URL of each run, so that a continued conversation
	// goes on with the server it had; and full-text indexes that keep
	// the positions of words, so that a search for qwen2.5, 2+2 or
	// e-mail finds those words together (a phrase). The indexes are
	// about a third larger: for 2,000 runs of 15.8 MiB of text, 8.5 MiB
	// instead of 6.3 MiB.
	`ALTER TABLE runs ADD COLUMN base_url TEXT NOT NULL DEFAULT '';
	DROP TABLE runs_fts;
	DROP TABLE events_fts;
	CREATE VIRTUAL TABLE runs_fts USING fts5 (question, context, answer,
		content='runs', content_rowid='id', columnsize=0, detail=full);
	CREATE VIRTUAL TABLE events_fts USING fts5 (text, reasoning, tool, args,
		content='events', content_rowid='id', columnsize=0, detail=full);
	INSERT INTO runs_fts (runs_fts) VALUES ('rebuild');
	INSERT INTO events_fts (events_fts) VALUES ('rebuild');
	UPDATE runs SET indexed_upto = coalesce((SELECT max(id) FROM events WHERE run_id = runs.id), 0);`,

	// 4: how each run asked the model, beside its protocol: the prompt
	// (a built-in one's name, or the file of one's own), its language
	// and the tools chosen, so that a continued conversation goes on as
	// it was held (an empty value is the default, or was not logged); and
	// whether its provider was found by asking the server rather than
	// chosen, so that a continued conversation sends the key of the
	// provider's variable only to a server the user chose.
	`ALTER TABLE runs ADD COLUMN prompt TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN prompt_file TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN lang TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN tools TEXT NOT NULL DEFAULT ''; -- a JSON list of names; empty for every tool enabled
	ALTER TABLE runs ADD COLUMN provider_found INTEGER NOT NULL DEFAULT 0;`,
}

// migrate brings db up to the current schema, one migration per
// transaction. Each transaction takes the write lock before it reads the
// version, so processes opening the database at once apply each migration
// once.
func migrate(ctx context.Context, db *sql.DB) error {
	// A log already up to date needs no write lock, which another
	// process may hold for a while: it is read first, without one.
	var v int
	if err := db.QueryRowContext(ctx, "SELECT user_version FROM pragma_user_version").Scan(&v); err == nil && v == len(migrations) {
		return nil
	}
	for {
		done, err := migrateOnce(ctx, db)
		if err != nil || done {
			return err
		}
	}
}

// migrateOnce applies the next migration, if any, and reports whether the
// schema is up to date.
func migrateOnce(ctx context.Context, db *sql.DB) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: see dsn
	if err != nil {
		return false, fmt.Errorf("migrating the log database: %w", err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, fmt.Errorf("reading the log database's schema version: %w", err)
	}
	switch {
	case v > len(migrations):
		return false, fmt.Errorf("the log database has schema version %d, newer than this program's %d: %w", v, len(migrations), ErrNewerSchema)
	case v == len(migrations):
		return true, nil
	}
	if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
		return false, fmt.Errorf("migrating the log database to schema version %d: %w", v+1, err)
	}
	// PRAGMA takes no parameters; v+1 is an integer of ours.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, fmt.Errorf("setting the log database's schema version: %w", err)
	}
	return false, tx.Commit()
}
