package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// Report is what an evaluation found: the outcome of every run.
type Report struct {
	Targets  []Target
	Outcomes []Outcome
	// HideTime leaves the time column out of the table, for output that
	// must be the same from run to run (a replayed evaluation, a test).
	HideTime bool
	// Width is the columns the table may take, a terminal's; zero means
	// no limit. A wider table names long models by keys (m1, m2, …) listed
	// below it, and puts the columns that still do not fit in a second
	// table under the first.
	Width int
}

// Summary adds up the runs of one target.
type Summary struct {
	Target       Target
	Runs         int
	Correct      int
	Failed       int // runs that ended in an error without an answer, timed out or not
	TimedOut     int // runs that reached the time limit without an answer, of Failed
	MeanSteps    float64
	MedianSteps  float64
	FormatErrors int // replies the parser could not read
	Recovered    int // replies the tolerant parser read, or calls rescued from the text
	Forced       int // answers asked for at a limit
	TokensIn     int
	TokensOut    int
	Time         time.Duration // the runs' time, added up
}

// CorrectPct is the share of runs answered right, in percent.
func (s Summary) CorrectPct() float64 {
	if s.Runs == 0 {
		return 0
	}
	return 100 * float64(s.Correct) / float64(s.Runs)
}

// Summaries adds up the outcomes of each target, in the targets' order.
func (r *Report) Summaries() []Summary {
	var out []Summary
	for _, t := range r.Targets {
		s := Summary{Target: t}
		var steps []int
		for _, o := range r.Outcomes {
			if o.Target != t {
				continue
			}
			s.Runs++
			if o.Correct {
				s.Correct++
			}
			if o.Err != "" {
				s.Failed++
			}
			if o.TimedOut {
				s.TimedOut++
			}
			steps = append(steps, o.Steps)
			s.FormatErrors += o.FormatErrors
			s.Recovered += o.Recovered + o.Rescued
			if o.Forced {
				s.Forced++
			}
			s.TokensIn += o.TokensIn
			s.TokensOut += o.TokensOut
			s.Time += o.Duration
		}
		s.MeanSteps, s.MedianSteps = meanMedian(steps)
		out = append(out, s)
	}
	return out
}

func meanMedian(xs []int) (mean, median float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	sum := 0
	for _, x := range xs {
		sum += x
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	median = float64(s[len(s)/2])
	if len(s)%2 == 0 {
		median = float64(s[len(s)/2-1]+s[len(s)/2]) / 2
	}
	return float64(sum) / float64(len(xs)), median
}

// WriteTable writes the comparison, one row a model and protocol, within
// r.Width columns.
func (r *Report) WriteTable(w io.Writer) error {
	rows := [][]string{{"model", "protocol", "correct", "steps mean/median", "format errors", "recovered", "forced", "failed", "tokens in/out"}}
	if !r.HideTime {
		rows[0] = append(rows[0], "time")
	}
	sums := r.Summaries()
	for _, s := range sums {
		row := []string{s.Target.Model, s.Target.Protocol, fmt.Sprintf("%d/%d %.0f%%", s.Correct, s.Runs, s.CorrectPct()),
			fmt.Sprintf("%.1f / %s", s.MeanSteps, trimFloat(s.MedianSteps)), fmt.Sprint(s.FormatErrors), fmt.Sprint(s.Recovered),
			fmt.Sprint(s.Forced), fmt.Sprint(s.Failed), fmt.Sprintf("%d / %d", s.TokensIn, s.TokensOut)}
		if !r.HideTime {
			row = append(row, s.Time.Round(10*time.Millisecond).String())
		}
		rows = append(rows, row)
	}
	var legend []string
	if r.Width > 0 && tableWidth(rows) > r.Width && tableWidth(columns(rows, 0, 0)[1:]) > r.Width/3 {
		// Long names (provider:model@URL) would leave no room.
		keys := map[string]string{}
		for _, row := range rows[1:] {
			if _, ok := keys[row[0]]; !ok {
				keys[row[0]] = fmt.Sprintf("m%d", len(keys)+1)
				legend = append(legend, keys[row[0]]+"  "+row[0])
			}
			row[0] = keys[row[0]]
		}
	}
	// The model and protocol name every row; the other columns go to as
	// many tables as it takes to fit.
	for first := 2; first < len(rows[0]); {
		last := first + 1
		for last < len(rows[0]) && (r.Width <= 0 || tableWidth(columns(rows, first, last+1)) <= r.Width) {
			last++
		}
		if first > 2 {
			fmt.Fprintln(w)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, row := range columns(rows, first, last) {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		first = last
	}
	if len(legend) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(legend, "\n"))
	}
	return nil
}

// columns returns the model and protocol columns of rows, with the
// columns from first up to last.
func columns(rows [][]string, first, last int) [][]string {
	out := make([][]string, len(rows))
	for i, row := range rows {
		out[i] = append(append([]string{}, row[:2]...), row[first:last]...)
	}
	return out
}

// tableWidth returns the columns rows take as WriteTable writes them: each
// column as wide as its widest cell, two spaces between.
func tableWidth(rows [][]string) int {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	total := 0
	for _, n := range widths {
		total += n + 2
	}
	return total - 2
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0")
}

// WriteJSON writes one JSON object a run, in the report's order.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, o := range r.Outcomes {
		type run struct {
			Model    string `json:"model"`
			Protocol string `json:"protocol"`
			ID       string `json:"id"`
			Outcome
		}
		o.Question.Tools = nil
		if err := enc.Encode(run{o.Target.Model, o.Target.Protocol, o.Question.ID, o}); err != nil {
			return err
		}
	}
	return nil
}

// WriteFailures writes, for each run that was wrong or failed, what was
// asked, what was expected, what the model answered and wrote, and where
// it went wrong. Text from the model is quoted, never written raw.
func (r *Report) WriteFailures(w io.Writer) error {
	for _, o := range r.Outcomes {
		if o.Correct {
			continue
		}
		fmt.Fprintf(w, "%s, %s, %s: %s\n", o.Target.Model, o.Target.Protocol, o.Question.ID, o.Why)
		fmt.Fprintf(w, "  question: %q\n", o.Question.Question)
		fmt.Fprintf(w, "  expected: %s\n", expected(o.Question))
		fmt.Fprintf(w, "  answered: %q (stop: %s, %s, %s)\n", o.Answer, o.StopReason, count(o.Steps, "step", "steps"), count(o.FormatErrors, "format error", "format errors"))
		for i, reply := range o.Replies {
			fmt.Fprintf(w, "  reply %d: %q\n", i+1, clip(reply, MaxReplyKept))
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return nil
}

// expected says how a question judges its answer.
func expected(q Question) string {
	var parts []string
	if q.Expect != "" {
		parts = append(parts, fmt.Sprintf("%q", q.Expect))
	}
	if len(q.Contains) > 0 {
		parts = append(parts, fmt.Sprintf("containing %q", []string(q.Contains)))
	}
	if q.Regex != "" {
		parts = append(parts, "matching "+q.Regex)
	}
	if q.Number != nil {
		n := formatNumber(*q.Number)
		if q.Tolerance > 0 {
			n += fmt.Sprintf(" ± %v", q.Tolerance)
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, ", ")
}

// clip returns s cut to its first n bytes, on a character's boundary,
// and "…", or s when it is no longer, as a copy: a short answer is often
// part of a long reply, which it would keep whole.
func clip(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// count says n of a thing: "1 step", "2 steps".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
