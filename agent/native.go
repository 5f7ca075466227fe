package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
)

// Protocol is how the model and the agent exchange steps.
type Protocol string

const (
	// ProtocolText is the ReAct text protocol: the model writes
	// Thought/Action/Action Input or Final Answer, and the tolerant
	// parser reads it. It works with every model.
	ProtocolText Protocol = "text"
	// ProtocolNative passes the tools as function definitions and reads
	// the model's tool calls from the response. A reply with no tool call
	// is read by the tolerant parser, so that a call written in the text
	// instead (a <tool_call> block, a JSON object, ReAct labels) still
	// runs; such a reply counts as rescued. Replies are not streamed.
	ProtocolNative Protocol = "native"
	// ProtocolAuto speaks the native protocol, and falls back to the text
	// protocol for the rest of the run when the server refuses tools.
	ProtocolAuto Protocol = "auto"
)

// ErrToolsRefused means the model's server does not take tool
// definitions, so the native protocol cannot be used with it.
var ErrToolsRefused = errors.New("the server does not support tool calling for this model")

// WithProtocol sets the protocol (default ProtocolText).
func WithProtocol(p Protocol) Option {
	return func(o *options) {
		if p != "" {
			o.protocol = p
		}
	}
}

// nativeTranscript is the native protocol's transcript.
type nativeTranscript struct {
	msgs  []llms.MessageContent
	bytes int
	final bool // the final answer was asked for: no more tools
}

func (t *nativeTranscript) messages() []llms.MessageContent { return t.msgs }

func (t *nativeTranscript) size() int { return t.bytes }

func (t *nativeTranscript) add(m llms.MessageContent, n int) {
	t.msgs = append(t.msgs, m)
	t.bytes += n
}

func (t *nativeTranscript) addStep(reply *Reply, step parser.Step, observation string) {
	args := prompt.FormatArgs(step.Args)
	id := reply.callID
	if id == "" {
		id = fmt.Sprintf("call_%d", reply.Iteration)
	}
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if _, visible := parser.SplitReasoning(reply.content); strings.TrimSpace(visible) != "" && reply.callID != "" {
		ai.Parts = append(ai.Parts, llms.TextContent{Text: strings.TrimSpace(visible)})
	}
	ai.Parts = append(ai.Parts, llms.ToolCall{ID: id, Type: "function",
		FunctionCall: &llms.FunctionCall{Name: step.Action, Arguments: args}})
	t.add(ai, len(reply.content)+len(args))
	t.add(llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: id, Name: step.Action, Content: observation}}}, len(observation))
}

func (t *nativeTranscript) addReply(reply *Reply, message string) {
	text := reply.Text
	if errors.Is(reply.Err, parser.ErrTruncated) {
		// None of it was used, and it may be as long as a reply can be:
		// the model is told so, not shown it again.
		text = cutReplyLeftOut
	}
	t.add(llms.TextParts(llms.ChatMessageTypeAI, text), len(text))
	t.add(llms.TextParts(llms.ChatMessageTypeHuman, message), len(message))
}

// cutReplyLeftOut stands in the native transcript for a reply the server
// cut off at its token limit: chat templates want the turns to alternate.
const cutReplyLeftOut = "[a reply cut off at the length limit, left out]"

// nativeCorrection is what the model is told of a native reply the agent
// could not use: the parser's message speaks of the text protocol.
func nativeCorrection(err error) string {
	if errors.Is(err, parser.ErrTruncated) {
		return "Your reply was cut off: it reached the length limit of one reply before it ended, so none of it was used. " +
			"Reply again, shorter: call one of the tools, or give the answer more briefly."
	}
	return err.Error()
}

func (t *nativeTranscript) addFinalRequest() {
	const ask = "You have no more tool calls. Give your final answer to the question now, in plain text."
	t.add(llms.TextParts(llms.ChatMessageTypeHuman, ask), len(ask))
	t.final = true
}

// nativeSystem is the system prompt of the native protocol: the tools
// travel as function definitions, so it only says how to behave.
const nativeSystem = "You are a helpful assistant that answers questions. " +
	"Call the tools you are given when they help: one call at a time, then read its result. " +
	"When you know the answer, reply with the answer itself, in plain text, without calling a tool."

// toolDefinitions describes the registry's tools as function definitions
// with JSON-schema parameters.
func (a *Agent) toolDefinitions() []llms.Tool {
	var defs []llms.Tool
	for _, t := range a.reg.List() {
		defs = append(defs, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name(), Description: t.Description(), Parameters: t.Schema().JSONSchema(),
		}})
	}
	return defs
}

// callNative makes one native model call, without streaming, with the
// tools unless the final answer was asked for.
func (a *Agent) callNative(ctx context.Context, msgs []llms.MessageContent, withTools bool, notice func(string)) (generation, error) {
	if a.opts.callTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, a.opts.callTimeout, model.ErrTimeout)
		defer cancel()
	}
	req := model.Request{Messages: msgs, OnNotice: notice}
	if withTools {
		req.Tools = a.toolDefinitions()
	}
	reply, err := a.gen.Generate(ctx, req)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, model.ErrTimeout) {
			return generation{}, &model.Error{Err: model.ErrTimeout, Temporary: true, Retry: model.RetryTimeout}
		}
		if withTools && toolsRefused(err) {
			return generation{}, fmt.Errorf("agent: %w: %w", ErrToolsRefused, err)
		}
		return generation{}, err
	}
	return generationOf(reply), nil
}

// toolsRefused reports whether a model's error says its server takes no
// tools, as the model read the server's own error (Ollama's "does not
// support tools", OpenAI-compatible servers' 400s about "tools") or its
// /props.
func toolsRefused(err error) bool { return errors.Is(err, model.ErrNoToolCalls) }

// readNative turns a native reply into a step: its first tool call (the
// others are left: one call a step), or, with none, what the tolerant
// parser reads in its text: a call written in the text is rescued, and
// anything else is the final answer.
func (a *Agent) readNative(reply *Reply, g generation) {
	_, visible := parser.SplitReasoning(g.text)
	visible = strings.TrimSpace(visible)
	reply.content = g.text
	if g.cut {
		// Stopped at the token limit: a call's arguments or the answer
		// may be cut in half, and a cut reply is never an answer.
		_, reply.Err = a.parser.ParseWith(g.text, parser.Options{Truncated: true})
		if reply.Err != nil {
			return
		}
	}
	if len(g.calls) > 0 && g.calls[0].FunctionCall != nil {
		c := g.calls[0]
		name, args := a.parser.Args(c.FunctionCall.Name, c.FunctionCall.Arguments)
		if strings.TrimSpace(c.FunctionCall.Arguments) == "" {
			args = map[string]any{}
		}
		reply.callID = c.ID
		reply.Step = parser.Step{Kind: parser.KindAction, Thought: visible, Action: name, Args: args}
		reply.Text = callText(visible, name, c.FunctionCall.Arguments)
		return
	}
	if visible == "" {
		reply.Err = &parser.Error{Err: parser.ErrEmpty,
			Message: "Your reply was empty. Call one of the tools, or reply with the answer itself."}
		return
	}
	st, err := a.parser.Parse(g.text)
	switch {
	case err == nil && st.Kind == parser.KindAction:
		reply.Step, reply.rescued = st, true
	case err == nil:
		reply.Step = st
	default:
		reply.Step = parser.Step{Kind: parser.KindFinal, FinalAnswer: visible}
	}
}

// callText renders a native tool call as the text a trace or a log shows.
func callText(thought, name, args string) string {
	var b strings.Builder
	if thought != "" {
		b.WriteString(thought)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "[tool call] %s %s", name, strings.TrimSpace(args))
	return b.String()
}

// nativeMessages starts the native transcript: the system prompt, the
// turns of history, and the question.
func (a *Agent) nativeMessages(history []Turn, question string) *nativeTranscript {
	t := &nativeTranscript{}
	system := nativeSystem
	if a.opts.system != "" {
		system += "\n\n" + a.opts.system
	}
	t.add(llms.TextParts(llms.ChatMessageTypeSystem, system), len(system))
	for _, h := range history {
		t.add(llms.TextParts(llms.ChatMessageTypeHuman, h.Question), len(h.Question))
		t.add(llms.TextParts(llms.ChatMessageTypeAI, h.answerShown()), len(h.answerShown()))
	}
	t.add(a.question(question), len(question)+len(a.opts.images)*imageBytes)
	return t
}
