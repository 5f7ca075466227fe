package parser

import (
	"errors"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Parser parses model responses into Steps. It is safe for concurrent use.
type Parser struct {
	tools toolIndex
}

// New returns a parser that matches tool names and infers arguments using
// the tools t describes, read once now. t may be nil: then every tool is
// unregistered and a text input goes under "input".
func New(t Tools) *Parser {
	return &Parser{tools: newToolIndex(t)}
}

// Parse turns one model response into a Step. A response it cannot use
// gives a *Error whose message tells the model what to write instead.
//
// Reasoning in <think>…</think> is ignored, and so is everything from a
// hallucinated "Observation:" on. When both an action and a final answer
// appear, the one written first wins. A response with no protocol labels
// at all is taken as the final answer when it reads as one.
func (p *Parser) Parse(text string) (Step, error) {
	return p.parse(text, nil)
}

// ParseWith is Parse for a reply in a run whose loop knows what the text
// does not say: the steps before it, and whether the server cut the reply
// off at its token limit (see Options).
func (p *Parser) ParseWith(text string, o Options) (Step, error) {
	return p.parse(text, &o)
}

// parse is Parse with the options o, or none when o is nil.
func (p *Parser) parse(text string, o *Options) (Step, error) {
	if o == nil || !o.Truncated && len(o.Previous) == 0 {
		var rd reading
		if p.canonical(text, &rd) {
			return rd.step, rd.err
		}
	}
	return p.tolerant(text, o)
}

// tolerant is parse without the short way for canonical replies: the
// reading every reply gets.
func (p *Parser) tolerant(text string, o *Options) (Step, error) {
	st, body, err := p.read(text, o)
	if o != nil && o.Truncated {
		return p.cut(body, st, err)
	}
	return st, err
}

// read parses text, and returns the part of it that the step was read
// from too: the reply outside reasoning, after any copies of past steps.
func (p *Parser) read(text string, o *Options) (Step, string, error) {
	text, markup := normalize(text)
	reasoning, body := "", text
	if markup {
		reasoning, body = SplitReasoning(text)
	}
	body = strings.TrimSpace(body)
	if reasoning != "" {
		if tail, ok := protocolInOpenReasoning(text); ok && !hasLabel(body) {
			body = tail
		}
	}
	if body == "" {
		if reasoning != "" {
			return Step{}, body, p.errOnlyReasoning()
		}
		return Step{}, body, p.errEmpty()
	}
	if o != nil && len(o.Previous) > 0 {
		body = p.afterCopies(body, o.Previous)
	}
	if rd, ok := p.leadingObject(body); ok {
		if errors.Is(rd.err, ErrNoToolName) {
			// A JSON call of no tool: a final answer written after it
			// is the step.
			var r reply
			r.init(p, body)
			if st, err := r.step(); err == nil && st.Kind == KindFinal {
				return st, body, nil
			}
		}
		return rd.step, body, rd.err
	}
	var r reply
	r.init(p, body)
	st, err := r.step()
	return st, body, err
}

// normalize makes text valid UTF-8 with "\n" line ends and no
// chat-template tokens. It reports whether the text holds a '<', with
// which every tag starts, so that no later step reads it whole again to
// learn it.
func normalize(text string) (_ string, markup bool) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if strings.IndexByte(text, '\r') >= 0 {
		text = dropCR(text)
	}
	if strings.IndexByte(text, '\n') < 0 {
		text = escapedBreaks(text)
	}
	if markup = strings.IndexByte(text, '<') >= 0; markup {
		text = dropSpecialTokens(text)
	}
	return text, markup
}

// qwenLabels spells the labels of Qwen-Agent's function-calling template
// ("✿FUNCTION✿: web_search", then "✿ARGS✿: {...}") as the protocol's.
var qwenLabels = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("✿FUNCTION✿", "Action", "✿ARGS✿", "Action Input", "✿RESULT✿", "Observation", "✿RETURN✿", "Final Answer")
})

// breaks turns line breaks written as escapes or HTML back into breaks.
var breaks = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer(`\r\n`, "\n", `\n`, "\n", "<br>", "\n", "<br/>", "\n", "<br />", "\n")
})

// escapedBreaks reads a reply of one line whose line breaks came escaped
// ("Thought: x\nAction: y", as a JSON string writes it) or as HTML
// ("<br>"): when a label starts one of its lines once the breaks are
// back, the breaks are put back.
func escapedBreaks(text string) string {
	if !strings.Contains(text, `\n`) && !strings.Contains(text, "<br") {
		return text
	}
	lines := breaks().Replace(text)
	if nl := strings.IndexByte(lines, '\n'); nl >= 0 && hasLabel(lines[nl+1:]) {
		return lines
	}
	return text
}

// specialToken matches the end-of-turn and role tokens of chat templates
// that leak into a reply: <|im_end|>, <|eot_id|>, <|endoftext|>, <s>, </s>,
// and DeepSeek's with full-width bars (<｜tool▁calls▁begin｜>). A token
// that begins a call, or separates its type or name from what follows
// (function<｜tool▁sep｜>web_search), is a line break, with the type
// "function" dropped.
var specialToken = lazyRegexp(`(?:function)?<[|｜][A-Za-z0-9_▁]{1,32}[|｜]>|</?s>`)

// dropSpecialTokens removes chat-template tokens from text.
func dropSpecialTokens(text string) string {
	if strings.IndexByte(text, '<') < 0 || (!strings.Contains(text, "<|") && !strings.Contains(text, "<｜") && !strings.Contains(text, "</s>") && !strings.Contains(text, "<s>")) {
		return text
	}
	return specialToken().ReplaceAllStringFunc(text, func(tok string) string {
		if strings.Contains(tok, "sep") || strings.Contains(tok, "begin") {
			return "\n"
		}
		return tok[:strings.IndexByte(tok, '<')] // the word before a token that is not a separator
	})
}

// dropCR removes the carriage returns before line feeds ("\r\n" and
// "\r\r\n" alike), in one pass.
func dropCR(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && text[j] == '\r' {
			j++
		}
		if j > i {
			if j == len(text) || text[j] != '\n' {
				b.WriteString(text[i:j])
			}
			i = j
			continue
		}
		k := strings.IndexByte(text[i:], '\r')
		if k < 0 {
			k = len(text) - i
		}
		b.WriteString(text[i : i+k])
		i += k
	}
	return b.String()
}

// Args infers the argument object for a call of the named tool from input
// as Parse does for an Action Input, and returns the tool's canonical name
// (or the name as written, for a tool it does not know).
func (p *Parser) Args(name, input string) (string, map[string]any) {
	name = cleanName(name)
	info := p.tools.lookup(name)
	if info != nil {
		name = info.name
	}
	return name, p.inputArgs(info, input, asWritten)
}

// ObservationAt returns the offset of the "Observation:" label (in any of
// the spellings Parse knows) at which Parse ends a step because the model
// wrote the observation itself, or -1 when text has none. An observation
// echoed before anything else does not end the step. Text is read as it
// is: pass the part outside reasoning tags.
func ObservationAt(text string) int {
	var r reply
	r.init(nil, text)
	r.has(len(text)) // read every label
	if r.end == len(text) {
		return -1
	}
	return r.end
}

// StepEnd returns the offset at which the first action of text is
// complete: where a label that starts something else (a Thought, another
// Action, a Final Answer, an Observation) follows the action and its
// input, so that a streamed reply can be cut there. It returns -1 while
// the action may still be going on, and for text that holds no action.
// Text is read as it is: pass the part outside reasoning tags.
func StepEnd(text string) int {
	var r reply
	r.init(nil, text)
	return r.stepEnd()
}

// stepEnd is StepEnd of the reply, reading its labels as far as it needs.
func (r *reply) stepEnd() int {
	var e actionEnd
	for i := 0; r.has(i) && !e.see(r.marks.at(i)); i++ {
	}
	return e.at(r.body, r.end)
}

// ActionEnd returns where the first action of a reply is complete,
// outside any reasoning block, or -1: where a label that starts
// something else follows the action and its input (see StepEnd), or, for
// a call in another form (a JSON object), where an observation the model
// made up follows it (see ObservationAt). A streamed reply is cut there,
// and a Scanner finds the place as the reply streams.
func (p *Parser) ActionEnd(text string) int {
	return p.actionEnd(text, false)
}

// actionEnd is ActionEnd of text, or, when partial, of a text that may
// go on: a label at its very end that more text may yet make other words
// is left out (see awaitsMore).
func (p *Parser) actionEnd(text string, partial bool) int {
	visible, open := ReasoningEnd(text)
	if open {
		return -1
	}
	var r reply
	r.init(nil, text[visible:])
	r.scan.partial = partial
	if end := r.stepEnd(); end >= 0 {
		return visible + end
	}
	r.has(len(r.body)) // read every label, up to an observation that ends the reply
	if r.end < len(r.body) && p.actionBefore(r.body[:r.end]) {
		return visible + r.end
	}
	return -1
}

// actionBefore reports whether text, the reply before an observation the
// model made up, holds an action.
func (p *Parser) actionBefore(text string) bool {
	st, err := p.Parse(text)
	return err == nil && st.Kind == KindAction
}

// actionEnd follows the labels of a reply, in order, to where its first
// action is complete (see StepEnd): the label that follows the action and
// its input. Observations are not labels here; the reply ends at one.
type actionEnd struct {
	state endState
	next  mark // the label after the action, with state followed
}

// endState is how far actionEnd has come.
type endState uint8

const (
	beforeAction endState = iota
	inAction              // the action's label came
	inInput               // and its input's
	followed              // and the label after them
	answered              // a final answer came before any action
)

// see takes the next label of the reply, m, and reports whether no label
// after it matters.
func (e *actionEnd) see(m mark) bool {
	switch e.state {
	case followed, answered:
		return true
	case beforeAction:
		switch m.kind {
		case labelFinal:
			e.state = answered
			return true
		case labelAction:
			e.state = inAction
		}
		return false
	case inAction:
		if m.kind == labelInput {
			e.state = inInput
			return false
		}
	}
	e.state, e.next = followed, m
	return true
}

// at returns where the first action of text is complete, given the labels
// seen and end, where the reply ends (before a made-up observation, or at
// the end of text), or -1. A label that follows the action but has
// nothing after it and ends the text ("Action" may yet be "Action Input")
// ends nothing yet.
func (e *actionEnd) at(text string, end int) int {
	switch e.state {
	case followed:
		if e.next.value < len(text) || strings.HasSuffix(text, "\n") {
			return e.next.line
		}
	case inAction, inInput:
		if end < len(text) {
			return end // a made-up observation
		}
	}
	return -1
}

// reply is one response being parsed: its text, the labels in it, and the
// part of it that counts (from start to end: a leading echoed observation
// and everything from a hallucinated one on are left out). Labels are read
// as the parse needs them: a step decided on its first lines leaves the
// rest of a long reply unread.
type reply struct {
	p       *Parser
	marks   marks
	span    // body, start, end
	scan    labelScanner
	scanned bool   // every label before end is in marks
	noTool  string // the first Action value that named no tool, if any
	nextOwn int    // see inThought: 0 until looked for
	nested  bool   // the reply is the part of one after a tool gate (see callAfterGate)
}

// span is the part of a reply that counts, as its observations say: from
// start, past an observation the model echoed before writing anything,
// to end, where one it made up begins (madeUp).
type span struct {
	body       string
	start, end int
	skipping   bool // an echoed observation is skipped: the next label starts the reply
	madeUp     bool
}

// init readies r to parse body.
func (r *reply) init(p *Parser, body string) {
	*r = reply{p: p, span: span{body: body, end: len(body)}, scan: labelScanner{text: body}}
}

// has reports whether the reply has a label numbered i, reading lines
// until it finds it or the reply ends.
func (r *reply) has(i int) bool {
	for r.marks.n <= i && !r.scanned {
		r.more()
	}
	return i < r.marks.n
}

// more reads the labels of the next line that has any. An Observation
// label that follows some content ends the reply there; one the model
// echoes before writing anything is skipped instead.
func (r *reply) more() {
	var buf [maxLineMarks + 1]mark // the labels of one line
	line, ok := r.scan.next(buf[:0])
	if !ok {
		r.scanned = true
		if r.skipping {
			r.start = r.end
		}
		return
	}
	for _, m := range line {
		if r.take(m) {
			r.marks.push(m)
		} else if r.madeUp {
			r.scanned = true
			return
		}
	}
}

// take reads m, the next label of the reply, and reports whether the
// step is read from it: every label but an observation. An observation
// that follows some content ends the reply there (madeUp); one the model
// echoed before writing anything is skipped, and the reply starts at the
// label after it.
func (sp *span) take(m mark) bool {
	if sp.skipping {
		sp.start, sp.skipping = m.line, false
	}
	return m.kind != labelObservation || sp.observation(m.line)
}

// observation reads the observation at, the start of its label: it ends
// the reply, or is skipped. It reports false, as take does of it. It is
// seldom called, and kept apart so that take is inlined where each label
// is read.
//
//go:noinline
func (sp *span) observation(at int) bool {
	if strings.TrimSpace(sp.body[sp.start:at]) != "" {
		sp.end, sp.madeUp = at, true
	} else {
		sp.skipping = true
	}
	return false
}

// marks are the labels of a reply read so far. The first few are held in
// the struct itself, so that a reply on the stack keeps them there:
// a slice field would send them to the heap with the strings the reply
// gives out. The rest are held in chunks of a fixed size, so that a
// reply of many labels is never copied to grow.
type marks struct {
	first [8]mark
	more  [][]mark
	n     int
}

// markChunk is how many labels a chunk of marks.more holds.
const markChunk = 256

// at returns label i.
func (ms *marks) at(i int) mark {
	if i < len(ms.first) {
		return ms.first[i]
	}
	i -= len(ms.first)
	return ms.more[i/markChunk][i%markChunk]
}

// push appends m.
func (ms *marks) push(m mark) {
	if ms.n < len(ms.first) {
		ms.first[ms.n] = m
	} else {
		i := ms.n - len(ms.first)
		if i%markChunk == 0 {
			ms.more = append(ms.more, make([]mark, 0, markChunk))
		}
		ms.more[i/markChunk] = append(ms.more[i/markChunk], m)
	}
	ms.n++
}

// set replaces label i with m.
func (ms *marks) set(i int, m mark) {
	if i < len(ms.first) {
		ms.first[i] = m
	} else {
		i -= len(ms.first)
		ms.more[i/markChunk][i%markChunk] = m
	}
}

// segmentEnd returns where the value of mark i ends: at the next label's
// line, or at the end of the reply. Labels that are words of a thought
// (see inThought) do not end it.
func (r *reply) segmentEnd(i int) int {
	if r.has(i+1) && !r.marks.at(i+1).aside {
		return r.marks.at(i + 1).line // the usual case
	}
	for j := i + 1; r.has(j); j++ {
		if m := r.marks.at(j); !m.aside {
			return m.line
		}
	}
	return r.end
}

// ownLine reports whether label m starts its line.
func (r *reply) ownLine(m mark) bool {
	return m.line == 0 || r.body[m.line-1] == '\n'
}

// inThought reports whether the Action label i is words of the thought
// it follows on its line ("Thought: I should reflect. Action: reflect on
// it."), because an Action label on a line of its own comes after it,
// before any Final Answer: that one is the action. It then marks label i,
// and the labels after it on its line, as words of the thought.
func (r *reply) inThought(i int) bool {
	m := r.marks.at(i)
	if m.aside {
		return true
	}
	if i == 0 || r.ownLine(m) || r.marks.at(i-1).kind != labelThought {
		return false
	}
	// The next Action on a line of its own or Final Answer, looked for
	// once for all the thoughts before it.
	if r.nextOwn <= i {
		r.nextOwn = math.MaxInt // none
		for j := i + 1; r.has(j); j++ {
			if n := r.marks.at(j); n.kind == labelFinal || n.kind == labelAction && r.ownLine(n) {
				r.nextOwn = j
				break
			}
		}
	}
	if r.nextOwn == math.MaxInt || r.marks.at(r.nextOwn).kind != labelAction {
		return false
	}
	for j := i; j < r.marks.n; j++ {
		n := r.marks.at(j)
		if j > i && strings.IndexByte(r.body[m.line:n.line], '\n') >= 0 {
			break
		}
		n.aside = true
		r.marks.set(j, n)
	}
	return true
}

// value returns the text after label i, up to the next label.
func (r *reply) value(i int) string {
	return r.body[r.marks.at(i).value:r.segmentEnd(i)]
}

// step finds the first action or final answer and builds the Step.
func (r *reply) step() (Step, error) {
	if !r.hasProtocol() {
		content := strings.TrimSpace(r.body[r.start:r.end])
		if content == "" {
			return Step{}, r.p.errEchoedObservation()
		}
		if strings.Contains(content, "✿") {
			// Looked for only here, in a reply without the protocol's
			// labels, so that no other reply is read once more for it.
			if labelled := qwenLabels().Replace(content); labelled != content {
				var again reply
				again.init(r.p, labelled)
				return again.step()
			}
		}
		if rd, ok := r.blob(r.start); ok {
			return rd.step, rd.err
		}
		if rd, _, ok := r.p.markupCall(content); ok {
			return rd.step, rd.err
		}
		if rd, ok := r.callLine(r.start); ok {
			return rd.step, rd.err
		}
		if rd, ok := r.fencedCall(); ok {
			return rd.step, rd.err
		}
		if rd, ok := r.callAfterGate(); ok {
			return rd.step, rd.err
		}
		if answer, ok := gateAnswer(content); ok {
			return r.p.answer("", answer)
		}
		content = dropSpeaker(content)
		if rd, ok := r.p.blobCall(content); ok {
			// A JSON call after a role name: "AI: {"action": ...}".
			return rd.step, rd.err
		}
		if rd, ok := r.p.taggedCall(content, true); ok {
			return rd.step, rd.err
		}
		if before, answer, ok := answerAfterStockLine(content); ok {
			return r.p.answer(cleanText(before), answer)
		}
		if rd, ok := r.wordCall(); ok {
			return rd.step, rd.err
		}
		if err := r.p.notAnAnswer(content); err != nil {
			return Step{}, err
		}
		if content = cleanText(content); content == "" {
			return Step{}, r.p.errEmpty()
		}
		return Step{Kind: KindFinal, FinalAnswer: content}, nil
	}
	emptyAction, noToolAt := false, -1
	for i := 0; r.has(i); i++ {
		if noToolAt >= 0 && i-noToolAt > maxAfterNoTool {
			// Label after label and no step: a final answer beside the
			// action that named no tool comes soon after it.
			return Step{}, r.p.errNoToolName(r.noTool)
		}
		switch r.marks.at(i).kind {
		case labelFinal:
			answer := cleanText(r.value(i))
			if answer == "" {
				return Step{}, r.p.errEmptyAnswer()
			}
			return r.p.answer(r.thought(r.marks.at(i).line), answer)
		case labelAction:
			if r.inThought(i) {
				continue
			}
			if rd, ok := r.action(i); ok {
				return rd.step, rd.err
			}
			emptyAction = true
			if noToolAt < 0 && r.noTool != "" {
				noToolAt = i
			}
		}
	}
	if rd, ok := r.blob(r.start); ok {
		return rd.step, rd.err
	}
	if rd, at, ok := r.p.markupCall(r.body[r.start:r.end]); ok {
		if rd.step.Kind != "" {
			rd.step.Thought = r.thought(r.start + at)
		}
		return rd.step, rd.err
	}
	if rd, ok := r.callLine(r.start); ok {
		return rd.step, rd.err
	}
	if rd, ok := r.fencedCall(); ok {
		return rd.step, rd.err
	}
	if rd, ok := r.callAfterGate(); ok {
		return rd.step, rd.err
	}
	if answer, ok := gateAnswer(r.body[r.start:r.end]); ok {
		return r.p.answer("", answer)
	}
	if rd, ok := r.answerInThought(); ok {
		return rd.step, rd.err
	}
	if !emptyAction {
		if rd, ok := r.wordCall(); ok {
			return rd.step, rd.err
		}
	}
	if emptyAction {
		return Step{}, r.p.errNoToolName(r.noTool)
	}
	if g, ok := firstGate(r.body[r.start:r.end]); ok {
		return Step{}, r.p.errGate(g.answer)
	}
	return Step{}, r.p.errNoAction()
}

// callAfterGate reads the call that follows LangChain's conversational
// tool gate, answered "Yes", on the gate's own line, where no label opens
// the line to show it: "The user asks for the weather. Do I need to use
// a tool? Yes Action: web_search Action Input: Lisbon". The reply is read
// again from the Action label, once: not again for a gate in that part.
func (r *reply) callAfterGate() (reading, bool) {
	if r.nested {
		return reading{}, false
	}
	at, ok := gateCall(r.body[r.start:r.end])
	if !ok {
		return reading{}, false
	}
	at += r.start
	var again reply
	again.init(r.p, r.body[at:r.end])
	again.nested = true
	st, err := again.step()
	return reading{r.withThought(st, at), err}, true
}

// answer builds the step for a final answer written as text. A JSON call
// written where the answer goes ("Answer: {"action": "Search", ...}") is
// that call, and an answer that stops in the middle of a sentence is an
// error: it was cut off, and taking it would end the run with half an
// answer.
func (p *Parser) answer(thought, text string) (Step, error) {
	if rd, ok := p.blobCall(text); ok {
		if rd.step.Kind != "" && rd.step.Thought == "" {
			rd.step.Thought = thought
		}
		return rd.step, rd.err
	}
	if answerCutOff(text) {
		return Step{}, p.errNotAnAnswer("Your final answer stops in the middle of a sentence. Write \"Final Answer:\" and the whole answer.")
	}
	return Step{Kind: KindFinal, Thought: thought, FinalAnswer: text}, nil
}

// blobCall reads text as a JSON call when it is one: an object (or a list
// of them), bare or fenced, whose keys name a call. Other JSON is data,
// and stays an answer.
func (p *Parser) blobCall(text string) (reading, bool) {
	if !startsBlob(text) {
		return reading{}, false
	}
	u := strings.TrimSpace(unfence(text))
	if u == "" || (u[0] != '{' && u[0] != '[') {
		return reading{}, false
	}
	if u[0] == '{' {
		obj, _, ok := decodeObject(u)
		if !ok {
			return reading{}, false
		}
		if _, isCall := objectCall(obj); !isCall {
			return reading{}, false
		}
	}
	rd, ok := p.blobAt(text)
	if !ok || (u[0] == '[' && rd.step.Kind != KindAction) {
		return reading{}, false
	}
	return rd, true
}

// answerInThought reads a reply of thoughts alone whose last thought
// says the answer is known and then gives it, without a Final Answer
// label ("Thought: I now know the final answer.\nParis is ...").
func (r *reply) answerInThought() (reading, bool) {
	last := -1
	for i := 0; r.has(i); i++ {
		switch r.marks.at(i).kind {
		case labelThought:
			last = i
		case labelQuestion:
		default:
			return reading{}, false
		}
	}
	if last < 0 {
		return reading{}, false
	}
	m := r.marks.at(last)
	before, answer, ok := answerAfterStockLine(r.body[m.value:r.end])
	if !ok {
		return reading{}, false
	}
	thought := r.thought(m.line)
	if before = cleanText(before); thought != "" {
		before = thought + " " + before
	}
	st, err := r.p.answer(before, answer)
	return reading{st, err}, true
}

// hasProtocol reports whether the reply has a protocol label, beyond an
// echoed question.
func (r *reply) hasProtocol() bool {
	for i := 0; r.has(i); i++ {
		if r.marks.at(i).kind != labelQuestion {
			return true
		}
	}
	return false
}

// thought gathers the reasoning written before offset limit: text before
// the first label and the values of Thought labels. Parts are joined with
// a space, so that no part's first words start a line of their own.
func (r *reply) thought(limit int) string {
	var buf [4]string // the parts of most thoughts, without allocating
	parts := buf[:0]
	add := func(s string) {
		if s = cleanText(s); s != "" {
			parts = append(parts, s)
		}
	}
	first := r.end
	if r.has(0) {
		first = r.marks.at(0).line
	}
	add(r.body[r.start:min(first, limit)])
	for i := 0; r.has(i) && r.marks.at(i).line < limit; i++ {
		if m := r.marks.at(i); m.kind == labelThought {
			add(r.body[m.value:min(r.segmentEnd(i), limit)])
		}
	}
	return strings.Join(parts, " ")
}

// withThought gives st the thought written before offset limit when the
// step carries none of its own.
func (r *reply) withThought(st Step, limit int) Step {
	if st.Kind != "" && st.Thought == "" {
		st.Thought = r.thought(limit)
	}
	return st
}

// action builds the step for the Action label i. It reports ok=false for
// an Action label whose value names no tool (nothing, "None", a sentence,
// a placeholder), which the caller skips; r.noTool keeps what it said.
func (r *reply) action(i int) (reading, bool) {
	p := r.p
	seg := r.value(i)
	line, rest, _ := strings.Cut(seg, "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		// The name, or a JSON blob, on the lines below the label.
		rest = strings.TrimSpace(rest)
		if startsBlob(rest) {
			if rd, ok := p.blobAt(rest); ok {
				return reading{r.withThought(rd.step, r.marks.at(i).line), rd.err}, true
			}
		}
		if strings.HasPrefix(rest, "```") {
			if rd, ok := p.toolFence(rest); ok {
				// A fence tagged with the tool's name, its input inside.
				return reading{r.withThought(rd.step, r.marks.at(i).line), rd.err}, true
			}
			// The name in a code block of its own.
			rest = unfence(rest)
		}
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
	}
	if startsBlob(line) {
		// A JSON blob, or a list of them, on the label's line: "Action:
		// ```json" and the calls below.
		if rd, ok := p.blobAt(strings.TrimSpace(seg)); ok {
			return reading{r.withThought(rd.step, r.marks.at(i).line), rd.err}, true
		}
	}
	if line != "" && line[0] == '<' {
		// A call written as markup: "<search>Ada Lovelace</search>",
		// "<invoke><tool_name>x</tool_name>...", "<function=x>...".
		if rd, ok := p.markupAction(strings.TrimSpace(unfence(strings.TrimSpace(seg)))); ok {
			return reading{r.withThought(rd.step, r.marks.at(i).line), rd.err}, true
		}
	}
	if at, ok := answerLabelIn(line); ok {
		// "Action: search Final Answer: 13 °C": a call and an answer
		// on one line, neither of them whole.
		return reading{err: p.errActionAndAnswer(strings.TrimSpace(line[:at]))}, true
	}
	name, inlineInput, inlineForm := p.splitActionLine(line)
	naming := p.naming(name)
	if naming == namesNothing || naming != namesTool && isTemplate(line) {
		r.sawNoTool(name)
		return reading{}, false
	}
	thought := r.thought(r.marks.at(i).line)
	input, form := "", asWritten
	if j := r.inputFor(i); j >= 0 {
		input = strings.TrimSpace(r.value(j))
	}
	if input == "" && inlineForm != asWritten && strings.TrimSpace(inlineInput) != "" {
		input, form = inlineInput, inlineForm
	}
	if input == "" {
		// Unlabelled input below the action: a JSON object, a fence or a
		// quoted string, or the tool's own "key: value" lines.
		below := cleanText(rest)
		if below != "" && strings.ContainsRune("{`\"'", rune(below[0])) {
			input = below
		} else if info := p.tools.lookup(name); info != nil && below != "" {
			if _, ok := kwargs(below, info.ownKey, false); ok {
				input = below
			}
		}
	}
	if naming == namesSentence && r.marks.at(i).listed {
		// "2. **Action:** Perform the addition": a step of a plan
		// written as a numbered list, not a call.
		naming = namesNothing
	}
	if naming == namesSentence && input == "" && len(line) <= maxWordCallTail {
		// "Action: I will use the calculator tool with input `2+2`": a
		// call written in words, as the Action's value.
		if c, ok := p.callInWords(line, 0); ok && idle(line[c.end:]) {
			st, err := p.wordCallStep(thought, c)
			return reading{st, err}, true
		}
	}
	if !p.callsWith(naming, name, input, form) {
		// A word that calls only with an input, written without one, or
		// words that name no tool (the thought written again): not a
		// call.
		r.sawNoTool(name)
		return reading{}, false
	}
	st, err := p.call(thought, name, input, form)
	return reading{st, err}, true
}

// answerLabelIn returns where a Final Answer label stands in line, the
// value of an Action label, after the words of a name and before any
// bracket or quote opens an input: a label inside a name ends it. Only a
// capitalised label counts ("search for the final answer: x" is words),
// and only at the first maxNameColons colons of the first maxNameLen
// bytes, where a name stands.
func answerLabelIn(line string) (int, bool) {
	head := line[:min(len(line), maxNameLen)]
	// The colons that may end a label, each found at memchr speed.
	var colons [maxNameColons]int
	n := 0
	for i := 0; i < len(head) && n < maxNameColons; {
		k := strings.IndexByte(head[i:], ':')
		if w := strings.Index(head[i:], "："); w >= 0 && (k < 0 || w < k) {
			k = w
		}
		if k < 0 {
			break
		}
		colons[n], n = i+k, n+1
		i += k + 1
	}
	if n == 0 {
		return 0, false
	}
	// No name holds a bracket or a quote before its label: an input
	// opens there.
	if stop := strings.IndexAny(head[:colons[n-1]], "([{\"'`"); stop >= 0 {
		head = head[:stop]
	}
	var lt *labelSet
	for _, colon := range colons[:n] {
		if colon >= len(head) {
			break
		}
		before := strings.TrimRight(head[:colon], " \t*_`0123456789")
		if !strings.ContainsAny(strings.TrimSpace(before), " \t") {
			continue // one word before the colon: a name, or a label with nothing before it
		}
		if lt == nil {
			lt = labelTables()
		}
		if last, _ := utf8.DecodeLastRuneInString(before); !lt.finalEnds[unicode.ToLower(last)] {
			continue // a word that ends no Final Answer label ("Action")
		}
		if m, ok := labelBefore(lt, head, 0, colon); ok && m.kind == labelFinal && !m.lower && strings.TrimSpace(head[:m.line]) != "" {
			return m.line, true
		}
	}
	return 0, false
}

// maxNameColons bounds the colons of an Action's value that
// answerLabelIn reads: a name holds one or two ("Gmail: Find Email").
const maxNameColons = 3

// sawNoTool keeps the first value of an Action label that named no
// tool, for the error that says so.
func (r *reply) sawNoTool(value string) {
	if r.noTool == "" {
		r.noTool = strings.TrimSpace(value)
	}
}

// maxAfterNoTool bounds the labels read after an Action label whose
// value names no tool, looking for the step, so that a reply of many such
// labels parses in time linear in the labels the step needs.
const maxAfterNoTool = 4

// startsBlob reports whether s starts the way a JSON blob does: an
// object, a list, or a code fence.
func startsBlob(s string) bool {
	return s != "" && (s[0] == '{' || s[0] == '[' || strings.HasPrefix(s, "```"))
}

// reading is what one form of reply gave: a step, or the error that tells
// the model what to write instead. The functions that try a form report
// whether the reply has that form at all.
type reading struct {
	step Step
	err  error
}

// maxCallTries bounds how many lines callLine reads as calls, so that a
// reply of many lines ending in brackets still parses in linear time:
// the call a model writes instead of an Action label comes early.
const maxCallTries = 16

// callLine looks for a line that is one inline call of a registered tool
// (or of finish), in the reply from offset from on, as models write it
// below a thought or a sentence instead of an Action label:
// "web_search({"query": "zig"})" or "calculator(expression='2+2')",
// perhaps in a code fence. The text before it is the thought.
func (r *reply) callLine(from int) (reading, bool) {
	s := r.body[:r.end]
	paren, bracket := -1, -1 // not looked for yet
	next := -1               // the end of the line being looked at
	for tries, pos := 0, from; pos < len(s) && tries < maxCallTries; {
		// The next closing parenthesis or bracket, at memchr speed.
		if paren < pos {
			paren = indexFrom(s, ")", pos)
		}
		if bracket < pos {
			bracket = indexFrom(s, "]", pos)
		}
		at := min(paren, bracket)
		if at >= len(s) {
			break
		}
		if at >= next {
			next = len(s)
			if nl := strings.IndexByte(s[at:], '\n'); nl >= 0 {
				next = at + nl + 1
			}
		}
		pos = next
		// Only white space and backticks may follow it on its line.
		if strings.TrimRight(s[at+1:next], " \t\n`") != "" {
			pos = at + 1
			continue
		}
		line := from + strings.LastIndexByte(s[from:at], '\n') + 1
		if t := strings.TrimSpace(strings.Trim(strings.TrimSpace(s[line:next]), "`")); t != "" {
			tries++
			if rd, ok := r.p.bareCall(t); ok {
				return reading{r.withThought(rd.step, line), rd.err}, true
			}
		}
	}
	return reading{}, false
}

// unwrapCall returns the call inside a line of code that does no more
// than run it, as models that write their calls as code do:
// "print(web_search(...))", "result = web_search(...)", "await
// web_search(...)", or after a marker ("<<function>>web_search(...)").
func unwrapCall(line string) string {
	line = strings.TrimSuffix(line, ";")
	if name, rest, ok := strings.Cut(line, "="); ok && isIdentifier(strings.TrimSpace(name)) && !strings.HasPrefix(rest, "=") {
		line = strings.TrimSpace(rest)
	}
	line = strings.TrimPrefix(line, "await ")
	if m := callMarker().FindString(line); m != "" {
		line = line[len(m):]
	}
	if inner, ok := strings.CutPrefix(line, "print("); ok && strings.HasSuffix(inner, ")") {
		line = strings.TrimSpace(inner[:len(inner)-1])
	}
	return line
}

// callMarker matches a marker some models put before a call:
// "<<function>>web_search(...)", "<call>web_search(...)".
var callMarker = lazyRegexp(`^<{1,2}[A-Za-z_]{1,32}>{1,2}[ \t]*`)

// bareCall reads a reply that is nothing but one inline call of a
// registered tool, such as "web_search(query=\"go\")" (perhaps in a code
// fence), as that call.
func (p *Parser) bareCall(content string) (reading, bool) {
	line := unwrapCall(strings.TrimSpace(unfence(content)))
	if strings.IndexByte(line, '\n') >= 0 || !(strings.HasSuffix(line, ")") || strings.HasSuffix(line, "]")) {
		return reading{}, false
	}
	name, input, form := p.splitActionLine(line)
	if form == asWritten || (p.tools.lookup(name) == nil && !isFinish(name)) || strings.TrimSpace(input) == "" {
		return reading{}, false
	}
	st, err := p.call("", name, input, form)
	return reading{st, err}, true
}

// inputFor returns the index of the Action Input label that belongs to the
// Action label i, or -1: the first one after it and before any other
// Action or Final Answer label, or else one written before it (labels out
// of order) that no earlier Action label claims.
func (r *reply) inputFor(i int) int {
forward:
	for j := i + 1; r.has(j); j++ {
		if r.marks.at(j).aside {
			continue
		}
		switch r.marks.at(j).kind {
		case labelInput:
			return j
		case labelAction, labelFinal:
			break forward
		}
	}
	for j := i - 1; j >= 0; j-- {
		if r.marks.at(j).aside {
			continue
		}
		switch r.marks.at(j).kind {
		case labelAction, labelFinal:
			return -1
		case labelInput:
			for k := j - 1; k >= 0; k-- {
				switch r.marks.at(k).kind {
				case labelAction:
					return -1 // the input of that action
				case labelFinal:
					return j
				}
			}
			return j
		}
	}
	return -1
}

// inputForm says how a call's input was written, which decides how it is
// read.
type inputForm int

const (
	// asWritten is an Action Input as a model writes it: JSON, a quoted
	// string, or raw text that ends at a blank line.
	asWritten inputForm = iota
	// inline is the input of an inline call written after its name
	// ("web_search: zig", "search[zig]", "calculator 2+2"), which may be
	// keyword arguments.
	inline
	// inParens is the input inside an inline call's parentheses
	// ("web_search(query=...)", "web_search('zig', 3)"), which may be
	// keyword arguments or Python values.
	inParens
	// jsonString is the value of a JSON string: the whole of it is the
	// input, blank lines and all.
	jsonString
)

// call builds the step for a call of the tool written as name with the
// given input text (empty when there was none).
func (p *Parser) call(thought, name, input string, form inputForm) (Step, error) {
	info, resolved := p.find(name)
	if info == nil && isFinish(name) {
		answer := answerText(input, form)
		if answer == "" {
			return Step{}, p.errEmptyAnswer()
		}
		return Step{Kind: KindFinal, Thought: thought, FinalAnswer: answer}, nil
	}
	if info == nil {
		if loose := p.tools.forgiven(name); loose != nil && loose.fits(p.inputArgs(nil, input, form)) {
			info, resolved = loose, loose.name
		}
	}
	name = resolved
	if inner, innerForm, ok := p.repeatedCall(name, info, input); ok {
		input, form = inner, innerForm
	}
	if isPlaceholder(input) || noInput(input, form) {
		// No input, or one that says there is none: a call with no
		// arguments, unless the tool needs some.
		if info != nil && len(info.required) > 0 {
			return Step{}, p.errNoInput(name, info)
		}
		return Step{Kind: KindAction, Thought: thought, Action: name, Args: map[string]any{}}, nil
	}
	return Step{Kind: KindAction, Thought: thought, Action: name, Args: p.inputArgs(info, input, form)}, nil
}

// find returns the registered tool that name, as written, means, and the
// name the step gives: the tool's, or for a tool the parser does not
// know, the name as unknownName keeps it. A name with a namespace before
// it ("functions.Calculator") is looked up again without it.
func (p *Parser) find(name string) (*toolInfo, string) {
	if info := p.tools.lookup(name); info != nil {
		return info, info.name
	}
	unknown := unknownName(name)
	if unknown != cleanName(name) {
		if info := p.tools.lookup(unknown); info != nil {
			return info, info.name
		}
	}
	return nil, unknown
}

// repeatedCall reads an input that writes the call of the tool again
// ("Action: web_search", then "Action Input: web_search(query="zig")"),
// and returns the input inside it and how it is written.
func (p *Parser) repeatedCall(name string, info *toolInfo, input string) (string, inputForm, bool) {
	t := strings.TrimSpace(unfence(strings.TrimSpace(input)))
	if !strings.HasSuffix(t, ")") && !strings.HasSuffix(t, "]") {
		return "", asWritten, false
	}
	again, inner, form := p.splitActionLine(t)
	if form == asWritten || strings.IndexByte(again, '\n') >= 0 {
		return "", asWritten, false
	}
	if again = cleanName(again); again != name && (info == nil || p.tools.lookup(again) != info) {
		return "", asWritten, false
	}
	return inner, form, true
}

// maxFinishName bounds the names isFinish reads: no answering name is
// longer.
const maxFinishName = 32

// isFinish reports whether an action name is one of the ways models spell
// "this is the final answer": the ReAct paper's Finish, LangChain's
// "Final Answer", and the answering tools models make up ("Speak",
// "Respond"). A registered tool of that name is called instead.
func isFinish(name string) bool {
	if len(name) > maxFinishName {
		return false
	}
	var keyBuf, flatBuf [128]byte // on the stack: most names are no answer
	key, flat := appendKeys(keyBuf[:0], flatBuf[:0], cleanName(name))
	return finishKeys()[string(key)] || finishKeys()[string(flat)]
}
