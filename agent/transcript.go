package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
)

// transcript is the conversation of one run as the model sees it: the
// text protocol keeps one growing user message (the scratchpad), the
// native protocol the assistant's tool calls and the tool results as
// messages of their own.
type transcript interface {
	// messages returns the messages to send, the fixed ones first.
	messages() []llms.MessageContent
	// size is the bytes of text the messages hold.
	size() int
	// addStep records a tool call and its observation.
	addStep(reply *Reply, step parser.Step, observation string)
	// addReply records a reply the agent could not use, and what it told
	// the model.
	addReply(reply *Reply, message string)
	// addFinalRequest asks for the final answer, with no more tool calls.
	addFinalRequest()
}

// textTranscript is the text protocol's transcript: the system prompt
// with the tools, the turns of a conversation so far, and the scratchpad
// of the question. To fit a context window it leaves out the oldest
// turns, then shortens the oldest observations; the system prompt and the
// question always stay.
type textTranscript struct {
	tmpl     *prompt.Template
	question string
	ask      func(text string) llms.MessageContent // the question's message: the scratchpad and any images
	imageLen int                                   // the bytes the images are counted as
	system   llms.MessageContent
	sysLen   int
	turns    []llms.MessageContent // question and answer of each earlier turn
	turnLen  []int                 // the bytes of each pair
	pad      *prompt.Scratchpad
	entries  []padEntry // what the scratchpad holds after the question
	final    bool       // the final answer was asked for
	dropped  int        // the oldest turns left out
	short    int        // the oldest entries whose observations are shortened
	msgs     []llms.MessageContent
}

// padEntry is one step of the scratchpad, kept so that the scratchpad can
// be written again with its observation shortened.
type padEntry struct {
	step        parser.Step
	reply       string // a reply that could not be parsed, when step is empty
	observation string
	keep        int // the bytes of observation kept to fit the context window; 0 keeps it whole
}

// shown returns the observation as the scratchpad holds it.
func (e padEntry) shown() string {
	if e.keep > 0 {
		return shortenTo(e.observation, e.keep)
	}
	return e.observation
}

// cut shortens the observation to n bytes, unless it is no longer, and
// reports whether that left more out.
func (e *padEntry) cut(n int) bool {
	if len(e.observation) <= n || (e.keep > 0 && e.keep <= n) {
		return false
	}
	e.keep = n
	return true
}

// textTranscript starts the text protocol's transcript.
func (a *Agent) textTranscript(history []Turn, question string, tmpl *prompt.Template) (*textTranscript, error) {
	system, err := tmpl.System(a.promptData(question))
	if err != nil {
		return nil, err
	}
	if a.opts.system != "" && !strings.Contains(system, a.opts.system) {
		// A template of one's own may leave out {{.Context}}: the extra
		// context still reaches the model, at the end.
		system = strings.TrimRight(system, "\n") + "\n\n" + a.opts.system
	}
	t := &textTranscript{tmpl: tmpl, question: question, ask: a.question,
		system: llms.TextParts(llms.ChatMessageTypeSystem, system), sysLen: len(system), imageLen: len(a.opts.images) * imageBytes}
	for _, h := range history {
		q := tmpl.Begin(h.Question).String()
		ans := tmpl.FormatStep(parser.Step{Kind: parser.KindFinal, FinalAnswer: h.answerShown()})
		t.turns = append(t.turns, llms.TextParts(llms.ChatMessageTypeHuman, q), llms.TextParts(llms.ChatMessageTypeAI, ans))
		t.turnLen = append(t.turnLen, len(q)+len(ans))
	}
	t.pad = tmpl.Begin(question)
	return t, nil
}

func (t *textTranscript) messages() []llms.MessageContent {
	t.msgs = append(t.msgs[:0], t.system)
	t.msgs = append(t.msgs, t.turns[2*t.dropped:]...)
	t.msgs = append(t.msgs, t.ask(t.pad.String()))
	return t.msgs
}

func (t *textTranscript) size() int {
	n := t.sysLen + t.imageLen + t.pad.Len()
	for _, l := range t.turnLen[t.dropped:] {
		n += l
	}
	return n
}

func (t *textTranscript) addStep(_ *Reply, step parser.Step, observation string) {
	t.entries = append(t.entries, padEntry{step: step, observation: observation})
	t.pad.AddStep(step, observation)
}

func (t *textTranscript) addReply(reply *Reply, message string) {
	_, visible := parser.SplitReasoning(reply.Text)
	if errors.Is(reply.Err, parser.ErrTruncated) {
		// None of it was used, and it may be as long as a reply can be:
		// the model is told so, not shown it again.
		visible = ""
	}
	t.entries = append(t.entries, padEntry{reply: visible, observation: message})
	t.pad.AddReply(visible, message)
}

func (t *textTranscript) addFinalRequest() {
	t.final = true
	t.pad.AddFinalRequest()
}

// shortObservation is how much of an old observation stays when it is
// shortened to fit the context window.
const shortObservation = 300

// minObservation is how much of the newest observation stays at least
// when nothing else can be left out to fit the context window.
const minObservation = 100

// cutNoteRoom is room for the note that says what was left out of an
// observation.
const cutNoteRoom = 64

// fit leaves out what it must for the transcript to be at most budget
// bytes: the oldest turns first, then the oldest observations but the
// last, shortened, and when that is not enough, the newest observation
// too, to the room left (at least minObservation bytes). What it left out
// before stays out, so that the start of the prompt changes as seldom as
// possible and the server's prompt cache keeps working. It reports what it
// changed, and whether the transcript fits.
func (t *textTranscript) fit(budget int) (turns, observations int, newest, fits bool) {
	for t.size() > budget && t.dropped < len(t.turnLen) {
		t.dropped++
		turns++
	}
	for t.size() > budget && t.short < len(t.entries)-1 {
		if t.entries[t.short].cut(shortObservation) {
			observations++
			t.rewrite()
		}
		t.short++
	}
	if over := t.size() - budget; over > 0 && len(t.entries) > 0 {
		e := &t.entries[len(t.entries)-1]
		keep := len(e.observation) - over - cutNoteRoom
		if e.keep > 0 {
			keep = e.keep - over
		}
		if e.cut(max(keep, minObservation)) {
			newest = true
			t.rewrite()
		}
	}
	return turns, observations, newest, t.size() <= budget
}

// rewrite writes the scratchpad again, with the observations shortened
// as their entries say.
func (t *textTranscript) rewrite() {
	pad := t.tmpl.Begin(t.question)
	for _, e := range t.entries {
		if e.reply != "" || e.step.Kind == "" {
			pad.AddReply(e.reply, e.shown())
		} else {
			pad.AddStep(e.step, e.shown())
		}
	}
	if t.final {
		pad.AddFinalRequest()
	}
	t.pad = pad
}

// shortenTo keeps the first n bytes of an observation and says how much
// was left out: the bytes of the tool's output, counted through the
// marker of an observation that was cut already (see tools.Omitted).
func shortenTo(obs string, n int) string {
	if len(obs) <= n {
		return obs
	}
	cut := strings.ToValidUTF8(obs[:n], "")
	left, more := tools.Omitted(obs[len(cut):])
	if more {
		return fmt.Sprintf("%s\n[more than %d bytes left out to fit the context window]", cut, left)
	}
	return fmt.Sprintf("%s\n[%d more bytes left out to fit the context window]", cut, left)
}
