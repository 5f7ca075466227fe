package parser

import (
	"fmt"
	"strings"
)

// The messages below are written for the model: each says what was wrong
// and shows what to write instead.

const formatReminder = "Thought: <your reasoning>\nAction: <tool name>\nAction Input: <the tool's arguments as a JSON object>\n\nor, when you know the answer:\n\nThought: <your reasoning>\nFinal Answer: <the answer>"

func (p *Parser) toolList() string {
	if len(p.tools.names) == 0 {
		return ""
	}
	return " (one of: " + strings.Join(p.tools.names, ", ") + ")"
}

func (p *Parser) errEmpty() error {
	return &Error{Err: ErrEmpty, Message: "Your reply was empty. Reply in this format:\n\n" + formatReminder}
}

func (p *Parser) errOnlyReasoning() error {
	return &Error{Err: ErrEmpty, Message: "Your reply held only reasoning (<think>…</think>) and nothing after it. Close your reasoning with </think>, then reply in this format:\n\n" + formatReminder}
}

func (p *Parser) errEchoedObservation() error {
	return &Error{Err: ErrNoAction, Message: "Your reply only repeated an Observation. Observations come from the tools, not from you. Continue in this format:\n\n" + formatReminder}
}

func (p *Parser) errNoAction() error {
	return &Error{Err: ErrNoAction, Message: "Your reply has a Thought but neither an Action nor a Final Answer. Continue with an Action" + p.toolList() + " and its Action Input, or with a Final Answer:\n\n" + formatReminder}
}

func (p *Parser) errNoToolName() error {
	return &Error{Err: ErrNoToolName, Message: `Your reply has "Action:" without a tool name. Write the name of the tool to use after "Action:"` + p.toolList() + `, then its arguments on an "Action Input:" line, or write "Final Answer:" if you know the answer:` + "\n\n" + formatReminder}
}

func (p *Parser) errNotAnAnswer(msg string) error {
	return &Error{Err: ErrNotAnAnswer, Message: msg + "\n\n" + formatReminder}
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
