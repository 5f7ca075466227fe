package logs

import (
	"context"
	"testing"
)

// checkIndex fails t unless the full-text indexes agree with the rows
// they index.
func checkIndex(t *testing.T, s *Store) {
	t.Helper()
	for _, table := range []string{"runs_fts", "events_fts"} {
		if _, err := s.db.Exec("INSERT INTO " + table + " (" + table + ", rank) VALUES ('integrity-check', 1)"); err != nil {
			t.Fatalf("%s does not match its rows: %v", table, err)
		}
	}
}

func TestSearchFindsEventsOfRunsAtEveryStage(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	found := func(text string) bool {
		t.Helper()
		list, err := s.List(ctx, Query{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return len(list) == 1
	}
	rec, err := s.Start(ctx, Run{Conversation: "c", Question: "q"})
	if err != nil {
		t.Fatal(err)
	}
	rec.Add(ctx, Event{Kind: "observation", Text: "aardvark"})
	if !found("aardvark") {
		t.Fatal("an unfinished run's event is not found")
	}
	rec.Add(ctx, Event{Kind: "observation", Text: "bandicoot"})
	if !found("bandicoot") || !found("aardvark") {
		t.Fatal("an event added after a search is not found")
	}
	rec.Add(ctx, Event{Kind: "final", Text: "capybara"})
	rec.Finish(ctx, Outcome{Answer: "capybara"})
	if !found("capybara") || !found("aardvark") {
		t.Fatal("a finished run's events are not found")
	}
	checkIndex(t, s)
	if err := s.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if found("aardvark") || found("capybara") {
		t.Fatal("a deleted run's events are still found")
	}
	checkIndex(t, s)
}
