package logs

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Status says whether a run ended, and how.
type Status string

// The statuses of a run.
const (
	// StatusUnfinished marks a run with no recorded end: it is still
	// going, or its process crashed or was killed.
	StatusUnfinished Status = "unfinished"
	// StatusInterrupted marks a run cancelled by the user (Ctrl-C).
	StatusInterrupted Status = "interrupted"
	// StatusFailed marks a run that ended on an error without an answer.
	StatusFailed Status = "failed"
	// StatusAnswered marks a run that ended with an answer.
	StatusAnswered Status = "answered"
)

// stopCancelled is the stop reason of a cancelled run.
const stopCancelled = "cancelled"

// Run is one question and what came of it.
type Run struct {
	// ID numbers the run in the database.
	ID int64 `json:"id"`
	// Conversation is the ID the runs of a conversation share.
	Conversation string `json:"conversation"`
	// Started is when the run started.
	Started time.Time `json:"started"`
	// Finished is when the run ended; it is zero for an unfinished run.
	Finished time.Time `json:"finished,omitzero"`
	// Status says whether and how the run ended.
	Status Status `json:"status"`
	// Question is the question asked.
	Question string `json:"question"`
	// Context is text attached to the question, such as piped input.
	Context string `json:"context,omitempty"`
	// Provider and Model name the model that answered: the model the
	// server said it served, when its end was logged with one (see
	// Outcome), else the model asked for.
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// BaseURL is the server's URL as it was given, without its secrets;
	// empty for the provider's usual address.
	BaseURL string `json:"base_url,omitempty"`
	// ProviderFound says that Provider is the kind of server found at
	// BaseURL by asking it, not one the user chose: such a server is sent
	// only a key given for it, not the provider's variable's.
	ProviderFound bool `json:"provider_found,omitempty"`
	// Protocol is how the model was asked to act, such as "text" for the
	// Thought / Action / Observation text protocol.
	Protocol string `json:"protocol"`
	// Prompt is the built-in prompt of the text protocol, such as "full"
	// or "compact", and PromptFile the file of one's own, when one was
	// used; Lang is the prompt's language. They are empty in runs logged
	// before they were kept.
	Prompt     string `json:"prompt,omitempty"`
	PromptFile string `json:"prompt_file,omitempty"`
	Lang       string `json:"lang,omitempty"`
	// Tools are the tools the run was to offer alone, by name; none
	// means every tool enabled.
	Tools []string `json:"tools,omitempty"`
	// Answer is the final answer, empty when there was none.
	Answer string `json:"answer"`
	// StopReason says why the run ended, such as "final_answer".
	StopReason string `json:"stop_reason"`
	// Error is the error that ended the run, if any.
	Error string `json:"error,omitempty"`
	// Usage counts the tokens of the run's model calls.
	Usage Usage `json:"usage"`
	// Duration is the wall time of the run.
	Duration time.Duration `json:"duration_ns"`
	// Events are the run's events in the order they came.
	Events []Event `json:"events"`
}

// Usage counts tokens, where the provider reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Event is one step of a run as the agent reported it: a thought, an
// action, an observation, the final answer, a parse error, a warning or
// the error that ended the run.
type Event struct {
	// Kind is what the event reports: "thought", "action", "observation",
	// "final", "parse_error", "warning", "retry" or "error".
	Kind string `json:"kind"`
	// Iteration is the loop iteration, from 1.
	Iteration int `json:"iteration"`
	// Text is the thought, the observation, the answer or the message.
	Text string `json:"text,omitempty"`
	// Reasoning is the reasoning text of a thought or an answer.
	Reasoning string `json:"reasoning,omitempty"`
	// Tool is the tool of an action or an observation.
	Tool string `json:"tool,omitempty"`
	// Args are the arguments of an action; of a retry, its attempt, its
	// wait in milliseconds and its reason ({"attempt": 2, "wait_ms": 500,
	// "reason": "server_error"}).
	Args map[string]any `json:"args,omitempty"`
	// Problem is, for a parse error, what was wrong with the reply in a
	// few words, for people, where Text is the correction written for
	// the model. The args column keeps it, as {"problem": …}, so that an
	// older react-agent reads a newer log; logs written before it was kept
	// have none.
	Problem string `json:"problem,omitempty"`
	// Failed marks an observation that reports an error.
	Failed bool `json:"failed,omitempty"`
	// Forced marks a final answer asked for after a limit.
	Forced bool `json:"forced,omitempty"`
	// StopReason is set on the final answer and on an error that ends
	// the run.
	StopReason string `json:"stop_reason,omitempty"`
	// Duration is the time of the model or tool call the event follows.
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Elapsed is the time since the run started.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// problemKey is the key of a parse error's Problem in its args.
const problemKey = "problem"

// Outcome is how a run ended.
type Outcome struct {
	// Answer is the final answer, empty when there was none.
	Answer string
	// StopReason says why the run ended; "cancelled" marks the run
	// interrupted.
	StopReason string
	// Error is the error that ended the run, if any.
	Error string
	// Usage counts the run's tokens.
	Usage Usage
	// Duration is the wall time of the run.
	Duration time.Duration
	// Finished is when the run ended; zero means when it is written.
	Finished time.Time
	// Model is the model the server said it served, which becomes the
	// run's Model; empty leaves the model asked for.
	Model string
	// Prompt is the built-in prompt the run went on with, when it was
	// not the one it began with (the compact one, for a context window
	// the full one did not fit); empty leaves it.
	Prompt string
}

// NewID returns a new conversation ID: 12 random hexadecimal digits.
func NewID() string {
	b := make([]byte, 6)
	rand.Read(b) // It never fails: see crypto/rand.Read.
	return hex.EncodeToString(b)
}

// Recorder writes one run to the log as it goes. It is safe for
// concurrent use.
type Recorder struct {
	s  *Store
	id int64
}

// Start writes the start of run r (its conversation, question, context,
// provider, model, server URL and protocol; the time now if r.Started is
// zero) and
// returns a Recorder for the rest of it. The run is unfinished until
// [Recorder.Finish].
func (s *Store) Start(ctx context.Context, r Run) (*Recorder, error) {
	if r.Conversation == "" {
		return nil, fmt.Errorf("logging a run: no conversation ID")
	}
	if r.Started.IsZero() {
		r.Started = time.Now()
	}
	c := s.redact.Redact
	var tools string
	if len(r.Tools) > 0 {
		b, err := json.Marshal(r.Tools)
		if err != nil {
			return nil, fmt.Errorf("logging the start of a run: %w", err)
		}
		tools = string(b)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO runs
		(conversation, started_at, question, context, provider, model, base_url, protocol, prompt, prompt_file, lang, tools, provider_found)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Conversation, r.Started.UnixNano(), c(r.Question), c(r.Context), r.Provider, r.Model, s.redactURL(r.BaseURL), r.Protocol,
		r.Prompt, c(r.PromptFile), r.Lang, tools, r.ProviderFound)
	if err != nil {
		return nil, fmt.Errorf("logging the start of a run: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return nil, fmt.Errorf("logging the start of a run: %w", err)
	}
	return &Recorder{s: s, id: id}, nil
}

// ID returns the run's ID in the database.
func (r *Recorder) ID() int64 { return r.id }

// Add writes e, stripped of secrets, at the end of the run.
func (r *Recorder) Add(ctx context.Context, e Event) error {
	c := r.s.redact.Redact
	var args string
	if e.Problem != "" && e.Args == nil {
		e.Args = map[string]any{problemKey: e.Problem}
	}
	if e.Args != nil {
		// Redacted before they are encoded: JSON's escapes (& as \u0026)
		// would hide the shapes of secrets.
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.s.redact.Value(e.Args)); err != nil {
			return fmt.Errorf("logging the arguments of %s: %w", e.Tool, err)
		}
		args = strings.TrimSuffix(b.String(), "\n")
	}
	_, err := r.s.insertEvent.ExecContext(ctx, r.id, e.Iteration, e.Kind, c(e.Text), c(e.Reasoning), e.Tool, args,
		e.Failed, e.Forced, e.StopReason, int64(e.Duration), int64(e.Elapsed))
	if err != nil {
		return fmt.Errorf("logging %s: %w", eventName(e.Kind), err)
	}
	return nil
}

// Finish writes how the run ended, and adds the run's events to the
// full-text index. A run finished twice keeps the second outcome; events
// added after Finish are kept but not indexed.
func (r *Recorder) Finish(ctx context.Context, o Outcome) error {
	c := r.s.redact.Redact
	tx, err := r.s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("logging the end of a run: %w", err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `UPDATE runs SET finished_at = ?, answer = ?, stop_reason = ?, error = ?,
		prompt_tokens = ?, completion_tokens = ?, total_tokens = ?, duration_ns = ?, model = COALESCE(NULLIF(?, ''), model),
		prompt = COALESCE(NULLIF(?, ''), prompt) WHERE id = ?`,
		cmp.Or(o.Finished, time.Now()).UnixNano(), c(o.Answer), o.StopReason, c(o.Error),
		o.Usage.PromptTokens, o.Usage.CompletionTokens, o.Usage.TotalTokens, int64(o.Duration), o.Model, o.Prompt, r.id)
	if err != nil {
		return fmt.Errorf("logging the end of a run: %w", err)
	}
	if err := indexEvents(ctx, tx, "r.id = ?", r.id); err != nil {
		return fmt.Errorf("logging the end of a run: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("logging the end of a run: %w", err)
	}
	return nil
}

// status derives a run's status from its end.
func status(finished sql.NullInt64, answer, stopReason string) Status {
	switch {
	case !finished.Valid:
		return StatusUnfinished
	case stopReason == stopCancelled:
		return StatusInterrupted
	case answer == "":
		return StatusFailed
	}
	return StatusAnswered
}

// redactURL returns a server's URL as the log keeps it: without the
// password of its user, and with its other secrets, such as a key in its
// query, redacted.
func (s *Store) redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.User(u.User.Username())
			raw = u.String()
		}
	}
	return s.redact.Redact(raw)
}

// eventName names an event of kind: "an action event", "a thought event".
func eventName(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind + " event"
	}
	return "a " + kind + " event"
}
