package logs

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/parser"
)

// openSession opens a session on a new log in a temporary directory.
func openSession(t *testing.T, path string, opts ...Option) *Session {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "logs.db")
	}
	s, err := OpenSession(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSessionRecordsRunsInTurn(t *testing.T) {
	s := openSession(t, "")
	defer s.Close()
	ctx := context.Background()
	s.Use(Run{Provider: "ollama", Model: "qwen2.5:7b", Protocol: "text", Question: "ignored"})
	s.Event(event.Event{Kind: event.Thought, Text: "before any run: dropped"})

	s.Begin(ctx, "What is 2+2?", "")
	s.Event(event.Event{Kind: event.Model, Iteration: 1})
	s.Event(event.Event{Kind: event.Action, Iteration: 1, Tool: "calculator", Args: map[string]any{"expression": "2+2"}})
	s.Event(event.Event{Kind: event.Observation, Iteration: 1, Tool: "calculator", Text: "4", Duration: time.Millisecond})
	s.Event(event.Event{Kind: event.Final, Iteration: 2, Text: "4", StopReason: event.StopFinalAnswer})
	s.End(ctx, Outcome{Answer: "4", StopReason: "final_answer"})
	s.Begin(ctx, "And times 10?", "piped text")
	s.Event(event.Event{Kind: event.Final, Iteration: 1, Text: "40"})
	s.End(ctx, Outcome{Answer: "40", StopReason: "final_answer"})
	s.End(ctx, Outcome{Answer: "ended twice"})
	first := s.ID()

	s.Restart()
	s.Begin(ctx, "Something else", "")
	if s.ID() == first || len(first) != 12 {
		t.Fatalf("IDs %q then %q: want a new 12-digit ID after Restart", first, s.ID())
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	runs, err := s.store.Runs(ctx, first)
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs = %d, %v; want 2", len(runs), err)
	}
	if r := runs[0]; len(r.Events) != 3 || r.Events[0].Kind != "action" || r.Events[0].Args["expression"] != "2+2" ||
		r.Events[1].Duration != time.Millisecond || r.Events[2].StopReason != "final_answer" {
		t.Errorf("the first run's events, without the model event: %+v", r.Events)
	}
	if r := runs[1]; r.Question != "And times 10?" || r.Context != "piped text" || r.Answer != "40" || r.Model != "qwen2.5:7b" || len(r.Events) != 1 {
		t.Errorf("second run: %+v", r)
	}
	later, _ := s.store.Runs(ctx, s.ID())
	if len(later) != 1 || later[0].Status != StatusUnfinished {
		t.Errorf("the run after Restart: %+v", later)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSessionContinuesAConversation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	ctx := context.Background()
	first := openSession(t, path, WithSecrets("hunter2-password"))
	first.Use(Run{Provider: "openai", Model: "gpt-fake", Protocol: "native",
		BaseURL: "http://me:hunter2-password@127.0.0.1:8080/v1?api-key=k3y-in-query"})
	first.Begin(ctx, "What is 2+2?", "")
	first.End(ctx, Outcome{Answer: "4", StopReason: "final_answer"})
	id := first.ID()
	first.Close()
	other := openSession(t, path)
	other.Use(Run{Provider: "ollama", Model: "qwen2.5:7b"})
	other.Begin(ctx, "Unrelated", "")
	other.End(ctx, Outcome{Answer: "yes", StopReason: "final_answer"})
	other.Close()

	tests := []struct {
		name, id string
	}{
		{"by its ID", id},
		{"by the start of its ID", id[:5]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openSession(t, path)
			defer s.Close()
			if _, ok := s.Continued(); ok {
				t.Fatal("a new session says it continues a conversation")
			}
			if err := s.Continue(ctx, tt.id); err != nil {
				t.Fatal(err)
			}
			last, ok := s.Continued()
			if !ok || s.ID() != id || last.Provider != "openai" || last.Model != "gpt-fake" || last.Protocol != "native" {
				t.Fatalf("Continued() = %+v, %v in %s", last, ok, s.ID())
			}
			if want := "http://me@127.0.0.1:8080/v1?api-key=REDACTED"; last.BaseURL != want {
				t.Errorf("the server's URL is kept as %q, want %q", last.BaseURL, want)
			}
			if !s.SameServer("http://me:hunter2-password@127.0.0.1:8080/v1?api-key=k3y-in-query") || s.SameServer("http://127.0.0.1:9090/v1") {
				t.Error("SameServer does not tell the conversation's server, with its secrets, from another")
			}
			if turns := s.Turns(); len(turns) != 1 || turns[0].Answer != "4" {
				t.Errorf("Turns() = %+v", turns)
			}
		})
	}
	t.Run("the latest conversation when no ID is given", func(t *testing.T) {
		s := openSession(t, path)
		defer s.Close()
		if err := s.Continue(ctx, ""); err != nil {
			t.Fatal(err)
		}
		if last, _ := s.Continued(); last.Question != "Unrelated" || last.Model != "qwen2.5:7b" {
			t.Errorf("Continued() = %+v", last)
		}
	})
	t.Run("an unknown ID is not found, and the session stays new", func(t *testing.T) {
		s := openSession(t, path)
		defer s.Close()
		before := s.ID()
		if err := s.Continue(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Continue = %v, want ErrNotFound", err)
		}
		if _, ok := s.Continued(); ok || s.ID() != before {
			t.Error("a failed Continue changed the session")
		}
	})
	t.Run("an empty log has no latest conversation", func(t *testing.T) {
		s := openSession(t, "")
		defer s.Close()
		if err := s.Continue(ctx, ""); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Continue = %v, want ErrNotFound", err)
		}
	})
}

func TestSessionKeepsWriteErrors(t *testing.T) {
	s := openSession(t, "")
	s.store.Close()
	s.Begin(context.Background(), "q", "")
	s.Add(Event{Kind: "thought"})
	if s.Close() == nil {
		t.Fatal("writing to a closed log reported no error")
	}
}

func TestANilSessionRecordsNothing(t *testing.T) {
	var s *Session
	ctx := context.Background()
	s.Use(Run{Model: "m"})
	s.Begin(ctx, "q", "")
	s.Event(event.Event{Kind: event.Thought})
	s.End(ctx, Outcome{})
	s.Restart()
	if _, ok := s.Continued(); ok || s.ID() != "" || s.Turns() != nil || s.SameServer("http://x") || s.Close() != nil {
		t.Fatal("a nil Session did something")
	}
}

// TestSessionIsSafeForConcurrentUse has events come from several
// goroutines at once, as the agent's events and a chat's reset may.
func TestSessionIsSafeForConcurrentUse(t *testing.T) {
	s := openSession(t, "")
	ctx := context.Background()
	s.Begin(ctx, "q", "")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				s.Event(event.Event{Kind: event.Observation, Iteration: g*100 + i, Text: "x"})
				s.ID()
				s.Continued()
			}
		})
	}
	wg.Wait()
	s.End(ctx, Outcome{Answer: "a"})
	s.Flush(ctx)
	runs, err := s.store.Runs(ctx, s.ID())
	if err != nil || len(runs[0].Events) != 160 {
		t.Fatalf("Runs = %v; want 160 events", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAParseErrorIsShownAsTheTraceShowedIt logs a parse error: logs show
// says what was wrong, as the live trace did, not the correction written
// for the model; the log keeps the correction too, and the problem where
// an older react-agent reads it as the arguments it ignores.
func TestAParseErrorIsShownAsTheTraceShowedIt(t *testing.T) {
	s := openSession(t, "")
	defer s.Close()
	ctx := context.Background()
	correction := "Your reply has a Thought but neither an Action nor a Final Answer.\n\nThe format of a reply:\nThought: <your reasoning>"
	s.Begin(ctx, "q", "")
	s.Event(event.Event{Kind: event.ParseError, Iteration: 1, Text: correction, Err: &parser.Error{Err: parser.ErrNoAction, Message: correction}})
	s.Event(event.Event{Kind: event.Observation, Iteration: 1, Text: correction, Failed: true})
	s.End(ctx, Outcome{StopReason: "error"})
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	runs, err := s.store.Runs(ctx, s.ID())
	if err != nil || len(runs) != 1 {
		t.Fatalf("Runs = %d, %v", len(runs), err)
	}
	if e := runs[0].Events[0]; e.Problem != parser.ErrNoAction.Error() || e.Text != correction || e.Args != nil {
		t.Errorf("the parse error read back: %+v", e)
	}
	var b strings.Builder
	if err := WriteText(&b, runs); err != nil {
		t.Fatal(err)
	}
	if want := "[1] parse error: " + parser.ErrNoAction.Error() + "\n"; !strings.Contains(b.String(), want) || strings.Count(b.String(), "neither an Action") > 1 {
		t.Errorf("logs show: want %q, and the correction at most once, as the observation:\n%s", want, b.String())
	}
	var raw string
	if err := s.store.db.QueryRowContext(ctx, "SELECT args FROM events WHERE kind = 'parse_error'").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var older map[string]any // as an older react-agent reads the column
	if err := json.Unmarshal([]byte(raw), &older); err != nil || older["problem"] != parser.ErrNoAction.Error() {
		t.Errorf("the args column holds %q, %v", raw, err)
	}
}

// TestACallMadeAgainIsLoggedWithItsReason logs the retry events of a run:
// logs show shows them as the live trace did, the warning line of a call
// made again, and the log keeps their attempt, wait and reason.
func TestACallMadeAgainIsLoggedWithItsReason(t *testing.T) {
	s := openSession(t, "")
	defer s.Close()
	ctx := context.Background()
	text := "model call failed, retrying in 500ms: ollama: HTTP 503: overloaded"
	s.Begin(ctx, "q", "")
	s.Event(event.Event{Kind: event.Retry, Iteration: 1, Attempt: 2, Wait: 500 * time.Millisecond, RetryReason: event.RetryReason("server_error"), Text: text})
	s.End(ctx, Outcome{StopReason: "final_answer", Answer: "42"})
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	runs, err := s.store.Runs(ctx, s.ID())
	if err != nil || len(runs) != 1 || len(runs[0].Events) != 1 {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	e := runs[0].Events[0].agentEvent()
	if e.Kind != event.Retry || e.Attempt != 2 || e.Wait != 500*time.Millisecond || e.RetryReason != event.RetryReason("server_error") || e.Text != text || e.Args != nil {
		t.Errorf("the retry read back: %+v", e)
	}
	var b strings.Builder
	if err := WriteText(&b, runs); err != nil {
		t.Fatal(err)
	}
	if want := "[1] warning: " + text + "\n"; !strings.Contains(b.String(), want) {
		t.Errorf("logs show: want %q:\n%s", want, b.String())
	}
}

// TestSessionKeepsWhetherTheProviderWasFound logs a run whose provider
// was found by asking the server, and one whose provider was chosen: a
// conversation continued says which each was, so that the key of the
// provider's variable goes only to a server the user chose.
func TestSessionKeepsWhetherTheProviderWasFound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	ctx := context.Background()
	for _, found := range []bool{true, false} {
		s := openSession(t, path)
		s.Use(Run{Provider: "vllm", ProviderFound: found, Model: "m", BaseURL: "http://127.0.0.1:8000/v1"})
		s.Begin(ctx, "What is 2+2?", "")
		s.End(ctx, Outcome{Answer: "4", StopReason: "final_answer"})
		id := s.ID()
		s.Close()
		again := openSession(t, path)
		if err := again.Continue(ctx, id); err != nil {
			t.Fatal(err)
		}
		if last, _ := again.Continued(); last.ProviderFound != found {
			t.Errorf("a provider found %v is continued as found %v", found, last.ProviderFound)
		}
		again.Close()
	}
}
