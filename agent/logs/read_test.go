package logs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fill writes three conversations: a calculator chat of two runs on
// qwen, a search on llama three days ago, and an unfinished run on gpt.
func fill(t *testing.T, s *Store) {
	t.Helper()
	r, events, o := calculatorRun("aaa111")
	write(t, s, r, events, &o)
	write(t, s, Run{Conversation: "aaa111", Question: "And divided by 5?", Model: "qwen2.5:7b"}, nil,
		&Outcome{Answer: "79", StopReason: "final_answer"})
	write(t, s, Run{Conversation: "bbb222", Question: "Who wrote Dune?", Provider: "ollama", Model: "llama3.1:8b",
		Started: time.Now().Add(-72 * time.Hour)},
		[]Event{{Kind: "observation", Tool: "web_search", Text: "Frank Herbert's novel, published in 1965"}},
		&Outcome{Answer: "Frank Herbert", StopReason: "final_answer"})
	write(t, s, Run{Conversation: "abc333", Question: "Résumé of the café menu", Provider: "openai", Model: "gpt-4o-mini"}, nil, nil)
}

func TestList(t *testing.T) {
	s := openTemp(t)
	fill(t, s)
	ctx := context.Background()
	tests := []struct {
		name  string
		query Query
		want  []string
	}{
		{"everything, the latest first", Query{}, []string{"abc333", "bbb222", "aaa111"}},
		{"a limit keeps the latest", Query{Limit: 2}, []string{"abc333", "bbb222"}},
		{"a word of a question", Query{Text: "Dune"}, []string{"bbb222"}},
		{"a word of an answer, in another case", Query{Text: "herbert"}, []string{"bbb222"}},
		{"a word of an observation", Query{Text: "novel"}, []string{"bbb222"}},
		{"a word of a later question finds the conversation", Query{Text: "divided"}, []string{"aaa111"}},
		{"the name of a tool's argument", Query{Text: "expression"}, []string{"aaa111"}},
		{"the start of a word", Query{Text: "calcul"}, []string{"aaa111"}},
		{"every word must match", Query{Text: "Dune calculator"}, nil},
		{"accents do not count", Query{Text: "resume cafe"}, []string{"abc333"}},
		{"FTS5 syntax is taken as text", Query{Text: `"Dune" OR NEAR(`}, nil},
		{"a quote in the text is harmless", Query{Text: `Dune"`}, []string{"bbb222"}},
		{"a part of the model's name", Query{Model: "QWEN"}, []string{"aaa111"}},
		{"since a time leaves out older runs", Query{Since: time.Now().Add(-24 * time.Hour)}, []string{"abc333", "aaa111"}},
		{"filters combine", Query{Text: "Dune", Since: time.Now().Add(-24 * time.Hour)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := s.List(ctx, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range list {
				got = append(got, c.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("List(%+v) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
	t.Run("a summary shows the first question and the latest run", func(t *testing.T) {
		list, _ := s.List(ctx, Query{Model: "qwen"})
		c := list[0]
		if c.Question != "What is 17 * 23 + 4?" || c.Runs != 2 || c.Answer != "79" || c.Status != StatusAnswered || c.Model != "qwen2.5:7b" {
			t.Fatalf("summary %+v", c)
		}
	})
}

func TestResolve(t *testing.T) {
	s := openTemp(t)
	fill(t, s)
	tests := []struct {
		name, id, want, err string
	}{
		{"a whole ID", "bbb222", "bbb222", ""},
		{"a unique prefix", "bb", "bbb222", ""},
		{"an ambiguous prefix names the candidates", "a", "", "aaa111, abc333"},
		{"an unknown ID is not found", "zzz", "", "not in the log"},
		{"an empty ID is not found", "", "", "not in the log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(context.Background(), tt.id)
			if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Resolve(%q) = %q, %v; want %q and an error with %q", tt.id, got, err, tt.want, tt.err)
			}
		})
	}
}

func TestLatestAndTurns(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.Latest(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Latest of an empty log: %v, want ErrNotFound", err)
	}
	fill(t, s)
	write(t, s, Run{Conversation: "aaa111", Question: "A question that failed"}, nil, &Outcome{StopReason: "error", Error: "boom"})
	latest, err := s.Latest(ctx)
	if err != nil || latest != "aaa111" {
		t.Fatalf("Latest = %q, %v; want aaa111", latest, err)
	}
	turns, err := s.Turns(ctx, latest)
	want := []Turn{{"What is 17 * 23 + 4?", "17 * 23 + 4 = 395"}, {"And divided by 5?", "79"}}
	if err != nil || !slices.Equal(turns, want) {
		t.Fatalf("Turns = %v, %v; want the answered turns %v", turns, err, want)
	}
}

func TestDelete(t *testing.T) {
	s := openTemp(t)
	fill(t, s)
	ctx := context.Background()
	if err := s.Delete(ctx, "aaa111"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Runs(ctx, "aaa111"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the deleted conversation is still read: %v", err)
	}
	var events int
	s.db.QueryRow("SELECT COUNT(*) FROM events").Scan(&events)
	if events != 1 {
		t.Errorf("%d events left, want the other conversation's 1", events)
	}
	if list, _ := s.List(ctx, Query{Text: "calculator"}); len(list) != 0 {
		t.Errorf("the search still finds the deleted conversation: %+v", list)
	}
	checkIndex(t, s)
	if list, _ := s.List(ctx, Query{Text: "novel"}); len(list) != 1 {
		t.Errorf("the search no longer finds the other conversation's events: %+v", list)
	}
	if err := s.Delete(ctx, "aaa111"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting it again: %v, want ErrNotFound", err)
	}
}
