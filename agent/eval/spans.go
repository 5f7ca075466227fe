package eval

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The attributes of a run's span.
const (
	attrQuestion = attribute.Key("react_agent.eval.question")
	attrModel    = attribute.Key("react_agent.eval.model")
	attrProtocol = attribute.Key("react_agent.eval.protocol")
	attrCorrect  = attribute.Key("react_agent.eval.correct")
)

// startSpan starts the span of a run of q against t, a new trace's root.
func startSpan(ctx context.Context, tp trace.TracerProvider, t Target, q Question) (context.Context, trace.Span) {
	return tp.Tracer("github.com/react-agent/react-agent/agent/eval").Start(ctx, "eval "+t.Protocol,
		trace.WithNewRoot(), trace.WithAttributes(attrQuestion.String(q.ID), attrModel.String(withoutURL(t.Model)), attrProtocol.String(t.Protocol)))
}

// endSpan ends the span of a run with its outcome.
func endSpan(span trace.Span, o Outcome) {
	span.SetAttributes(attrCorrect.Bool(o.Correct), attribute.Int("react_agent.eval.steps", o.Steps))
	if o.Err != "" {
		span.SetStatus(codes.Error, "the run failed")
	}
	span.End()
}
