package score

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/react-agent/react-agent/parser"
)

// Corpus is a labelled corpus: the cases read, and the lines that could
// not be read, which are reported and not scored.
type Corpus struct {
	Cases     []Case
	Malformed []LineError
}

// Case is one labelled reply.
type Case struct {
	// Line is the case's line in the corpus, from 1.
	Line int
	// ID is the case's id as written, or nil.
	ID json.RawMessage
	// Text is the reply.
	Text string
	// Expect is what the reply must read as.
	Expect Expect
	// Truncated and Previous are what the loop would have known (see
	// parser.Options).
	Truncated bool
	Previous  []Past
}

// Expect is the label of a reply: exactly one of an action, a final
// answer, the start of one, or no step at all.
type Expect struct {
	// Action is the tool the reply calls.
	Action *string `json:"action,omitempty"`
	// Input is the call's input as JSON, when the label gives one: a
	// string is compared with the call's primary argument (or its only
	// one), an object with the arguments, as JSON values.
	Input json.RawMessage `json:"input,omitempty"`
	// FinalAnswer is the whole final answer.
	FinalAnswer *string `json:"final_answer,omitempty"`
	// FinalAnswerPrefix is how the final answer starts.
	FinalAnswerPrefix *string `json:"final_answer_prefix,omitempty"`
	// Unparseable says that the reply must give a parse error.
	Unparseable bool `json:"unparseable,omitempty"`
}

// Past is a step before a reply, as a corpus line gives it.
type Past struct {
	Action      string          `json:"action"`
	Input       json.RawMessage `json:"input"`
	Observation string          `json:"observation"`
}

// LineError is a corpus line that could not be read.
type LineError struct {
	Line int
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// MarshalJSON writes the line error as {"line", "error"}.
func (e LineError) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Line  int    `json:"line"`
		Error string `json:"error"`
	}{e.Line, e.Err.Error()})
}

// ErrLine is matched by the error of a corpus line that is not a case.
var ErrLine = errors.New("not a labelled reply")

// maxLine bounds a corpus line.
const maxLine = 16 << 20

// Read reads a corpus of JSON lines. A line that is not a case is kept in
// Malformed with the reason, and the rest is still read; the error is
// for a corpus that cannot be read at all.
func Read(r io.Reader) (Corpus, error) {
	var c Corpus
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			var long []byte
			long, err = readRest(br, line)
			line = long
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if cs, lerr := readCase(n, line); lerr != nil {
				c.Malformed = append(c.Malformed, LineError{Line: n, Err: lerr})
			} else {
				c.Cases = append(c.Cases, cs)
			}
		}
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return c, fmt.Errorf("reading line %d: %w", n, err)
		}
	}
}

// readRest reads the rest of a line longer than the reader's buffer, up
// to maxLine bytes; a longer line is cut, and then not valid JSON.
func readRest(br *bufio.Reader, first []byte) ([]byte, error) {
	line := append([]byte(nil), first...)
	for {
		more, err := br.ReadSlice('\n')
		if len(line) < maxLine {
			line = append(line, more[:min(len(more), maxLine-len(line))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// readCase reads line n of a corpus.
func readCase(n int, line []byte) (Case, error) {
	var raw struct {
		ID        json.RawMessage  `json:"id"`
		Text      *string          `json:"text"`
		Expect    *json.RawMessage `json:"expect"`
		Truncated bool             `json:"truncated"`
		Previous  []Past           `json:"previous"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Case{}, fmt.Errorf("%w: not a JSON object: %v", ErrLine, err)
	}
	if raw.Text == nil {
		return Case{}, fmt.Errorf(`%w: no "text"`, ErrLine)
	}
	if raw.Expect == nil {
		return Case{}, fmt.Errorf(`%w: no "expect"`, ErrLine)
	}
	var e Expect
	dec := json.NewDecoder(bytes.NewReader(*raw.Expect))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Case{}, fmt.Errorf(`%w: "expect" is not one of {"action", "input"}, {"final_answer"}, {"final_answer_prefix"} or {"unparseable": true}: %v`, ErrLine, err)
	}
	kinds := 0
	for _, set := range []bool{e.Action != nil, e.FinalAnswer != nil, e.FinalAnswerPrefix != nil, e.Unparseable} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds != 1:
		return Case{}, fmt.Errorf(`%w: "expect" must hold exactly one of "action", "final_answer", "final_answer_prefix" and "unparseable": true`, ErrLine)
	case e.Input != nil && e.Action == nil:
		return Case{}, fmt.Errorf(`%w: "expect" has an "input" but no "action"`, ErrLine)
	case e.Input != nil && !stringOrObject(e.Input):
		return Case{}, fmt.Errorf(`%w: the expected "input" must be a string or an object`, ErrLine)
	}
	return Case{Line: n, ID: raw.ID, Text: *raw.Text, Expect: e, Truncated: raw.Truncated, Previous: raw.Previous}, nil
}

// stringOrObject reports whether raw is a JSON string or object.
func stringOrObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == '"' || t[0] == '{')
}

// Report is how the parser read a corpus.
type Report struct {
	// Total counts the cases scored, Passed those read as labelled.
	Total  int `json:"total"`
	Passed int `json:"passed"`
	// Failures are the cases not read as labelled, in corpus order.
	Failures []Failure `json:"failures"`
	// Malformed are the lines that are not cases.
	Malformed []LineError `json:"malformed"`
}

// Accuracy is the share of the cases scored that were read as labelled,
// from 0 to 1; 0 for none.
func (r Report) Accuracy() float64 {
	if r.Total == 0 {
		return 0
	}
	return float64(r.Passed) / float64(r.Total)
}

// MarshalJSON writes the report with its accuracy.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	if r.Failures == nil {
		r.Failures = []Failure{}
	}
	if r.Malformed == nil {
		r.Malformed = []LineError{}
	}
	return json.Marshal(struct {
		plain
		Accuracy float64 `json:"accuracy"`
	}{plain(r), r.Accuracy()})
}

// Failure is a case the parser did not read as labelled.
type Failure struct {
	Line   int             `json:"line"`
	ID     json.RawMessage `json:"id,omitempty"`
	Expect Expect          `json:"expect"`
	// Got is what the parser read: a step, or Error.
	Got   *parser.Step `json:"got,omitempty"`
	Error string       `json:"error,omitempty"`
	// Reason says how the two differ.
	Reason string `json:"reason"`
}

// Score parses every case with a parser of tools (nil for none) and
// compares what it reads with the label.
func (c Corpus) Score(tools parser.Tools) Report {
	p := parser.New(tools)
	rep := Report{Malformed: c.Malformed}
	for _, cs := range c.Cases {
		rep.Total++
		st, err := p.ParseWith(cs.Text, parser.Options{Truncated: cs.Truncated, Previous: past(p, cs.Previous)})
		reason := compare(tools, cs.Expect, st, err)
		if reason == "" {
			rep.Passed++
			continue
		}
		f := Failure{Line: cs.Line, ID: cs.ID, Expect: cs.Expect, Reason: reason}
		if err != nil {
			f.Error = err.Error()
		} else {
			f.Got = &st
		}
		rep.Failures = append(rep.Failures, f)
	}
	return rep
}

// past turns the steps a corpus line gives into the parser's.
func past(p *parser.Parser, steps []Past) []parser.PastStep {
	var out []parser.PastStep
	for _, s := range steps {
		input := string(s.Input)
		var text string
		if json.Unmarshal(s.Input, &text) == nil {
			input = text
		}
		name, args := p.Args(s.Action, input)
		out = append(out, parser.PastStep{Step: parser.Step{Kind: parser.KindAction, Action: name, Args: args}, Observation: s.Observation})
	}
	return out
}

// compare says how the parse of a reply, st or err, differs from the
// label e, or returns "" when it does not.
func compare(tools parser.Tools, e Expect, st parser.Step, err error) string {
	switch {
	case e.Unparseable:
		if err == nil {
			return "a step where a parse error is labelled"
		}
		return ""
	case err != nil:
		return "a parse error where a step is labelled"
	case e.FinalAnswer != nil || e.FinalAnswerPrefix != nil:
		if st.Kind != parser.KindFinal {
			return "an action where a final answer is labelled"
		}
		got := strings.TrimSpace(st.FinalAnswer)
		if e.FinalAnswer != nil && got != strings.TrimSpace(*e.FinalAnswer) {
			return "another final answer"
		}
		if e.FinalAnswerPrefix != nil && !strings.HasPrefix(got, strings.TrimSpace(*e.FinalAnswerPrefix)) {
			return "a final answer that starts otherwise"
		}
		return ""
	}
	if st.Kind != parser.KindAction {
		return "a final answer where an action is labelled"
	}
	if !strings.EqualFold(strings.TrimSpace(st.Action), strings.TrimSpace(*e.Action)) {
		return "another action"
	}
	if e.Input != nil && !sameInput(tools, st, e.Input) {
		return "another input"
	}
	return ""
}

// sameInput reports whether the arguments of st are the input want: an
// object compared as JSON values, or a string compared with the tool's
// primary argument, or with its only argument (white space at the ends
// aside). A string that holds a JSON object is compared as that object.
func sameInput(tools parser.Tools, st parser.Step, want json.RawMessage) bool {
	var v any
	if json.Unmarshal(want, &v) != nil {
		return false
	}
	text, isText := v.(string)
	if isText {
		var obj map[string]any
		if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &obj) == nil {
			v, isText = obj, false
		}
	}
	if !isText {
		return jsonEqual(st.Args, v)
	}
	text = strings.TrimSpace(text)
	if text == "" && len(st.Args) == 0 {
		return true
	}
	if tools != nil {
		if _, primary := tools.ToolArgs(st.Action); primary != "" {
			if got, ok := st.Args[primary]; ok && len(st.Args) == 1 {
				return strings.TrimSpace(asText(got)) == text
			}
		}
	}
	if len(st.Args) == 1 {
		for _, got := range st.Args {
			return strings.TrimSpace(asText(got)) == text
		}
	}
	return false
}

// asText renders an argument's value as text: a string as it is,
// anything else as JSON.
func asText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// jsonEqual reports whether a and b are equal as JSON values.
func jsonEqual(a, b any) bool {
	norm := func(v any) any {
		data, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		var out any
		json.Unmarshal(data, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
