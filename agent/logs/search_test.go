package logs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSearchFindsWhatPeopleType searches a log for text as people type
// it: model names, sums, hyphens, apostrophes, URLs, quotes, words of
// FTS5's syntax, and scripts written without spaces.
func TestSearchFindsWhatPeopleType(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	runs := map[string]string{
		"qwen":   "Which model is qwen2.5:7b?",
		"gpt":    "Compare gpt-4o-mini with the others",
		"sum":    "What is 2+2?",
		"prod":   "What is 17*23? It is 391.",
		"mail":   "Write my e-mail address",
		"dont":   "I don't know the answer",
		"url":    "Fetch http://x.example/a for me",
		"quote":  `He said "hello world" twice`,
		"tokyo":  "東京の人口は約1400万人です",
		"caps":   "Write NOT in capitals, AND quickly",
		"parens": "Explain (parentheses) please",
	}
	for id, q := range runs {
		write(t, s, Run{Conversation: id, Question: q}, nil, &Outcome{Answer: "ok", StopReason: "final_answer"})
	}
	tests := []struct {
		name, text string
		want       []string
	}{
		{"a model's name with a dot finds it", "qwen2.5", []string{"qwen"}},
		{"a model's name and its tag", "qwen2.5:7b", []string{"qwen"}},
		{"a model's name with a hyphen, cut short", "gpt-4o", []string{"gpt"}},
		{"a sum", "2+2", []string{"sum"}},
		{"a product", "17*23", []string{"prod"}},
		{"a hyphenated word", "e-mail", []string{"mail"}},
		{"a word with an apostrophe", "don't", []string{"dont"}},
		{"a URL's start", "http://x", []string{"url"}},
		{"a phrase in double quotes", `"hello world"`, []string{"quote"}},
		{"a phrase finds its words in that order only", `"world hello"`, nil},
		{"a lone quote is text", `hello"`, []string{"quote"}},
		{"a quote that opens and never closes is text", `"hello`, []string{"quote"}},
		{"a word of Japanese inside a sentence", "人口", []string{"tokyo"}},
		{"the start of a Japanese sentence", "東京", []string{"tokyo"}},
		{"NOT and AND are words, not operators", "NOT AND capitals", []string{"caps"}},
		{"NEAR( is text", "NEAR(x", nil},
		{"parentheses are text", "(parentheses)", []string{"parens"}},
		{"the start of a word finds it", "paren", []string{"parens"}},
		{"case does not count", "HELLO", []string{"quote"}},
		{"every word must be found", "hello tokyo", nil},
		{"a word typed many times is one word", strings.Repeat("hello ", 100) + strings.Repeat("HELLO ", 50), []string{"quote"}},
		{"a phrase given twice is one phrase", `"hello world" "hello world" "Hello World"`, []string{"quote"}},
		{"sixteen different words are searched for", "hello hell hel he h wor world w wo worl twice twic twi tw said sai", []string{"quote"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := s.List(ctx, Query{Text: tt.text, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range list {
				got = append(got, c.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("List(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
	for _, text := range []string{"?", "*", `""`, "+ -"} {
		t.Run("a search with no word or number, "+text+", is an error", func(t *testing.T) {
			if _, err := s.List(ctx, Query{Text: text}); !errors.Is(err, ErrNoWords) {
				t.Fatalf("List(%q) = %v, want ErrNoWords", text, err)
			}
		})
	}
	tooLong := []struct{ name, text, want string }{
		{"seventeen different words", "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17", "more than 16 different words"},
		{"a text of more than 1 KiB", strings.Repeat("x", 1025), "1025 bytes long"},
	}
	for _, tt := range tooLong {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			if _, err := s.List(ctx, Query{Text: tt.text}); !errors.Is(err, ErrSearchTooLong) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("List = %v, want ErrSearchTooLong saying %q", err, tt.want)
			}
		})
	}
}
