package logs

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestWriteText(t *testing.T) {
	r, events, o := calculatorRun("c1")
	r.Started = time.Date(2026, 11, 1, 14, 2, 7, 0, time.Local)
	r.Status, r.Answer, r.StopReason, r.Usage, r.Duration = StatusAnswered, o.Answer, o.StopReason, o.Usage, o.Duration
	r.Events = events
	var b strings.Builder
	if err := WriteText(&b, []Run{r}); err != nil {
		t.Fatal(err)
	}
	want := `── c1 · 2026-11-01 14:02:07 · ollama qwen2.5:7b · answered
Question: What is 17 * 23 + 4?
[1] thinking:
    Multiply first.
[1] Thought: I will use the calculator. (1.2s)
[1] Action: calculator {"expression":"17 * 23 + 4"}
[1] Observation: 395 (1ms)
[2] Final Answer: 17 * 23 + 4 = 395 (800ms)
final_answer · 2s · 1810 tokens (1722 prompt, 88 completion)
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteTextShows(t *testing.T) {
	tests := []struct {
		name string
		run  Run
		want []string
	}{
		{"an unfinished run as such", Run{Status: StatusUnfinished, Question: "q"}, []string{"· unfinished\n", "no recorded end"}},
		{"an interrupted run", Run{Status: StatusInterrupted, Question: "q", Events: []Event{{Kind: "error", Iteration: 1, StopReason: "cancelled"}}},
			[]string{"· interrupted\n", "[1] interrupted: the run was cancelled"}},
		{"a failed observation", Run{Events: []Event{{Kind: "observation", Iteration: 1, Failed: true, Text: "division by zero"}}},
			[]string{"[1] Observation (error): division by zero"}},
		{"a forced answer", Run{Events: []Event{{Kind: "final", Iteration: 3, Text: "42", Forced: true, StopReason: "max_iterations"}}},
			[]string{"[3] Final Answer: 42 [forced: max_iterations]"}},
		{"piped context", Run{Question: "summarise", Context: "line one\nline two"}, []string{"Context: line one\n    line two\n"}},
		{"escape codes from outside escaped", Run{Question: "\x1b[31mred\x1b[0m", Events: []Event{{Kind: "observation", Text: "a\x07b\u202ec"}}},
			[]string{`Question: \x1b[31mred\x1b[0m`, `Observation: a\x07b\u202ec`}},
		{"a call that passes for another escaped, with a note", Run{Events: []Event{{Kind: "action", Iteration: 1, Tool: "shell", Args: map[string]any{"command": "curl https://\u0430pple.com"}}}},
			[]string{`[1] Action: shell {"command":"curl https://\u0430pple.com"}`, "U+0430, a Cyrillic letter among Latin ones"}},
		{"a multi-line thought indented", Run{Events: []Event{{Kind: "thought", Iteration: 1, Text: "one\ntwo"}}}, []string{"[1] Thought: one\n    two\n"}},
		{"a notice as the trace shows it", Run{Events: []Event{{Kind: "notice", Iteration: 1, Text: "bound"}}}, []string{"[1] note: bound\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			WriteText(&b, []Run{tt.run})
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("the text lacks %q:\n%s", w, b.String())
				}
			}
			if strings.ContainsAny(b.String(), "\x1b\x07\u202e") {
				t.Errorf("control characters reach the output: %q", b.String())
			}
		})
	}
}

// TestWriteTextShowsACorrectionOnce replays a run in which the model
// wrote the same unreadable reply twice: the log keeps each correction
// twice, as the parse error and as the observation the model was shown.
// logs show printed it four times; now it shows it once, as the trace
// does, and says the second parse error is the same.
func TestWriteTextShowsACorrectionOnce(t *testing.T) {
	correction := "Your reply has a Thought but neither an Action nor a Final Answer.\n\nThe format of a reply:\nThought: <your reasoning>"
	var events []Event
	for i := 1; i <= 2; i++ {
		events = append(events, Event{Kind: "parse_error", Iteration: i, Text: correction},
			Event{Kind: "observation", Iteration: i, Text: correction, Failed: true})
	}
	var b strings.Builder
	if err := WriteText(&b, []Run{{Status: StatusFailed, Question: "q", Events: events}}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if n := strings.Count(got, "neither an Action"); n != 1 {
		t.Errorf("the correction is shown %d times, want once:\n%s", n, got)
	}
	for _, want := range []string{"[1] parse error: Your reply has", "\n    The format of a reply:\n", "[2] parse error: the same as before\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the text lacks %q:\n%s", want, got)
		}
	}
}

func TestWriteList(t *testing.T) {
	var b strings.Builder
	err := WriteList(&b, []Summary{
		{ID: "aaa111", Question: "What is\n17 * 23 + 4?", Runs: 2, Last: time.Date(2026, 11, 1, 14, 2, 0, 0, time.Local), Provider: "ollama", Model: "qwen2.5:7b", Status: StatusAnswered},
		{ID: "bbb222", Question: strings.Repeat("long ", 30) + "\x1b[2J", Runs: 1, Last: time.Date(2026, 11, 2, 9, 0, 0, 0, time.Local), Status: StatusUnfinished},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("want a header and two lines:\n%s", b.String())
	}
	for _, w := range []string{"aaa111  2026-11-01 14:02  ollama qwen2.5:7b  2     answered", "What is 17 * 23 + 4?"} {
		if !strings.Contains(lines[1], w) {
			t.Errorf("line %q lacks %q", lines[1], w)
		}
	}
	if !strings.HasSuffix(lines[2], "…") || strings.Contains(lines[2], "\x1b") {
		t.Errorf("a long question is cut, escaped: %q", lines[2])
	}
}

// TestWriteListFitsTheWidth writes conversations with long questions and
// model names at the width of a terminal of 80 columns or more: every
// line fits it, the question cut first.
func TestWriteListFitsTheWidth(t *testing.T) {
	list := []Summary{
		{ID: "a696dcc580c5", Question: strings.Repeat("How far is it ", 10), Runs: 12, Last: time.Now(), Provider: "openai", Model: "hf.co/bartowski/Qwen2.5-Coder-32B-Instruct-GGUF:Q4_K_M", Status: StatusInterrupted},
		{ID: "60e274a5a731", Question: "What is 17 * 23 + 4?", Runs: 1, Last: time.Now(), Provider: "ollama", Model: "qwen2.5:7b", Status: StatusAnswered},
	}
	for _, width := range []int{80, 100, 120} {
		var b strings.Builder
		if err := WriteList(&b, list, width); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n >= width {
				t.Errorf("at %d columns, a line of %d:\n%s", width, n, b.String())
			}
		}
		if width >= 100 && !strings.Contains(b.String(), "What is 17 * 23 + 4?") {
			t.Errorf("at %d columns, a short question is cut:\n%s", width, b.String())
		}
	}
}
