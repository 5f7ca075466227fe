package logs

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/react-agent/react-agent/agent/trace"
	"github.com/react-agent/react-agent/tools/escape"
)

// WriteList writes conversations as a table for people: ID, when, model,
// runs, status and the first question, on one line each, within width
// columns (a terminal's; 0 for no bound, when a question is cut at 60
// characters). Text from outside (questions, model names) is written with
// control characters escaped, so that it cannot move the cursor or change
// colours.
func WriteList(w io.Writer, list []Summary, width int) error {
	const gap = 2 // between columns
	modelMax, questionMax := 30, 60
	if width > 0 {
		// The model and the question share what the other columns leave:
		// the model at most a third of it when it is short, the question
		// what it needs of the rest (at least 16 characters), and the
		// model what is left. The table fits 80 columns; fewer, it is as
		// narrow as it can be.
		idW, runsW, statusW, modelW, questionW := len("ID"), len("RUNS"), len("STATUS"), len("MODEL"), len("QUESTION")
		for _, s := range list {
			idW = max(idW, utf8.RuneCountInString(s.ID))
			runsW = max(runsW, len(fmt.Sprint(s.Runs)))
			statusW = max(statusW, len(s.Status))
			modelW = max(modelW, utf8.RuneCountInString(oneLine(strings.Trim(s.Provider+" "+s.Model, " "), modelMax)))
			questionW = max(questionW, utf8.RuneCountInString(oneLine(s.Question, questionMax)))
		}
		room := width - 1 - (idW + len("2006-01-02 15:04") + runsW + statusW + 5*gap)
		modelMax = min(modelW, max(10, room/3))
		questionMax = max(16, min(questionW, room-modelMax))
		modelMax = min(modelW, max(modelMax, room-questionMax))
	}
	tw := tabwriter.NewWriter(w, 0, 0, gap, ' ', 0)
	fmt.Fprintln(tw, "ID\tLAST\tMODEL\tRUNS\tSTATUS\tQUESTION")
	for _, s := range list {
		model := strings.Trim(s.Provider+" "+s.Model, " ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", s.ID, s.Last.Local().Format("2006-01-02 15:04"),
			oneLine(model, modelMax), s.Runs, s.Status, oneLine(s.Question, questionMax))
	}
	return tw.Flush()
}

// WriteText writes runs as the agent's trace showed them, each under a
// header with its conversation's ID, its time, model and status, and the
// question, and over a line that says how it ended:
//
//	── 3f9a2c1b7d4e · 2026-11-01 14:02:07 · ollama qwen2.5:7b · answered
//	Question: What is 17 * 23 + 4?
//	[1] Thought: I will use the calculator. (1.2s)
//	[1] Action: calculator {"expression":"17 * 23 + 4"}
//	[1] Observation: 395 (1ms)
//	[2] Final Answer: 17 * 23 + 4 = 395 (0.8s)
//	final_answer · 2.1s · 1810 tokens (1722 prompt, 88 completion)
//
// The events go through the trace (package trace), as with -v: whole
// observations and reasoning, up to its bounds. Text from outside is
// written with control characters escaped.
func WriteText(w io.Writer, runs []Run) error {
	var b strings.Builder
	for i, r := range runs {
		if i > 0 {
			b.WriteString("\n")
		}
		writeRun(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRun(b *strings.Builder, r Run) {
	model := strings.Trim(r.Provider+" "+r.Model, " ")
	fmt.Fprintf(b, "── %s · %s · %s · %s\n", r.Conversation, r.Started.Local().Format("2006-01-02 15:04:05"), escape.Visible(model), r.Status)
	fmt.Fprintf(b, "Question: %s\n", hang(escape.Visible(r.Question)))
	if r.Context != "" {
		fmt.Fprintf(b, "Context: %s\n", hang(escape.Visible(r.Context)))
	}
	tr := trace.New(b, trace.Verbose(true))
	for _, e := range r.Events {
		tr.Event(e.agentEvent())
	}
	tr.Close()
	var tail []string
	if r.StopReason != "" {
		tail = append(tail, r.StopReason)
	}
	if d := took(r.Duration); d != "" {
		tail = append(tail, strings.Trim(d, " ()"))
	}
	if u := r.Usage; u.TotalTokens > 0 {
		tail = append(tail, fmt.Sprintf("%d tokens (%d prompt, %d completion)", u.TotalTokens, u.PromptTokens, u.CompletionTokens))
	}
	if r.Status == StatusUnfinished {
		tail = append(tail, "the run has no recorded end: it is still going, or its process was stopped")
	}
	if len(tail) > 0 {
		b.WriteString(strings.Join(tail, " · ") + "\n")
	}
}

// took shows a duration in parentheses, or nothing under half a
// millisecond.
func took(d time.Duration) string {
	if d >= time.Second {
		d = d.Round(100 * time.Millisecond)
	} else {
		d = d.Round(time.Millisecond)
	}
	if d <= 0 {
		return ""
	}
	return " (" + d.String() + ")"
}

// oneLine escapes s, joins its lines and cuts it to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(escape.Visible(s)), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// hang indents the lines of s after the first.
func hang(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	return first + "\n" + indent(rest, "    ")
}

// indent puts pad before each line of s that is not empty.
func indent(s, pad string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if line != "\n" {
			b.WriteString(pad)
		}
		b.WriteString(line)
	}
	return b.String()
}
