package trace

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools/escape"
)

// Trace writes a run to a terminal (or any writer) for a person to follow:
//
//	[1] Thought: I should compute it. (1.2s)
//	[1] Action: calculator {"expression":"17*23+4"}
//	[1] Observation: 395 (1ms)
//	[2] Final Answer: 395 (0.8s)
//
// Reasoning text is shown indented under "thinking:"; long observations are
// shortened to their first lines. Pass its event.Event method to [agent.WithEvents],
// its Token method to [agent.WithStreaming] when the run streams, and call Close
// when the run is over. A Trace is safe for concurrent use.
type Trace struct {
	w    io.Writer
	opts options

	// wmu guards w: the spinner's goroutine writes to it too.
	wmu sync.Mutex

	// mu serialises event.Event, Token and Close, and guards what follows.
	mu           sync.Mutex
	spin         *spinner
	closed       bool
	tokens       bool            // text was streamed since the last event
	midLine      bool            // the streamed text on screen does not end a line
	streamed     int             // the iteration whose reply was streamed
	tokenBytes   int             // bytes streamed since the last event
	dim          bool            // streamed text is being written dim
	timed        int             // the iteration whose thought line showed the model's time
	parseErr     *event.Event    // the parse error whose observation is not shown again
	lastParseErr string          // the last parse error shown whole
	lastPrompt   string          // the last prompt shown, with -v
	iteration    int             // the step of the reply being streamed
	carry        string          // the streamed start of what may be a reasoning tag
	tagged       bool            // the streamed reply held its reasoning, in tags
	pendingTime  string          // a streamed reply's model time, shown once its kind is known
	answering    bool            // the streamed reply reached its final answer, shown as an answer
	answerCarry  string          // the streamed start of what may be a final answer's label
	seen         []byte          // the end of the streamed reply, where its action label may start
	inCall       bool            // the streamed reply reached its call: its action label is past
	call         strings.Builder // the streamed call, to say what was escaped in it
	word         []byte          // the streamed call's last word, held until it ends
}

// Option configures a Trace.
type Option func(*options)

type options struct {
	color   bool
	spinner bool
	verbose bool
}

// Color turns ANSI colours on or off (default off). Without them the
// trace writes no escape sequences, except to erase a spinner.
func Color(on bool) Option {
	return func(o *options) { o.color = on }
}

// Spinner turns on or off an animated spinner shown while the model
// thinks or a tool runs (default off). It redraws its line in place, so
// it is for terminals only.
func Spinner(on bool) Option {
	return func(o *options) { o.spinner = on }
}

// Verbose turns on or off printing every prompt sent to the model
// and every observation whole (default off).
func Verbose(on bool) Option {
	return func(o *options) { o.verbose = on }
}

// New returns a Trace that writes to w, usually os.Stderr.
func New(w io.Writer, opts ...Option) *Trace {
	t := &Trace{w: w}
	for _, opt := range opts {
		opt(&t.opts)
	}
	return t
}

// ANSI escape sequences.
const (
	ansiReset     = "\033[0m"
	ansiDim       = "\033[2m"
	ansiRed       = "\033[31m"
	ansiGreen     = "\033[32m"
	ansiYellow    = "\033[33m"
	ansiCyan      = "\033[36m"
	ansiBoldGreen = "\033[1;32m"
	ansiEraseLine = "\r\033[K"
)

// Limits of a shortened observation and of shortened reasoning.
const (
	traceObservationLines = 5
	traceObservationBytes = 400
	traceReasoningBytes   = 2000
	// traceTextBytes bounds a thought, an answer or a message as the trace
	// shows it, and the text streamed of one reply; -v shows four times
	// as much. The answer on stdout and the JSON events keep it whole.
	traceTextBytes = 16 << 10
)

// Event writes e. Pass it to agent.WithEvents.
func (t *Trace) Event(e event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopSpinner()
	if t.tokens {
		t.tokens, t.streamed = false, e.Iteration
		note := t.flushCarry()
		if e.Kind == event.Thought {
			// The streamed reply's model time goes at its end, once its
			// kind is known: not after a final answer, which stays alone
			// on its line.
			t.pendingTime = took(e.Duration)
			t.timed = e.Iteration
		}
		if note != "" {
			// What the streamed call showed as escapes is said before
			// anything asks whether it may run, the time first.
			t.undim()
			if t.pendingTime != "" && t.midLine {
				t.write(t.paint(ansiDim, t.pendingTime))
			}
			t.pendingTime = ""
			t.writeLine("    " + t.paint(ansiYellow, note) + "\n")
		}
	}
	if t.pendingTime != "" && e.Kind != event.Thought {
		if e.Kind == event.Action || e.Kind == event.ParseError {
			t.undim()
			if !t.midLine {
				t.write(t.paint(ansiDim, fmt.Sprintf("[%d]", e.Iteration)))
			}
			t.write(t.paint(ansiDim, t.pendingTime))
			t.midLine = true
		}
		t.pendingTime = ""
	}
	t.tokenBytes = 0
	if s := t.format(e); s != "" {
		t.writeLine(s)
	}
	if e.Kind == event.Model {
		t.tagged = false
	}
	switch e.Kind {
	case event.Model:
		t.iteration = e.Iteration
		t.startSpinner("thinking")
	case event.Action:
		t.startSpinner("running " + e.Tool)
	}
}

// Token writes a piece of streamed model text as it arrives. Pass it to
// agent.WithStreaming. The trace then leaves out the thought, the reasoning and
// the final answer of that reply, which are on screen already.
func (t *Trace) Token(chunk string) {
	if chunk == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopSpinner()
	t.tokens = true
	limit := t.textLimit()
	if t.tokenBytes >= limit {
		return
	}
	t.tokenBytes += len(chunk)
	if t.tokenBytes >= limit {
		chunk = shortenBytes(chunk, len(chunk)-(t.tokenBytes-limit))
	}
	if t.tokenBytes == len(chunk) {
		t.answering, t.inCall, t.seen = false, false, t.seen[:0]
		t.call.Reset()
		if t.iteration > 0 {
			// A reply begins: tag it with its step, as the other lines are.
			t.write(t.paint(ansiDim, fmt.Sprintf("[%d]", t.iteration)) + " ")
		}
	}
	chunk = t.reasoningTags(chunk)
	if chunk == "" || !t.opts.color || t.answering {
		t.streamText(chunk)
		return
	}
	// The final answer is shown as an answer, not dim as the thought
	// before it: from its label on.
	s := t.answerCarry + chunk
	t.answerCarry = ""
	start, end := finalAnswerLabel(s)
	switch {
	case start >= 0:
		t.streamText(s[:start])
		t.flushWord()
		t.undim()
		t.answering = true
		t.write(t.paint(ansiBoldGreen, escape.Visible(s[start:end])))
		t.midLine = true
		t.streamText(s[end:])
	default:
		keep := labelPrefixAtEnd(s)
		t.answerCarry = s[len(s)-keep:]
		t.streamText(s[:len(s)-keep])
	}
}

// streamText writes streamed text, with its control characters made
// visible: dim, but for a final answer's. From the reply's action label
// on, the text is the call the model asks to run, and it is shown as
// unmistakably as its confirmation shows it: letters that pass for
// others, and stacks of combining marks, as escapes (see showCall).
func (t *Trace) streamText(text string) {
	if text == "" {
		return
	}
	if t.opts.color && !t.dim && !t.answering {
		t.dim = true // one dim run for the streamed thought
		t.write(ansiDim)
	}
	if !t.inCall {
		k := t.callStart(text)
		if k < 0 {
			t.midLine = !strings.HasSuffix(text, "\n")
			t.write(escape.Visible(text))
			return
		}
		if k > 0 {
			t.midLine = !strings.HasSuffix(text[:k], "\n")
			t.write(escape.Visible(text[:k]))
		}
		t.inCall, text = true, text[k:]
	}
	if t.call.Len() < t.textLimit() {
		t.call.WriteString(text)
	}
	// A word is shown once it ends: whether it mixes scripts, or its
	// marks run too long, is known only then.
	end := strings.LastIndexFunc(text, unicode.IsSpace)
	if end < 0 {
		t.word = append(t.word, text...)
		t.midLine = true
		return
	}
	_, size := utf8.DecodeRuneInString(text[end:])
	done := string(t.word) + text[:end+size]
	t.word = append(t.word[:0], text[end+size:]...)
	t.midLine = len(t.word) > 0 || !strings.HasSuffix(done, "\n")
	t.write(showCall(done))
}

// showCall is a call as the model wrote it, shown as its confirmation
// shows it: nothing invisible, and nothing that passes for other text.
func showCall(s string) string {
	shown, _ := escape.Unmistakable(escape.Visible(s))
	return shown
}

// actionLabel is a reply's label of the call it asks for, as the text
// protocol spells it ("Action:", "Action Input:", "**Action**:",
// "行动：") and as a JSON or tagged call does ("action":, <action>).
var actionLabel = regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}])(?:action|行动)(?:[ _]?input)?[*_"]*[ \t]*[:：>]`)

// callStart returns where the call starts in text, the next piece of the
// streamed reply: after its action label, which may have started in the
// pieces before. It returns -1 when text does not reach one.
func (t *Trace) callStart(text string) int {
	if strings.ContainsAny(text, ":>：") { // a label ends with one of them
		before := string(t.seen)
		for _, m := range actionLabel.FindAllStringIndex(before+text, -1) {
			if m[1] > len(before) {
				return m[1] - len(before)
			}
		}
	}
	t.seen = append(t.seen, text...)
	if n := len(t.seen); n > 64 {
		t.seen = append(t.seen[:0], t.seen[n-64:]...)
	}
	return -1
}

// flushWord writes the word of the streamed call that is held.
func (t *Trace) flushWord() {
	if len(t.word) > 0 {
		w := string(t.word)
		t.word = t.word[:0]
		t.midLine = !strings.HasSuffix(w, "\n")
		t.write(showCall(w))
	}
}

// endCall writes what is held of the streamed call, and returns the note
// of what in it was shown as escapes, or "".
func (t *Trace) endCall() string {
	t.flushWord()
	_, note := escape.Unmistakable(escape.Visible(t.call.String()))
	t.call.Reset()
	return note
}

// finalAnswerLabels are the labels of a final answer the prompts ask for,
// in lower case, as the trace finds them in a streamed reply.
var finalAnswerLabels = []string{"final answer", "最终答案", "最終答案"}

// finalAnswerLabel returns where the first final answer's label of s
// starts and where it ends, after its colon and any markdown around it,
// or -1, -1.
func finalAnswerLabel(s string) (start, end int) {
	lower := asciiLower(s)
	start = -1
	for _, l := range finalAnswerLabels {
		if i := strings.Index(lower, l); i >= 0 && (start < 0 || i < start) {
			start, end = i, i+len(l)
		}
	}
	if start < 0 {
		return -1, -1
	}
	rest := strings.TrimLeft(s[end:], "*_ ")
	if r, ok := strings.CutPrefix(rest, ":"); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(rest, "："); ok {
		rest = r
	} else {
		return -1, -1 // "the final answer is": prose, not a label
	}
	end = len(s) - len(strings.TrimLeft(rest, "*_"))
	for start > 0 && (s[start-1] == '*' || s[start-1] == '#') {
		start-- // "**Final Answer**:" is painted whole
	}
	return start, end
}

// labelPrefixAtEnd returns how many bytes at the end of s may start a
// final answer's label (or be its colon to come), to be held back until
// the next piece tells.
func labelPrefixAtEnd(s string) int {
	lower := asciiLower(s)
	for _, l := range finalAnswerLabels {
		for n := min(len(l)+3, len(s)); n > 0; n-- {
			tail := strings.TrimRight(lower[len(lower)-n:], "*_ ")
			if tail != "" && (strings.HasPrefix(l, tail) || tail == l) {
				return n
			}
		}
	}
	return 0
}

// asciiLower lower-cases the ASCII letters of s, keeping its length.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// streamedTags are how reasoning tags show in a streamed reply: the
// reasoning is labelled, as the trace labels it elsewhere, not tagged.
var streamedTags = strings.NewReplacer(
	"<think>\n", "thinking: ", "\n</think>\n\n", "\n", "</think>\n\n", "\n", "\n</think>\n", "\n", "</think>\n", "\n", "</thinking>\n", "\n", "</reasoning>\n", "\n",
	"<think>", "thinking: ", "</think>", "\n", "<thinking>", "thinking: ", "</thinking>", "\n",
	"<reasoning>", "thinking: ", "</reasoning>", "\n",
	"<THINK>", "thinking: ", "</THINK>", "\n", "<Think>", "thinking: ", "</Think>", "\n")

// reasoningTags rewrites the reasoning tags of a streamed chunk, holding
// back a tag's start that the next chunk may finish.
func (t *Trace) reasoningTags(chunk string) string {
	s := t.carry + chunk
	t.carry = ""
	if i := strings.LastIndexByte(s, '<'); i >= 0 && len(s)-i < len("</reasoning>") && !strings.Contains(s[i:], ">") {
		s, t.carry = s[:i], s[i:]
	} else if strings.HasSuffix(s, ">") && strings.Contains(s[max(0, len(s)-len("</reasoning>")):], "</") {
		// A closing tag whose line end may come in the next chunk.
		s, t.carry = s[:i], s[i:]
	}
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	r := streamedTags.Replace(s)
	if r != s {
		t.tagged = true
		if !t.midLine && t.tokenBytes > len(chunk) {
			// A closing tag right after a line's end: no blank line.
			r = strings.TrimPrefix(r, "\n")
		}
	}
	return r
}

// flushCarry writes what reasoningTags, and the search for a final
// answer's label, held back when the stream ends.
func (t *Trace) flushCarry() (note string) {
	if c := t.answerCarry; c != "" {
		t.answerCarry = ""
		t.streamText(c)
	}
	note = t.endCall()
	if t.carry == "" {
		return note
	}
	c := strings.TrimSuffix(streamedTags.Replace(t.carry), "\n")
	t.carry = ""
	if c == "" {
		return note
	}
	t.midLine = !strings.HasSuffix(c, "\n")
	t.write(escape.Visible(c))
	return note
}

// Close stops and erases the spinner, and ends a streamed line. It is safe
// to call more than once; the trace starts no spinner after it.
func (t *Trace) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	t.endLine()
}

// EndLine stops and erases the spinner and ends a streamed line, so that
// what is written next to the terminal starts a line of its own. The trace
// goes on: the next run's events show as before.
func (t *Trace) EndLine() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLine()
}

func (t *Trace) endLine() {
	t.stopSpinner()
	t.flushWord() // the end of a streamed call that was cut short
	t.undim()
	if t.pendingTime != "" && t.midLine {
		// A line is ended before the action it times shows (a
		// confirmation is asked): the time goes at the end of the streamed
		// reply, where it would have gone, not on a line of its own.
		t.write(t.paint(ansiDim, t.pendingTime))
	}
	t.pendingTime = ""
	if t.midLine {
		t.midLine = false
		t.write("\n")
	}
}

// textLimit is how many bytes of a thought, an answer, a message or a
// streamed reply the trace shows.
func (t *Trace) textLimit() int {
	if t.opts.verbose {
		return 4 * traceTextBytes
	}
	return traceTextBytes
}

// format returns the lines that show e, or "" for none. Text from outside
// (the model's, a tool's, a server's) is shown with its control
// characters made visible, and long text is shortened.
func (t *Trace) format(e event.Event) string {
	observed := e.Text // what the model is shown, cut once below
	e.Text = escape.Visible(shortenBytes(e.Text, t.textLimit()))
	e.Reasoning = escape.Visible(shortenBytes(e.Reasoning, t.textLimit()))
	e.Tool = escape.Visible(e.Tool)
	parseErr := t.parseErr
	t.parseErr = nil
	var b strings.Builder
	tag := t.paint(ansiDim, fmt.Sprintf("[%d]", e.Iteration)) + " "
	if e.Iteration == 0 {
		tag = "" // before the first step: what a run could not start with
	}
	streamed := e.Iteration == t.streamed
	// Reasoning a server sent apart from the streamed reply was not on
	// screen: show it as for a reply that was not streamed.
	if e.Reasoning != "" && e.Kind != event.Model && (!streamed || !t.tagged) {
		r := shortenBytes(strings.TrimSpace(e.Reasoning), t.textLimit())
		if !t.opts.verbose {
			r = shortenBytes(r, traceReasoningBytes)
		}
		b.WriteString(tag + t.paint(ansiDim, "thinking:") + "\n" + t.paint(ansiDim, indent(r, "    ")) + "\n")
	}
	switch e.Kind {
	case event.Model:
		if t.opts.verbose {
			label, text := "prompt:", e.Prompt()
			if e.Forced {
				label = "prompt (asking for a final answer):"
			}
			// The prompt grows by a step at a time: after the first, show
			// what was added.
			if added, ok := strings.CutPrefix(text, t.lastPrompt); ok && t.lastPrompt != "" {
				label, t.lastPrompt, text = strings.TrimSuffix(label, ":")+", what was added:", text, added
			} else {
				t.lastPrompt = text
			}
			b.WriteString(tag + t.paint(ansiDim, label) + "\n" + indent(escape.Visible(strings.Trim(text, " \n")), "    ") + "\n")
		}
	case event.Thought:
		if e.Text != "" && !streamed {
			t.timed = e.Iteration
			fmt.Fprintf(&b, "%s%s: %s%s\n", tag, t.paint(ansiCyan, "Thought"), hang(e.Text, "    "), took(e.Duration))
		}
	case event.Action:
		if streamed {
			break // the streamed reply showed it
		}
		// The call is shown as unmistakably as its confirmation shows it:
		// letters that pass for others (a Cyrillic а in apple.com) and
		// stacks of combining marks as escapes, with a note.
		call, note := escape.Unmistakable(e.Tool + " " + escape.Visible(shortenBytes(prompt.FormatArgs(e.Args), t.textLimit())))
		fmt.Fprintf(&b, "%s%s: %s\n", tag, t.paint(ansiYellow, "Action"), call)
		if note != "" {
			b.WriteString("    " + t.paint(ansiYellow, note) + "\n")
		}
	case event.Observation:
		if parseErr != nil && e.Tool == "" && e.Iteration == parseErr.Iteration && e.Text == parseErr.Text {
			break
		}
		label, color := "Observation", ansiGreen
		if e.Failed {
			label, color = "Observation (error)", ansiRed
		}
		// Shortened once, from what the model is shown, so that "(N
		// more bytes)" counts what the model read and the trace did not
		// show.
		text := strings.TrimSpace(observed)
		if t.opts.verbose {
			text = shortenBytes(text, t.textLimit())
		} else {
			text = shortenObservation(text)
		}
		fmt.Fprintf(&b, "%s%s: %s%s\n", tag, t.paint(color, label), hang(escape.Visible(text), "    "), took(e.Duration))
	case event.Final:
		if streamed {
			break
		}
		forced, d := "", e.Duration
		if e.Forced {
			forced = fmt.Sprintf(" [forced: %s]", e.StopReason)
		}
		if t.timed == e.Iteration {
			d = 0 // the thought line showed it
		}
		fmt.Fprintf(&b, "%s%s: %s%s%s\n", tag, t.paint(ansiBoldGreen, "Final Answer"), hang(e.Text, "    "), forced, took(d))
	case event.ParseError:
		t.parseErr = &e
		var pe *parser.Error
		if errors.As(e.Err, &pe) && pe.Err != nil {
			// The message is written for the model, and goes to it (-v
			// shows it in the next prompt); a person is told what was
			// wrong.
			b.WriteString(tag + t.paint(ansiRed, "parse error: "+pe.Err.Error()) + "\n")
			break
		}
		if e.Text == t.lastParseErr {
			// The message the model is shown again, often long: once is
			// enough for a person.
			b.WriteString(tag + t.paint(ansiRed, "parse error: the same as before") + "\n")
			break
		}
		t.lastParseErr = e.Text
		b.WriteString(tag + t.paint(ansiRed, "parse error: "+hang(e.Text, "    ")) + "\n")
	case event.Error:
		if e.StopReason == event.StopCancelled {
			b.WriteString(tag + t.paint(ansiRed, "interrupted: the run was cancelled") + "\n")
		} else {
			b.WriteString(tag + t.paint(ansiRed, "error: "+hang(e.Text, "    ")) + "\n")
		}
	case event.Warning, event.Retry:
		// A call made again keeps the warning line it always had.
		b.WriteString(tag + t.paint(ansiYellow, "warning: "+hang(e.Text, "    ")) + "\n")
	case event.Notice:
		b.WriteString(tag + t.paint(ansiDim, "note: "+hang(e.Text, "    ")) + "\n")
	}
	return b.String()
}

// paint colours s when colours are on.
func (t *Trace) paint(color, s string) string {
	if !t.opts.color || s == "" {
		return s
	}
	return color + s + ansiReset
}

// writeLine writes s, on a line of its own after streamed text.
func (t *Trace) writeLine(s string) {
	t.undim()
	if t.midLine {
		t.midLine = false
		s = "\n" + s
	}
	t.write(s)
}

// undim ends the dim run of streamed text.
func (t *Trace) undim() {
	if t.dim {
		t.dim = false
		t.write(ansiReset)
	}
}

func (t *Trace) write(s string) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	io.WriteString(t.w, s)
}

// spinner is a running spinner: a goroutine that redraws a line in place.
type spinner struct {
	label string
	start time.Time
	stop  chan struct{}
	done  chan struct{}
}

var spinnerFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// startSpinner starts a spinner showing label, when spinners are on. The
// caller holds t.mu.
func (t *Trace) startSpinner(label string) {
	if !t.opts.spinner || t.closed {
		return
	}
	if t.midLine {
		t.midLine = false
		t.write("\n")
	}
	s := &spinner{label: label, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	t.spin = s
	go t.animate(s)
}

// stopSpinner stops the spinner, if one runs, and waits until it has
// erased its line. The caller holds t.mu.
func (t *Trace) stopSpinner() {
	if t.spin == nil {
		return
	}
	close(t.spin.stop)
	<-t.spin.done
	t.spin = nil
}

// animate draws s every 100ms until it is stopped, then erases it.
func (t *Trace) animate(s *spinner) {
	defer close(s.done)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	drawn := false
	for i := 0; ; i++ {
		select {
		case <-s.stop:
			if drawn {
				t.write(ansiEraseLine)
			}
			return
		case <-tick.C:
			elapsed := time.Since(s.start).Seconds()
			t.write(fmt.Sprintf("\r%s %s %.1fs", spinnerFrames[i%len(spinnerFrames)], s.label, elapsed))
			drawn = true
		}
	}
}

// took shows a duration in parentheses: 1.2s, 35ms. It shows none under
// half a millisecond.
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

// shortenObservation keeps the first lines of s, up to a number of lines
// and of bytes, and says how much it left out.
func shortenObservation(s string) string {
	lines := strings.SplitAfterN(s, "\n", traceObservationLines+1)
	if len(lines) > traceObservationLines {
		kept := strings.TrimSuffix(strings.Join(lines[:traceObservationLines], ""), "\n")
		if len(kept) <= traceObservationBytes {
			more := strings.Count(lines[traceObservationLines], "\n") + 1
			return fmt.Sprintf("%s … (%d more lines)", kept, more)
		}
	}
	return shortenBytes(s, traceObservationBytes)
}

// shortenBytes cuts s to at most n bytes, on a character boundary, and
// says how many it left out.
func shortenBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	kept := strings.ToValidUTF8(s[:n], "")
	return fmt.Sprintf("%s … (%d more bytes)", kept, len(s)-len(kept))
}

// hang indents the lines of s after the first.
func hang(s, pad string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	return first + "\n" + indent(rest, pad)
}

// indent puts pad before each line of s that is not empty.
func indent(s, pad string) string {
	var b strings.Builder
	b.Grow(len(s) + len(pad)*(strings.Count(s, "\n")+1))
	for line := range strings.Lines(s) {
		if line != "\n" {
			b.WriteString(pad)
		}
		b.WriteString(line)
	}
	return b.String()
}
