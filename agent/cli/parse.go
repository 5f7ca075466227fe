package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/parser/score"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/bounded"
	"github.com/react-agent/react-agent/tools/escape"
)

// parseOutput is one line of `react-agent parse` output.
type parseOutput struct {
	ID          json.RawMessage `json:"id,omitempty"`
	Kind        string          `json:"kind"`
	Thought     *string         `json:"thought,omitempty"`
	Action      string          `json:"action,omitempty"`
	Args        map[string]any  `json:"args,omitempty"`
	FinalAnswer *string         `json:"final_answer,omitempty"`
	Error       string          `json:"error,omitempty"`
	ParseNS     *int64          `json:"parse_ns,omitempty"`
}

func newParseOutput(st parser.Step, err error) parseOutput {
	if err != nil {
		return parseOutput{Kind: "error", Error: err.Error()}
	}
	out := parseOutput{Kind: string(st.Kind), Thought: &st.Thought}
	if st.Kind == parser.KindFinal {
		out.FinalAnswer = &st.FinalAnswer
	} else {
		out.Action, out.Args = st.Action, st.Args
	}
	return out
}

// parseCmdFlags are the flags of parse.
type parseCmdFlags struct {
	jsonl, timing, json  bool
	repeat               int
	toolNames            []string
	toolsFile, scoreFile string
}

// addParseFlags adds the flags of parse to fs.
func addParseFlags(fs *pflag.FlagSet) *parseCmdFlags {
	f := &parseCmdFlags{}
	grouped(fs, "Tool flags", func() {
		fs.StringArrayVar(&f.toolNames, "tool", nil, "a tool the replies may call, by name (repeatable); with --tool or --tools the parser knows these tools instead of the built-in ones")
		fs.StringVar(&f.toolsFile, "tools", "", `a JSON list of the tools the replies may call: {"name", "description", "input_schema"} items, as MCP and Anthropic list them (and react-agent tools --json prints them), or OpenAI's {"type": "function", "function": {...}}`)
	})
	grouped(fs, "Input and output flags", func() {
		fs.BoolVar(&f.jsonl, "jsonl", false, `read many replies, one JSON object {"id":..,"text":..} a line; print one result a line`)
		fs.BoolVar(&f.timing, "timing", false, `add "parse_ns": the median time of --repeat parses of each input (the parse call alone)`)
		fs.IntVar(&f.repeat, "repeat", 11, "with --timing, how many times to parse each input")
	})
	grouped(fs, "Scoring flags", func() {
		fs.StringVar(&f.scoreFile, "score", "", `score the parser on a labelled corpus, JSON lines {"id", "text", "expect"} ("-" for stdin); prints the accuracy and each failure; exit status 1 when a reply is not read as labelled or a line is malformed`)
		fs.BoolVar(&f.json, "json", false, "with --score, print the report as one JSON object")
	})
	return f
}

// parseCommand is `react-agent parse`.
func parseCommand() *command {
	return &command{
		name: "parse", args: "[flags]", does: "print the step a model's reply on stdin means",
		synopsis: "parse [flags] < REPLY   (one reply, or --jsonl: one a line)\n       react-agent parse [--tool NAME]... [--tools FILE] --score CORPUS",
		examples: `  printf 'Thought: add\nAction: Calculator\nAction Input: 2+2' | \
      react-agent parse
  echo '{"id":1,"text":"Final Answer: 4"}' | react-agent parse --jsonl --timing
  printf 'Action: Search\nAction Input: zig' | react-agent parse --tool Search
  react-agent parse --tools testdata/parser/tools.json \
      --score testdata/parser/score.jsonl
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addParseFlags(fs)
			return func(c *call) error { return runParse(c, f) }
		},
		check: func(args []string) error {
			if len(args) > 0 {
				return usagef("parse reads the reply from stdin and takes no arguments, got %q", args)
			}
			return nil
		},
	}
}

// runParse runs parse.
func runParse(c *call, f *parseCmdFlags) error {
	stdin, stdout := c.stdin, c.stdout
	if f.repeat < 1 {
		return usagef("--repeat must be at least 1, got %d", f.repeat)
	}
	if f.scoreFile != "" && (f.jsonl || f.timing) {
		return usagef("--score reads its own corpus; leave out --jsonl and --timing")
	}
	if f.json && f.scoreFile == "" {
		return usagef("--json is for the report of --score; parse prints JSON already")
	}
	var known parser.Tools = tools.Catalog()
	if len(f.toolNames) > 0 || f.toolsFile != "" {
		t, err := parseTools(f.toolNames, f.toolsFile)
		if err != nil {
			return err
		}
		known = t
	}
	if c.terminal(stdin) && (f.scoreFile == "" || f.scoreFile == "-") {
		// Nothing piped: say what is awaited, as a person may not know.
		what := "a model's reply"
		switch {
		case f.scoreFile != "":
			what = `a labelled corpus, one JSON object a line ({"id", "text", "expect"})`
		case f.jsonl:
			what = `replies, one JSON object a line ({"id": 1, "text": "Thought: ..."})`
		}
		fmt.Fprintf(c.stderr, "react-agent parse: reading %s from the terminal; paste it, then press Ctrl-D (or pipe it in: react-agent parse < reply.txt)\n", what)
	}
	if f.scoreFile != "" {
		return scoreCorpus(f.scoreFile, known, f.json, stdin, c.jsonOut(stdout))
	}
	p := parser.New(known)
	parse := func(text string) parseOutput {
		out := newParseOutput(p.Parse(text))
		if f.timing {
			ns := medianParse(p, text, f.repeat)
			out.ParseNS = &ns
		}
		return out
	}
	w := bufio.NewWriter(c.jsonOut(stdout))
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if !f.jsonl {
		text, err := bounded.ReadAll(stdin, "standard input", maxParseInput)
		if err != nil {
			return fmt.Errorf("parse: reading stdin: %w", err)
		}
		out := parse(string(text))
		if err := enc.Encode(out); err != nil {
			return err
		}
		if out.Kind == "error" {
			w.Flush()
			return exitError(exitFailure)
		}
		return nil
	}
	r := bufio.NewReaderSize(stdin, 1<<16)
	for n := 1; ; n++ {
		line, err := readLine(r, maxParseInput)
		if errors.Is(err, bounded.ErrTooLarge) {
			return fmt.Errorf("parse: stdin line %d is longer than %s, the most read of one line", n, bounded.Size(maxParseInput))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var in struct {
				ID   json.RawMessage `json:"id"`
				Text *string         `json:"text"`
			}
			var out parseOutput
			switch jerr := json.Unmarshal(line, &in); {
			case jerr != nil:
				out = parseOutput{Kind: "error", Error: fmt.Sprintf("input line %d is not a JSON object: %v; write one object a line, like {\"id\": 1, \"text\": \"Thought: ...\"}", n, jerr)}
			case in.Text == nil:
				out = parseOutput{Kind: "error", Error: fmt.Sprintf(`input line %d has no "text" field; write one object a line, like {"id": 1, "text": "Thought: ..."}`, n)}
			default:
				out = parse(*in.Text)
			}
			out.ID = in.ID
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse: reading stdin line %d: %w", n, err)
		}
	}
}

// Bounds of what parse reads: one reply from stdin, one line of --jsonl
// (whose stream may go on without end, a line at a time), the file of
// --tools; and a corpus of --score, which is held whole.
const (
	maxParseInput  = 16 << 20
	maxScoreCorpus = 256 << 20
)

// readLine reads a line of r, with its newline, of at most max bytes
// (more is an error matching bounded.ErrTooLarge); io.EOF ends the last.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > max {
			return nil, &bounded.TooLargeError{Name: "a line", Limit: int64(max)}
		}
		line = append(line, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// parseTools returns the tools that parse --tool and --tools name.
func parseTools(names []string, file string) (parser.Tools, error) {
	var list []score.Tool
	for _, n := range names {
		list = append(list, score.Tool{Name: n})
	}
	if file != "" {
		data, err := bounded.ReadFile(file, maxParseInput)
		if err != nil {
			return nil, usagef("--tools: %v", err)
		}
		fromFile, err := score.ReadTools(data)
		if err != nil {
			return nil, usagef("--tools %s: %v", file, err)
		}
		list = append(list, fromFile...)
	}
	t, err := score.NewTools(list...)
	if err != nil {
		return nil, usagef("--tool and --tools: %v", err)
	}
	return t, nil
}

// scoreCorpus implements parse --score: it reads the corpus at path ("-"
// for stdin), scores the parser of known on it and prints the report.
// The exit status is 1 when a reply was not read as labelled or a line
// was malformed.
func scoreCorpus(path string, known parser.Tools, asJSON bool, stdin io.Reader, stdout io.Writer) error {
	in, name := stdin, "standard input"
	if path != "-" {
		f, err := bounded.Open(path)
		if err != nil {
			return usagef("--score: %v", err)
		}
		defer f.Close()
		in, name = f, path
	}
	corpus, err := score.Read(bounded.NewReader(in, name, maxScoreCorpus))
	if err != nil {
		return fmt.Errorf("parse --score %s: %w", path, err)
	}
	rep := corpus.Score(known)
	w := bufio.NewWriter(stdout)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printScore(w, rep)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(rep.Failures) > 0 || len(rep.Malformed) > 0 {
		return exitError(exitFailure)
	}
	return nil
}

// printScore writes a score report for people: each failure with what
// was wanted and what the parser read, each malformed line, then the
// accuracy. Text from the corpus is quoted, so that no byte of it acts on
// the terminal.
func printScore(w io.Writer, rep score.Report) {
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "line %d%s: %s\n", f.Line, caseID(f.ID), escape.Visible(f.Reason))
		fmt.Fprintf(w, "  want: %s\n", describeExpect(f.Expect))
		if f.Got == nil {
			fmt.Fprintf(w, "  got:  a parse error: %s\n", quoteClip(f.Error))
		} else {
			fmt.Fprintf(w, "  got:  %s\n", describeStep(*f.Got))
		}
	}
	for _, m := range rep.Malformed {
		fmt.Fprintf(w, "line %d: not scored: %s\n", m.Line, escape.Visible(m.Err.Error()))
	}
	fmt.Fprintf(w, "%d of %d replies read as labelled (%.1f%%)", rep.Passed, rep.Total, 100*rep.Accuracy())
	switch n := len(rep.Malformed); {
	case n == 1:
		fmt.Fprint(w, "; 1 malformed line not scored")
	case n > 1:
		fmt.Fprintf(w, "; %d malformed lines not scored", n)
	}
	fmt.Fprintln(w)
}

// caseID is a case's id for a line of the report, or "".
func caseID(id json.RawMessage) string {
	if len(id) == 0 || string(id) == "null" {
		return ""
	}
	return " (id " + escape.Visible(clip(string(id), 60)) + ")"
}

// describeExpect says what a corpus label asks for.
func describeExpect(e score.Expect) string {
	switch {
	case e.Unparseable:
		return "a parse error"
	case e.FinalAnswer != nil:
		return "the final answer " + quoteClip(*e.FinalAnswer)
	case e.FinalAnswerPrefix != nil:
		return "a final answer starting " + quoteClip(*e.FinalAnswerPrefix)
	}
	s := "the action " + quoteClip(*e.Action)
	if e.Input != nil {
		s += " with the input " + escape.Visible(clip(string(e.Input), 200))
	}
	return s
}

// describeStep says what the parser read.
func describeStep(st parser.Step) string {
	if st.Kind == parser.KindFinal {
		return "the final answer " + quoteClip(st.FinalAnswer)
	}
	return "the action " + quoteClip(st.Action) + " with " + escape.Visible(clip(prompt.FormatArgs(st.Args), 200))
}

// quoteClip quotes a text from outside, shortened, with its line breaks
// and control characters escaped.
func quoteClip(s string) string { return strconv.Quote(clip(s, 200)) }

// clip shortens s to at most n bytes, at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// medianParse returns the median wall time, in nanoseconds, of n parses
// of text: the parse call alone.
func medianParse(p *parser.Parser, text string, n int) int64 {
	times := make([]int64, n)
	for i := range times {
		start := time.Now()
		p.Parse(text)
		times[i] = int64(time.Since(start))
	}
	slices.Sort(times)
	return times[n/2]
}
