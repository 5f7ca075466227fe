package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func num(f float64) *float64 { return &f }

func TestJudge(t *testing.T) {
	tests := []struct {
		name   string
		q      Question
		answer string
		want   bool
	}{
		{"exact, case and full stop ignored", Question{Expect: "Paris"}, "paris.", true},
		{"exact, another answer", Question{Expect: "Paris"}, "Lyon", false},
		{"contains all", Question{Contains: []string{"frank", "herbert"}}, "Dune was written by Frank Herbert.", true},
		{"contains, one missing", Question{Contains: []string{"frank", "asimov"}}, "Frank Herbert", false},
		{"regex", Question{Regex: `^\d{4}$`}, "2009", true},
		{"regex, no match", Question{Regex: `^\d{4}$`}, "in 2009", false},
		{"number after the last equals sign", Question{Number: num(395)}, "17 * 23 + 4 = 395", true},
		{"number first in prose", Question{Number: num(395)}, "395, from 17 * 23 + 4", true},
		{"number with a decimal part", Question{Number: num(395)}, "about 395.0", true},
		{"number with thousands separators", Question{Number: num(14000000)}, "Tokyo has 14,000,000 people.", true},
		{"negative number", Question{Number: num(-5)}, "The result is -5.", true},
		{"number within tolerance", Question{Number: num(3.14159), Tolerance: 0.001}, "pi is about 3.1416", true},
		{"number outside tolerance", Question{Number: num(3.14159), Tolerance: 0.00001}, "3.1416", false},
		{"another number", Question{Number: num(395)}, "17 * 23 + 4 = 394", false},
		{"no number", Question{Number: num(1)}, "one", false},
		{"empty answer", Question{Expect: "x"}, "  ", false},
		{"several kinds must all hold", Question{Contains: []string{"395"}, Number: num(395)}, "It is 395.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := tt.q.Judge(tt.answer)
			if ok != tt.want {
				t.Errorf("Judge(%q) = %v (%s), want %v", tt.answer, ok, why, tt.want)
			}
			if !ok && why == "" {
				t.Error("a wrong answer has no reason")
			}
		})
	}
}

func TestLoadQuestionsErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"no way to judge", `{"question": "q"}`, "nothing says how to judge"},
		{"no question", `{"expect": "x"}`, `"question" is missing`},
		{"unknown field", `{"question": "q", "expected": "x"}`, "the fields are"},
		{"bad regex", `{"question": "q", "regex": "("}`, `"regex"`},
		{"the same id twice", `{"id": "a", "question": "q", "expect": "x"}` + "\n" + `{"id": "a", "question": "r", "expect": "y"}`, "also on line 1"},
		{"empty", "# nothing\n", "holds no questions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "set.jsonl")
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadQuestions(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestLoadQuestions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "set.jsonl")
	text := "# arithmetic\n{\"question\": \"2+2?\", \"number\": 4}\n\n{\"id\": \"who\", \"question\": \"Who?\", \"contains\": \"Ada\", \"tools\": [\"web_search\"]}\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	qs, err := LoadQuestions(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].ID != "q2" || qs[1].ID != "who" || qs[1].Contains[0] != "Ada" || qs[1].Tools[0] != "web_search" {
		t.Errorf("got %+v", qs)
	}
}
