package eval

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestEachRunIsATraceOfItsOwn: every question asked of every model with
// every protocol is the root span of a trace of its own, even inside the
// caller's span, named by its protocol, with the question, the model
// without its server's password, whether it was right, and the runner's
// spans beneath it.
func TestEachRunIsATraceOfItsOwn(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	targets, err := ParseTargets([]string{"good", "poor", "bad@http://user:hunter2@127.0.0.1:1"}, []string{"text", "native"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context, tg Target, q Question) (Result, error) {
		_, span := tp.Tracer("runner").Start(ctx, "invoke_agent")
		defer span.End()
		return knownRates(ctx, Target{Model: tg.Model}, q)
	}
	ctx, outer := tp.Tracer("caller").Start(context.Background(), "eval command")
	if _, err := Run(ctx, targets, arithmetic, run, Options{Concurrency: 3, TracerProvider: tp}); err != nil {
		t.Fatal(err)
	}
	outer.End()
	roots := map[string]sdktrace.ReadOnlySpan{}
	traces := map[string]bool{}
	for _, s := range rec.Ended() {
		if s.Name() == "eval text" || s.Name() == "eval native" {
			if s.Parent().IsValid() {
				t.Errorf("%s has a parent", s.Name())
			}
			roots[s.SpanContext().SpanID().String()] = s
			traces[s.SpanContext().TraceID().String()] = true
		}
	}
	if len(roots) != len(targets)*len(arithmetic) || len(traces) != len(roots) {
		t.Fatalf("%d run spans in %d traces, want %d in as many", len(roots), len(traces), len(targets)*len(arithmetic))
	}
	for _, s := range rec.Ended() {
		if s.Name() != "invoke_agent" {
			continue
		}
		root, ok := roots[s.Parent().SpanID().String()]
		if !ok || root.SpanContext().TraceID() != s.SpanContext().TraceID() {
			t.Errorf("a runner's span is not under its run's")
		}
	}
	right, failed := 0, 0
	for _, s := range roots {
		a := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes() {
			a[kv.Key] = kv.Value
		}
		if a["react_agent.eval.question"].AsString() == "" || a["react_agent.eval.protocol"].AsString() == "" {
			t.Errorf("a run's span says %v", s.Attributes())
		}
		if m := a["react_agent.eval.model"].AsString(); m != "good" && m != "poor" && m != "bad" {
			t.Errorf("a run's model is %q", m)
		}
		if a["react_agent.eval.correct"].AsBool() {
			right++
		}
		if s.Status().Code == codes.Error {
			failed++
		}
	}
	if right != 8 || failed != 8 {
		t.Errorf("%d runs right and %d failed, want 8 and 8", right, failed)
	}
}
