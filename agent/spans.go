package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/tools"
)

// The spans of a run follow the OpenTelemetry semantic conventions for
// generative AI at version 1.41.0 (Development status), the last that the
// Go module go.opentelemetry.io/otel carries the gen_ai names of:
//
//   - "invoke_agent {name}" (INTERNAL) around each Run and each question of
//     a Chat, the root of a run's trace unless the caller's context holds
//     a span;
//   - "chat {model}" (CLIENT) around each attempt of a model call, whose
//     context the model's HTTP requests carry to the server as a W3C
//     traceparent; a retried attempt ends with error.type and a
//     "react_agent.retry" event saying why and how long the wait, and a
//     reply the parser could not read gets a "react_agent.parse_error"
//     event;
//   - "execute_tool {tool}" (INTERNAL) around each tool call, with
//     error.type when the tool failed or the call was refused.
//
// Prompts, replies, tool arguments and observations go into them only
// with WithSpanContent, through the agent's redactor.
const semconvVersion = "1.41.0"

// tracerName is the instrumentation scope of the agent's spans.
const tracerName = "github.com/react-agent/react-agent/agent"

// defaultName is the agent's name in its spans unless WithName gives one.
const defaultName = "react-agent"

// Attributes of react-agent's own, where the conventions have none.
const (
	attrStopReason = attribute.Key("react_agent.stop_reason")
	attrProtocol   = attribute.Key("react_agent.protocol")
	attrIterations = attribute.Key("react_agent.iterations")
	attrIteration  = attribute.Key("react_agent.iteration")
	attrAttempt    = attribute.Key("react_agent.attempt")
	attrForced     = attribute.Key("react_agent.forced")
	attrCut        = attribute.Key("react_agent.reply_cut")
	attrToolServer = attribute.Key("react_agent.tool.server")
	attrRetryWait  = attribute.Key("react_agent.retry.wait_seconds")
	attrRetryWhy   = attribute.Key("react_agent.retry.reason")
	attrReason     = attribute.Key("react_agent.reason")
	attrMessage    = attribute.Key("react_agent.message")
)

// maxPartBytes bounds the text of one message part in a span's content:
// a prompt of many observations is sent whole on every call, and a
// collector refuses spans past a few megabytes.
const maxPartBytes = 32 << 10

// initSpans readies the agent's spans: the tracer of its provider, and
// its model as they name it.
func (a *Agent) initSpans() {
	tp := a.opts.tracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	a.tracer = tp.Tracer(tracerName, trace.WithSchemaURL(semconv.SchemaURL))
	a.about = model.Describe(a.model)
}

// conversationKey is the context key of a run's conversation ID.
type conversationKey struct{}

// InConversation returns ctx carrying id, the ID of the conversation that
// the runs made with it are part of (the log's, say), which their spans
// name as gen_ai.conversation.id.
func InConversation(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, conversationKey{}, id)
}

// conversationOf returns the conversation ID ctx carries, or "".
func conversationOf(ctx context.Context) string {
	id, _ := ctx.Value(conversationKey{}).(string)
	return id
}

// providerName returns the gen_ai.provider.name of a provider: the
// conventions' own value where it has one, else the provider's name.
func providerName(provider string) string {
	switch provider {
	case "googleai":
		return "gcp.gemini"
	case "":
		return "_OTHER"
	}
	return provider
}

// modelAttributes are the attributes of the model, server and sampling
// that every span of the agent's model calls carries.
func (a *Agent) modelAttributes() []attribute.KeyValue {
	d := a.about
	attrs := []attribute.KeyValue{semconv.GenAIProviderNameKey.String(providerName(d.Provider))}
	if d.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(d.Model))
	}
	if d.Server.Host != "" {
		attrs = append(attrs, semconv.ServerAddress(d.Server.Host), semconv.ServerPort(d.Server.Port))
	}
	if _, ok := a.model.(model.Describer); ok {
		attrs = append(attrs, semconv.GenAIRequestTemperature(d.Temperature))
		if d.MaxTokens > 0 {
			attrs = append(attrs, semconv.GenAIRequestMaxTokens(d.MaxTokens))
		}
	}
	return attrs
}

// startRun starts the invoke_agent span of a run of question.
func (a *Agent) startRun(ctx context.Context, question string) (context.Context, trace.Span) {
	ctx, span := a.tracer.Start(ctx, "invoke_agent "+a.opts.name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(semconv.GenAIOperationNameInvokeAgent))
	if !span.IsRecording() {
		return ctx, span
	}
	span.SetAttributes(semconv.GenAIAgentName(a.opts.name), attrProtocol.String(string(a.opts.protocol)))
	span.SetAttributes(a.modelAttributes()...)
	if id := conversationOf(ctx); id != "" {
		span.SetAttributes(semconv.GenAIConversationID(id))
	}
	if a.opts.spanContent {
		span.SetAttributes(semconv.GenAIInputMessagesKey.String(a.messagesJSON([]message{{Role: "user", Parts: []part{a.text(question)}}})))
	}
	return ctx, span
}

// endRun ends the invoke_agent span of a run with how it went.
func (a *Agent) endRun(span trace.Span, res *Result, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrStopReason.String(string(res.StopReason)), attrIterations.Int(res.Iterations),
		semconv.GenAIUsageInputTokens(res.Usage.PromptTokens), semconv.GenAIUsageOutputTokens(res.Usage.CompletionTokens))
	if res.Model != "" {
		span.SetAttributes(semconv.GenAIResponseModel(res.Model))
	}
	if res.Forced {
		span.SetAttributes(attrForced.Bool(true))
	}
	if a.opts.spanContent && res.Answer != "" {
		span.SetAttributes(semconv.GenAIOutputMessagesKey.String(a.messagesJSON([]message{
			{Role: "assistant", Parts: []part{a.text(res.Answer)}, FinishReason: string(res.StopReason)}})))
	}
	if err != nil {
		a.failed(span, errorType(err), err)
	}
}

// failed marks span as ended by err, of the kind typ: with content, the
// error's message as people read it, else only what kind of error it
// was, as the message may quote the model's text.
func (a *Agent) failed(span trace.Span, typ string, err error) {
	span.SetAttributes(semconv.ErrorTypeKey.String(typ))
	span.SetStatus(codes.Error, a.errorText(typ, err))
}

// errorText is what a span says of err, of the kind typ: the server's
// words for a model call's failure, which hold no prompt; with content,
// the whole message; else the kind alone.
func (a *Agent) errorText(typ string, err error) string {
	var me *model.Error
	switch {
	case a.opts.spanContent:
		return a.redact(err.Error())
	case errors.As(err, &me) && !errors.As(err, new(*RepeatedParseError)):
		return a.redact(model.Brief(me))
	}
	return typ
}

// chatSpans makes the chat spans of one model call, a span an attempt.
// The span of the last attempt stays open until the reply is parsed, so
// that a parse error is an event on it; a failed attempt's stays open
// until the retry is decided, so that the wait is on it too. A nil
// *chatSpans makes none.
type chatSpans struct {
	a        *Agent
	ctx      context.Context // the run's, the spans' parent
	iter     int
	forced   bool
	msgs     []llms.MessageContent
	attempts int
	span     trace.Span // the latest attempt's, not ended yet, or nil
}

// startChat returns the chat spans of the model call of iteration iter;
// nil, which makes none, when the run is not traced.
func (a *Agent) startChat(ctx context.Context, iter int, forced bool, msgs []llms.MessageContent) *chatSpans {
	if !traced(ctx) {
		return nil
	}
	return &chatSpans{a: a, ctx: ctx, iter: iter, forced: forced, msgs: msgs}
}

// traced reports whether ctx holds the span of a trace: a run whose
// provider makes no spans (the global one of a program that set none)
// makes none for its calls either, and costs nothing more.
func traced(ctx context.Context) bool { return trace.SpanContextFromContext(ctx).IsValid() }

// attempt makes one attempt of the call in a span of its own, whose
// context call gets.
func (c *chatSpans) attempt(ctx context.Context, call func(context.Context) (generation, error)) (generation, error) {
	if c == nil {
		return call(ctx)
	}
	c.end()
	c.attempts++
	a := c.a
	name := "chat"
	if a.about.Model != "" {
		name += " " + a.about.Model
	}
	// The span's parent is the run's, whatever ctx holds: the attempt's
	// context is ctx, with its deadline, carrying the span.
	_, span := a.tracer.Start(c.ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(semconv.GenAIOperationNameChat))
	c.span = span
	ctx = trace.ContextWithSpan(ctx, span)
	if span.IsRecording() {
		span.SetAttributes(a.modelAttributes()...)
		span.SetAttributes(attrIteration.Int(c.iter), attrAttempt.Int(c.attempts), semconv.GenAIRequestStream(true))
		if c.forced {
			span.SetAttributes(attrForced.Bool(true))
		}
		if id := conversationOf(c.ctx); id != "" {
			span.SetAttributes(semconv.GenAIConversationID(id))
		}
		if len(a.opts.stops) > 0 && a.opts.protocol == ProtocolText {
			span.SetAttributes(semconv.GenAIRequestStopSequences(a.opts.stops...))
		}
		if a.opts.spanContent {
			span.SetAttributes(semconv.GenAIInputMessagesKey.String(a.messagesJSON(a.inputMessages(c.msgs))))
		}
	}
	g, err := call(ctx)
	if !span.IsRecording() {
		return g, err
	}
	if err != nil {
		a.failed(span, errorType(err), err)
		return g, err
	}
	if g.model != "" {
		span.SetAttributes(semconv.GenAIResponseModel(g.model))
	}
	if finish := finishReason(g); finish != "" {
		span.SetAttributes(semconv.GenAIResponseFinishReasons(finish))
	}
	if g.usage.PromptTokens > 0 || g.usage.CompletionTokens > 0 {
		span.SetAttributes(semconv.GenAIUsageInputTokens(g.usage.PromptTokens), semconv.GenAIUsageOutputTokens(g.usage.CompletionTokens))
	}
	if g.cut {
		span.SetAttributes(attrCut.Bool(true))
	}
	if a.opts.spanContent {
		span.SetAttributes(semconv.GenAIOutputMessagesKey.String(a.messagesJSON([]message{a.outputMessage(g)})))
	}
	return g, nil
}

// finishReason is why the reply of g ended as the conventions name it
// ("stop", "length", "tool_calls", "content_filter"), else in the
// server's word, or "" when the server did not say.
func finishReason(g generation) string {
	if g.finish != model.FinishUnknown {
		return string(g.finish)
	}
	return g.finishWord
}

// retrying says on the latest attempt's span that the call is made again
// after wait, for reason, the attempt having failed with err (nil when
// it did not fail, but is made again all the same), and ends the span.
func (c *chatSpans) retrying(reason model.RetryReason, err error, wait time.Duration) {
	if c == nil || c.span == nil {
		return
	}
	attrs := []attribute.KeyValue{attrRetryWait.Float64(wait.Seconds()), attrRetryWhy.String(string(reason))}
	if err != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errorType(err)), attrReason.String(c.a.redact(model.Brief(err))))
	} else {
		attrs = append(attrs, attrReason.String(reason.Words()))
	}
	c.span.AddEvent("react_agent.retry", trace.WithAttributes(attrs...))
	c.end()
}

// parsed says on the last attempt's span what the parser found wrong
// with the reply, if anything.
func (c *chatSpans) parsed(reply *Reply) {
	if c == nil || c.span == nil || reply == nil || reply.Err == nil || !c.span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{semconv.ErrorTypeKey.String(parseErrorType(reply.Err))}
	if c.a.opts.spanContent {
		attrs = append(attrs, attrMessage.String(c.a.redact(reply.Err.Error())))
	}
	c.span.AddEvent("react_agent.parse_error", trace.WithAttributes(attrs...))
}

// end ends the latest attempt's span, if it is still open.
func (c *chatSpans) end() {
	if c != nil && c.span != nil {
		c.span.End()
		c.span = nil
	}
}

// startTool starts the execute_tool span of call, a call of the reply's.
func (a *Agent) startTool(ctx context.Context, call *ToolCall, reply *Reply) (context.Context, trace.Span) {
	if !traced(ctx) {
		return ctx, noop.Span{}
	}
	ctx, span := a.tracer.Start(ctx, "execute_tool "+call.Tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(call.Tool)))
	if !span.IsRecording() {
		return ctx, span
	}
	id := reply.callID
	if id == "" {
		id = fmt.Sprintf("call_%d", reply.Iteration) // as the native transcript names it
	}
	span.SetAttributes(semconv.GenAIToolCallID(id), attrIteration.Int(call.Iteration))
	typ := "function"
	if t, ok := a.reg.Get(call.Tool); ok {
		if s, served := t.(tools.Served); served {
			// A tool run on a server of its own (MCP's), for the agent.
			typ = "extension"
			span.SetAttributes(attrToolServer.String(s.Server()), attribute.String("mcp.method.name", "tools/call"))
		}
	}
	span.SetAttributes(semconv.GenAIToolTypeKey.String(typ))
	if a.opts.spanContent {
		span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(a.valueJSON(call.Args)))
	}
	return ctx, span
}

// endTool ends the execute_tool span with the observation, which failed
// when denied is true or obs.Err is set.
func (a *Agent) endTool(span trace.Span, obs Observation, denied bool) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	switch {
	case denied:
		a.failed(span, "denied", obs.Err)
	case obs.Err != nil:
		a.failed(span, toolErrorType(obs.Err), obs.Err)
	case a.opts.spanContent:
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(truncate(obs.Text)))
	}
}

// errorType is the error.type of a run's or a model call's error: a
// few words that name its kind, as the conventions ask, or the status
// code of the server's answer.
func errorType(err error) string {
	var me *model.Error
	kinds := []struct {
		err error
		typ string
	}{
		{context.Canceled, "cancelled"},
		{context.DeadlineExceeded, "timeout"},
		{ErrRepeatedParseError, "repeated_parse_error"},
		{ErrTokenLimit, "token_limit"},
		{ErrNoAnswer, "no_answer"},
		{ErrPromptTooLarge, "prompt_too_large"},
		{ErrToolsRefused, "tools_refused"},
		{model.ErrTimeout, "timeout"},
		{model.ErrIdle, "timeout"},
		{model.ErrContextFull, "context_full"},
		{model.ErrContextOverflow, "context_overflow"},
		{model.ErrRepeatLimit, "repeat_limit"},
		{model.ErrIncomplete, "incomplete"},
		{model.ErrReplyTooLarge, "reply_too_large"},
		{model.ErrNoModel, "no_model"},
		{model.ErrMalformed, "malformed"},
		{model.ErrDiverged, "diverged"},
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.typ
		}
	}
	var ne *net.OpError
	switch {
	case errors.As(err, &me) && me.StatusCode > 0:
		return fmt.Sprint(me.StatusCode)
	case errors.As(err, &ne):
		return "unreachable"
	}
	return "_OTHER"
}

// toolErrorType is the error.type of a tool call's error.
func toolErrorType(err error) string {
	kinds := []struct {
		err error
		typ string
	}{
		{tools.ErrUnknownTool, "unknown_tool"},
		{tools.ErrInvalidArgs, "invalid_arguments"},
		{tools.ErrTimeout, "timeout"},
		{tools.ErrNotConfirmed, "denied"},
		{tools.ErrBlockedAddress, "blocked_address"},
		{context.Canceled, "cancelled"},
		{context.DeadlineExceeded, "timeout"},
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.typ
		}
	}
	return "tool_error"
}

// parseErrorType names what the parser found wrong with a reply.
func parseErrorType(err error) string {
	kinds := []struct {
		err error
		typ string
	}{
		{parser.ErrTruncated, "truncated"},
		{parser.ErrEmpty, "empty"},
		{parser.ErrNoAction, "no_action"},
		{parser.ErrNoToolName, "no_tool_name"},
		{parser.ErrNoActionInput, "no_action_input"},
		{parser.ErrEmptyAnswer, "empty_answer"},
		{parser.ErrNotAnAnswer, "not_an_answer"},
		{tools.ErrUnknownTool, "unknown_tool"},
		{tools.ErrInvalidArgs, "invalid_arguments"},
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.typ
		}
	}
	return "_OTHER"
}

// message is a message of the conventions' gen_ai.input.messages and
// gen_ai.output.messages.
type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// part is a part of a message: text, reasoning, a tool call, a tool's
// response, or an image (without its bytes).
type part struct {
	Type     string `json:"type"`
	Content  string `json:"content,omitempty"`
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Args     any    `json:"arguments,omitempty"`
	Response string `json:"response,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
	Modality string `json:"modality,omitempty"`
}

// text is a text part of s, redacted and bounded.
func (a *Agent) text(s string) part { return part{Type: "text", Content: truncate(a.redact(s))} }

// inputMessages are the messages of a model call as the conventions
// write them.
func (a *Agent) inputMessages(msgs []llms.MessageContent) []message {
	out := make([]message, 0, len(msgs))
	for _, m := range msgs {
		role := map[llms.ChatMessageType]string{llms.ChatMessageTypeSystem: "system", llms.ChatMessageTypeHuman: "user",
			llms.ChatMessageTypeAI: "assistant", llms.ChatMessageTypeTool: "tool"}[m.Role]
		if role == "" {
			role = string(m.Role)
		}
		msg := message{Role: role, Parts: []part{}}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				msg.Parts = append(msg.Parts, a.text(p.Text))
			case llms.BinaryContent:
				msg.Parts = append(msg.Parts, part{Type: "blob", MIMEType: p.MIMEType, Modality: "image"})
			case llms.ToolCall:
				tc := part{Type: "tool_call", ID: p.ID}
				if p.FunctionCall != nil {
					tc.Name, tc.Args = p.FunctionCall.Name, a.redactArgs(p.FunctionCall.Arguments)
				}
				msg.Parts = append(msg.Parts, tc)
			case llms.ToolCallResponse:
				msg.Parts = append(msg.Parts, part{Type: "tool_call_response", ID: p.ToolCallID, Response: truncate(a.redact(p.Content))})
			}
		}
		out = append(out, msg)
	}
	return out
}

// outputMessage is the reply of a model call as the conventions write
// it.
func (a *Agent) outputMessage(g generation) message {
	msg := message{Role: "assistant", Parts: []part{}, FinishReason: finishReason(g)}
	if g.reasoning != "" {
		msg.Parts = append(msg.Parts, part{Type: "reasoning", Content: truncate(a.redact(g.reasoning))})
	}
	if g.text != "" {
		msg.Parts = append(msg.Parts, a.text(g.text))
	}
	for _, c := range g.calls {
		if c.FunctionCall != nil {
			msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: c.ID, Name: c.FunctionCall.Name, Args: a.redactArgs(c.FunctionCall.Arguments)})
		}
	}
	return msg
}

// redactArgs returns the arguments of a tool call, written as JSON, as a
// value with its secrets removed; as redacted text when they are no JSON.
func (a *Agent) redactArgs(args string) any {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return truncate(a.redact(args))
	}
	return a.opts.redactor.Value(v)
}

// messagesJSON writes msgs as the conventions' JSON.
func (a *Agent) messagesJSON(msgs []message) string {
	b, err := json.Marshal(msgs)
	if err != nil {
		return "[]"
	}
	return string(b)
}

// valueJSON writes the tool arguments v as JSON, with their secrets
// removed.
func (a *Agent) valueJSON(v map[string]any) string {
	b, err := json.Marshal(a.opts.redactor.Value(v))
	if err != nil {
		return "{}"
	}
	return truncate(string(b))
}

// truncate cuts s to maxPartBytes, at a character's start, saying so.
func truncate(s string) string {
	if len(s) <= maxPartBytes {
		return s
	}
	i := maxPartBytes
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + fmt.Sprintf("… [%d bytes more]", len(s)-i)
}
