package parser

import (
	"fmt"
	"strings"
)

// The messages below are written for the model: each says what was wrong
// and what to write instead, in a sentence or two. None spells out the
// whole format, which the system prompt gives: a loop that wants to
// remind the model of it adds FormatReminder, once.

// FormatReminder is the text protocol in short, for a loop to add to the
// first correction of a run (the message of an *Error).
const FormatReminder = "The format of a reply:\nThought: <your reasoning>\nAction: <tool name>\nAction Input: <the tool's arguments as a JSON object>\nor, instead of the Action and its Action Input:\nFinal Answer: <the answer>"

// writeStep says what a reply holds, as the corrections ask for it.
const writeStep = `"Thought:" and your reasoning, then "Action:" with a tool's name and "Action Input:" with its arguments, or "Final Answer:" and the answer`

func (p *Parser) toolList() string {
	return p.tools.list
}

func (p *Parser) errEmpty() error {
	return &Error{Err: ErrEmpty, Message: "Your reply was empty. Write " + writeStep + "."}
}

func (p *Parser) errOnlyReasoning() error {
	return &Error{Err: ErrEmpty, Message: "Your reply held only reasoning (<think>…</think>) and nothing after it. Close your reasoning with </think>, then write " + writeStep + "."}
}

func (p *Parser) errEchoedObservation() error {
	return &Error{Err: ErrNoAction, Message: "Your reply only repeated an Observation. Observations come from the tools, not from you. Continue with " + writeStep + "."}
}

func (p *Parser) errNoAction() error {
	return &Error{Err: ErrNoAction, Message: "Your reply has a Thought but neither an Action nor a Final Answer. Continue with an Action" + p.toolList() + " and its Action Input, or with \"Final Answer:\" and the answer."}
}

// errNoToolName is the error for an Action label with no tool name, or
// with a value that names no tool (written, when not empty).
func (p *Parser) errNoToolName(written string) error {
	if written == "" {
		return &Error{Err: ErrNoToolName, Message: `Your reply has "Action:" without a tool name. Write the name of the tool to use after "Action:"` + p.toolList() + `, then its arguments on an "Action Input:" line, or write "Final Answer:" if you know the answer.`}
	}
	return &Error{Err: ErrNoToolName, Message: fmt.Sprintf(`Your reply has "Action: %s", which names no tool. After "Action:" write only the name of the tool to use%s, and its arguments on an "Action Input:" line. If you need no tool, write "Final Answer:" and the answer instead.`,
		clipQuote(written), p.toolList())}
}

// errActionAndAnswer is the error for an Action label whose value runs
// into a Final Answer label on its line.
func (p *Parser) errActionAndAnswer(name string) error {
	return &Error{Err: ErrNoToolName, Message: fmt.Sprintf(`Your reply has "Action: %s" and "Final Answer:" on one line, so it is neither a call nor an answer. To use a tool, write "Action:" and only its name%s on a line of its own, then its arguments on an "Action Input:" line; if you know the answer, write only "Final Answer:" and the answer.`,
		clipQuote(name), p.toolList())}
}

// clipQuote shortens a text the model wrote to quote it back in an error
// message: its first line, at most 80 bytes.
func clipQuote(s string) string {
	s = firstLine(s)
	if len(s) > 80 {
		s = strings.ToValidUTF8(s[:80], "") + "…"
	}
	return s
}

func (p *Parser) errNotAnAnswer(msg string) error {
	return &Error{Err: ErrNotAnAnswer, Message: msg}
}

func (p *Parser) errTruncated() error {
	return &Error{Err: ErrTruncated, Message: "Your reply was cut off: it reached the length limit of one reply before it ended, so none of it was used. Write the step again, shorter: a Thought of a sentence or two, then an Action and its Action Input, or the Final Answer. If the answer itself is long, give it more briefly."}
}

func (p *Parser) errEmptyAnswer() error {
	return &Error{Err: ErrEmptyAnswer, Message: `Your reply has "Final Answer:" with nothing after it. Write the answer itself after "Final Answer:".`}
}

// errNoInput is the error for a call without the arguments the tool
// needs.
func (p *Parser) errNoInput(name string, info *toolInfo) error {
	var needs, example []string
	for _, a := range info.required {
		needs = append(needs, fmt.Sprintf("%q", a))
		example = append(example, fmt.Sprintf(`%q: "..."`, a))
	}
	if len(name) > 80 {
		name = strings.ToValidUTF8(name[:80], "") + "…"
	}
	return &Error{Err: ErrNoActionInput, Message: fmt.Sprintf("Your reply has \"Action: %s\" but no Action Input, and %s needs %s. Write the tool's arguments as a JSON object on the next line, for example:\n\nAction: %s\nAction Input: {%s}",
		name, name, strings.Join(needs, " and "), name, strings.Join(example, ", "))}
}
