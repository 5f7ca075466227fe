// Package eval runs a set of questions against several models and
// protocols and compares how well each works as an agent: answers right,
// steps taken, replies the parser could not read or had to recover, forced
// answers, tokens and time.
//
// The caller says how one question is run against one target (a Runner:
// build the model, the tools and the agent); Run runs them all, some at
// once, and the Report writes the comparison.
package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/react-agent/react-agent/tools/bounded"
)

// Question is one line of a question set, a JSONL file. It says how the
// answer is judged: by Expect, Contains, Regex or Number, all of those
// given having to hold.
type Question struct {
	// ID names the question in reports; it defaults to "q" and the line
	// number.
	ID string `json:"id,omitempty"`
	// Question is what the agent is asked.
	Question string `json:"question"`
	// Expect is the answer, compared after trimming, ignoring case and a
	// final full stop.
	Expect string `json:"expect,omitempty"`
	// Contains lists texts the answer must all hold, ignoring case; a
	// single string is accepted too.
	Contains stringList `json:"contains,omitempty"`
	// Regex is a regular expression (RE2) the answer must match.
	Regex string `json:"regex,omitempty"`
	// Number is the number the answer must give, within Tolerance: the
	// number after the answer's last "=" when it has one ("17 * 23 + 4 =
	// 395"), else its first number (commas between thousands allowed).
	Number *float64 `json:"number,omitempty"`
	// Tolerance is the absolute difference allowed from Number; zero
	// means the numbers must be equal to nine significant digits.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Tools lists the tools the agent may use for the question; empty
	// means the caller's default set.
	Tools []string `json:"tools,omitempty"`

	re *regexp.Regexp
}

// stringList is a list of strings that also reads a single string.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = stringList{s}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New(`"contains" must be a string or a list of strings`)
	}
	*l = list
	return nil
}

// LoadQuestions reads a question set: one JSON object a line; blank lines
// and lines starting with # or // are skipped. It must be a regular file
// of at most [MaxQuestionSet] bytes (a device or a FIFO is refused, not
// waited on), and a line at most 1 MiB.
func LoadQuestions(path string) ([]Question, error) {
	f, err := bounded.OpenFile(path, MaxQuestionSet)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	var qs []Question
	ids := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") {
			continue
		}
		q, err := parseQuestion(line)
		if err != nil {
			return nil, fmt.Errorf("eval: %s:%d: %w", path, n, err)
		}
		if q.ID == "" {
			q.ID = fmt.Sprintf("q%d", n)
		}
		if first, dup := ids[q.ID]; dup {
			return nil, fmt.Errorf("eval: %s:%d: the id %q is also on line %d; give each question its own", path, n, q.ID, first)
		}
		ids[q.ID] = n
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("eval: %s holds no questions: write one JSON object a line, such as %s", path,
			`{"question": "What is 17 * 23 + 4?", "number": 395}`)
	}
	return qs, nil
}

// parseQuestion reads and checks one line of a question set.
func parseQuestion(line string) (Question, error) {
	var q Question
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, fmt.Errorf("not a question (%v): the fields are id, question, expect, contains, regex, number, tolerance and tools", err)
	}
	if strings.TrimSpace(q.Question) == "" {
		return q, errors.New(`the "question" is missing`)
	}
	if q.Expect == "" && len(q.Contains) == 0 && q.Regex == "" && q.Number == nil {
		return q, errors.New(`nothing says how to judge the answer: give "expect", "contains", "regex" or "number"`)
	}
	if q.Regex != "" {
		re, err := regexp.Compile(q.Regex)
		if err != nil {
			return q, fmt.Errorf(`"regex": %w`, err)
		}
		q.re = re
	}
	if q.Tolerance < 0 {
		return q, errors.New(`"tolerance" must not be negative`)
	}
	return q, nil
}

// number finds the first number of a text: digits, perhaps signed, with
// commas between thousands and a decimal part.
var number = regexp.MustCompile(`[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// Judge reports whether answer is right, and when it is not, why.
func (q Question) Judge(answer string) (ok bool, why string) {
	a := strings.TrimSpace(answer)
	if a == "" {
		return false, "no answer"
	}
	if q.Expect != "" && !strings.EqualFold(strings.TrimSuffix(a, "."), strings.TrimSuffix(strings.TrimSpace(q.Expect), ".")) {
		return false, fmt.Sprintf("the answer is not %q", q.Expect)
	}
	for _, c := range q.Contains {
		if !strings.Contains(strings.ToLower(a), strings.ToLower(c)) {
			return false, fmt.Sprintf("the answer does not contain %q", c)
		}
	}
	re := q.re
	if re == nil && q.Regex != "" {
		re = regexp.MustCompile(q.Regex)
	}
	if re != nil && !re.MatchString(a) {
		return false, fmt.Sprintf("the answer does not match %s", q.Regex)
	}
	if q.Number != nil {
		at := a
		if i := strings.LastIndex(a, "="); i >= 0 && number.MatchString(a[i:]) {
			at = a[i:]
		}
		m := number.FindString(at)
		if m == "" {
			return false, fmt.Sprintf("the answer holds no number; want %s", formatNumber(*q.Number))
		}
		got, err := strconv.ParseFloat(strings.NewReplacer(",", "", "−", "-").Replace(m), 64)
		if err != nil {
			return false, fmt.Sprintf("the answer's number %q does not read: %v", m, err)
		}
		tol := q.Tolerance
		if tol == 0 {
			tol = math.Abs(*q.Number) * 1e-9
		}
		if math.Abs(got-*q.Number) > tol {
			return false, fmt.Sprintf("the answer's number is %s, want %s", formatNumber(got), formatNumber(*q.Number))
		}
	}
	return true, ""
}

// formatNumber writes a number as people do: 7006652, not 7.006652e+06.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// MaxQuestionSet is the most read of a question set: tens of thousands
// of questions.
const MaxQuestionSet = 16 << 20
