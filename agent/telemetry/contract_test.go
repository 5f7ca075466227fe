package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// The contract of the exporter: the spans it sends decode, with the
// types generated from opentelemetry-proto, to the request that
// OpenTelemetry's own OTLP/HTTP exporter sends of the same spans.

// bodies is a collector that keeps the bodies it is sent, unzipped.
type bodies struct {
	*httptest.Server
	mu  sync.Mutex
	got [][]byte
}

func newBodies(t *testing.T) *bodies {
	c := &bodies{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "not protobuf", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.got = append(c.got, b)
		c.mu.Unlock()
	}))
	t.Cleanup(c.Close)
	return c
}

// last returns the last request the collector got, decoded.
func (c *bodies) last(t *testing.T) *coltracepb.ExportTraceServiceRequest {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.got) == 0 {
		t.Fatal("the collector got nothing")
	}
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(c.got[len(c.got)-1], req); err != nil {
		t.Fatalf("the request does not decode: %v", err)
	}
	return req
}

// official is OpenTelemetry's OTLP/HTTP exporter, sending to url.
func official(t *testing.T, url string, opts ...otlptracehttp.Option) sdktrace.SpanExporter {
	t.Helper()
	exp, err := otlptracehttp.New(context.Background(), append([]otlptracehttp.Option{otlptracehttp.WithEndpointURL(url)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exp.Shutdown(context.Background()) })
	return exp
}

// ours is the package's exporter, sending to url.
func ours(url string, gzip bool) *exporter {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return newExporter(url, map[string]string{"api-key": "k"}, gzip, 10*time.Second, client)
}

// sortResources puts the resource spans of req in an order of their
// own: the official exporter groups them in a map.
func sortResources(req *coltracepb.ExportTraceServiceRequest) {
	key := func(rs *tracepb.ResourceSpans) string {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(rs.Resource)
		return string(b) + "\x00" + rs.SchemaUrl
	}
	slices.SortFunc(req.ResourceSpans, func(a, b *tracepb.ResourceSpans) int { return strings.Compare(key(a), key(b)) })
}

// everyKind is an attribute of each type the attribute package has,
// with their empty, extreme and huge values.
func everyKind() []attribute.KeyValue {
	huge := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	return []attribute.KeyValue{
		attribute.String("string", "text"),
		attribute.String("string.empty", ""),
		attribute.String("string.huge", huge),
		attribute.String("string.unicode", "ünïcødé ✓ 𝄞"),
		attribute.Bool("bool.true", true),
		attribute.Bool("bool.false", false),
		attribute.Int64("int", 42),
		attribute.Int64("int.zero", 0),
		attribute.Int64("int.negative", -1),
		attribute.Int64("int.min", math.MinInt64),
		attribute.Int64("int.max", math.MaxInt64),
		attribute.Float64("float", 0.25),
		attribute.Float64("float.zero", 0),
		attribute.Float64("float.negative.zero", math.Copysign(0, -1)),
		attribute.Float64("float.inf", math.Inf(1)),
		attribute.Float64("float.max", math.MaxFloat64),
		attribute.Float64("float.smallest", math.SmallestNonzeroFloat64),
		attribute.StringSlice("strings", []string{"a", "", huge[:1000]}),
		attribute.StringSlice("strings.empty", []string{}),
		attribute.BoolSlice("bools", []bool{true, false}),
		attribute.BoolSlice("bools.empty", nil),
		attribute.Int64Slice("ints", []int64{0, -5, math.MaxInt64}),
		attribute.Int64Slice("ints.empty", []int64{}),
		attribute.Float64Slice("floats", []float64{0, -1.5, math.Inf(-1)}),
		attribute.Float64Slice("floats.empty", nil),
		attribute.ByteSlice("bytes", []byte{0, 1, 0xff}),
		attribute.ByteSlice("bytes.empty", []byte{}),
		attribute.Slice("slice", attribute.StringValue("s"), attribute.IntValue(1), attribute.SliceValue(attribute.BoolValue(true)), attribute.Value{}),
		attribute.Slice("slice.empty"),
		attribute.Map("map", attribute.String("k", "v"), attribute.Map("inner", attribute.Float64("f", 1)), attribute.Int64Slice("i", []int64{1})),
		attribute.Map("map.empty"),
		{Key: "empty"},
		{Key: ""},
	}
}

// contractSpans are spans that use every field of OTLP's Span, under
// two resources and three scopes.
func contractSpans() []sdktrace.ReadOnlySpan {
	ts, _ := trace.ParseTraceState("vendor=value,other=x")
	ctx := func(tid, sid byte, flags trace.TraceFlags, remote bool) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: [16]byte{tid, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, SpanID: [8]byte{sid, 1, 2, 3, 4, 5, 6, 7},
			TraceFlags: flags, TraceState: ts, Remote: remote,
		})
	}
	resA := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.41.0", append(everyKind(), attribute.String("service.name", "a"))...)
	resB := resource.NewSchemaless(attribute.String("service.name", "b"))
	scope := instrumentation.Scope{Name: "github.com/react-agent/react-agent/agent", Version: "v1.2.3",
		SchemaURL: "https://opentelemetry.io/schemas/1.41.0", Attributes: attribute.NewSet(attribute.String("scope.attr", "x"), attribute.Int64("n", 1))}
	other := instrumentation.Scope{Name: "other"}
	start := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	stubs := []tracetest.SpanStub{
		{
			Name: "invoke_agent react-agent", SpanContext: ctx(1, 1, trace.FlagsSampled, false), Parent: ctx(1, 9, trace.FlagsSampled, true),
			SpanKind: trace.SpanKindInternal, StartTime: start, EndTime: start.Add(time.Second), Attributes: everyKind(),
			Events: []sdktrace.Event{
				{Name: "react_agent.retry", Time: start.Add(time.Millisecond), Attributes: everyKind(), DroppedAttributeCount: 3},
				{Name: "", Time: time.Time{}},
			},
			Links: []sdktrace.Link{
				{SpanContext: ctx(2, 2, trace.FlagsSampled, true), Attributes: []attribute.KeyValue{attribute.String("link", "l")}, DroppedAttributeCount: 1},
				{SpanContext: ctx(3, 3, 0, false)},
			},
			Status:            sdktrace.Status{Code: codes.Error, Description: "it failed: ünïcødé"},
			DroppedAttributes: 7, DroppedEvents: 8, DroppedLinks: 9,
			Resource: resA, InstrumentationScope: scope,
		},
		{Name: "chat toy", SpanContext: ctx(1, 2, trace.FlagsSampled, false), Parent: ctx(1, 1, trace.FlagsSampled, false),
			SpanKind: trace.SpanKindClient, StartTime: start, EndTime: start, Status: sdktrace.Status{Code: codes.Ok},
			DroppedAttributes: math.MaxInt32, Resource: resA, InstrumentationScope: scope},
		{Name: "server", SpanContext: ctx(4, 1, 0, false), SpanKind: trace.SpanKindServer, Resource: resA, InstrumentationScope: other},
		{Name: "producer", SpanContext: ctx(4, 2, 0, false), SpanKind: trace.SpanKindProducer, Resource: resB, InstrumentationScope: scope},
		{Name: "consumer", SpanContext: ctx(4, 3, 0, false), SpanKind: trace.SpanKindConsumer, Resource: resB},
		{Name: "", SpanKind: trace.SpanKindUnspecified, Resource: resB},
		{Name: "execute_tool calculator", SpanContext: ctx(1, 3, trace.FlagsSampled, false), Parent: ctx(1, 1, trace.FlagsSampled, false),
			SpanKind: trace.SpanKindInternal, StartTime: start, EndTime: start.Add(time.Hour), Resource: resA, InstrumentationScope: scope},
	}
	spans := make([]sdktrace.ReadOnlySpan, len(stubs))
	for i, s := range stubs {
		spans[i] = s.Snapshot()
	}
	return spans
}

// TestTheExporterSendsWhatOpenTelemetrysOwnSends exports the same spans
// through the package's exporter and OpenTelemetry's OTLP/HTTP exporter,
// plain and gzipped, and finds the requests equal, but for the trace
// state of links, which trace.proto holds and the official exporter
// (v1.47.0) leaves out.
func TestTheExporterSendsWhatOpenTelemetrysOwnSends(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		name := "plain"
		if compressed {
			name = "gzip"
		}
		t.Run(name, func(t *testing.T) {
			theirs, mine := newBodies(t), newBodies(t)
			opts := []otlptracehttp.Option{}
			if compressed {
				opts = append(opts, otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
			}
			spans := contractSpans()
			if err := official(t, theirs.URL+"/v1/traces", opts...).ExportSpans(context.Background(), spans); err != nil {
				t.Fatal(err)
			}
			if err := ours(mine.URL+"/v1/traces", compressed).ExportSpans(context.Background(), spans); err != nil {
				t.Fatal(err)
			}
			want, got := theirs.last(t), mine.last(t)
			sortResources(want)
			sortResources(got)
			for _, rs := range got.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						for _, l := range s.Links {
							if l.TraceState != "vendor=value,other=x" {
								t.Errorf("a link of %q has the trace state %q", s.Name, l.TraceState)
							}
							l.TraceState = ""
						}
					}
				}
			}
			if !proto.Equal(want, got) {
				t.Errorf("the requests differ:\n%s", diffRequests(want, got))
			}
			if n := len(got.ResourceSpans); n != 2 {
				t.Errorf("%d resources, want 2", n)
			}
		})
	}
}

// diffRequests says where two requests first differ, span by span.
func diffRequests(want, got *coltracepb.ExportTraceServiceRequest) string {
	var b strings.Builder
	if len(want.ResourceSpans) != len(got.ResourceSpans) {
		return "the numbers of resources differ"
	}
	for i := range want.ResourceSpans {
		w, g := want.ResourceSpans[i], got.ResourceSpans[i]
		if !proto.Equal(w.Resource, g.Resource) || w.SchemaUrl != g.SchemaUrl {
			b.WriteString("resource " + g.Resource.String()[:min(200, len(g.Resource.String()))] + "\n")
		}
		if len(w.ScopeSpans) != len(g.ScopeSpans) {
			b.WriteString("the numbers of scopes differ\n")
			continue
		}
		for j := range w.ScopeSpans {
			ws, gs := w.ScopeSpans[j], g.ScopeSpans[j]
			if !proto.Equal(ws.Scope, gs.Scope) || ws.SchemaUrl != gs.SchemaUrl {
				b.WriteString("scope: want " + ws.Scope.String() + ", got " + gs.Scope.String() + "\n")
			}
			for k := range min(len(ws.Spans), len(gs.Spans)) {
				if !proto.Equal(ws.Spans[k], gs.Spans[k]) {
					wt, gt := ws.Spans[k].String(), gs.Spans[k].String()
					at := 0
					for at < min(len(wt), len(gt)) && wt[at] == gt[at] {
						at++
					}
					b.WriteString("span " + gs.Spans[k].Name + ": want …" + wt[max(0, at-100):min(len(wt), at+100)] + "…\n got …" + gt[max(0, at-100):min(len(gt), at+100)] + "…\n")
				}
			}
		}
	}
	return b.String()
}

// TestTextThatIsNotUTF8IsSentWithReplacementCharacters: OpenTelemetry's
// exporter refuses the whole batch when a string holds bytes that are not
// UTF-8, as protobuf's strings must be; the package's sends it, with
// each such byte as U+FFFD, so that the rest of the run's spans are not
// lost.
func TestTextThatIsNotUTF8IsSentWithReplacementCharacters(t *testing.T) {
	bad := "ok \xff\xfe end \xc3"
	stub := tracetest.SpanStub{Name: "chat " + bad, Attributes: []attribute.KeyValue{attribute.String("k"+bad, bad),
		attribute.StringSlice("s", []string{bad})}, Status: sdktrace.Status{Code: codes.Error, Description: bad},
		Resource: resource.NewSchemaless(attribute.String("r", bad))}
	spans := []sdktrace.ReadOnlySpan{stub.Snapshot()}
	theirs, mine := newBodies(t), newBodies(t)
	if err := official(t, theirs.URL+"/v1/traces").ExportSpans(context.Background(), spans); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("the official exporter: %v; it refused invalid UTF-8 when this test was written", err)
	}
	if err := ours(mine.URL+"/v1/traces", false).ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	want := "ok \uFFFD\uFFFD end \uFFFD"
	s := mine.last(t).ResourceSpans[0].ScopeSpans[0].Spans[0]
	got := []string{s.Name, s.Attributes[0].Key, s.Attributes[0].Value.GetStringValue(),
		s.Attributes[1].Value.GetArrayValue().Values[0].GetStringValue(), s.Status.Message}
	if !slices.Equal(got, []string{"chat " + want, "k" + want, want, want, want}) {
		t.Errorf("sent %q, want each invalid byte as U+FFFD", got)
	}
}

// TestMessagesOfEveryLengthAreFramed: a nested message's length takes
// one to four bytes; the message after it is read whole each time.
func TestMessagesOfEveryLengthAreFramed(t *testing.T) {
	for _, n := range []int{0, 1, 0x7e, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000} {
		b := appendMessage([]byte{0xaa}, 1, func(b []byte) []byte { return append(b, bytes.Repeat([]byte{'x'}, n)...) })
		b = appendString(b, 2, "after")
		f, rest, err := nextField(b[1:])
		if err != nil || f.num != 1 || len(f.bytes) != n || (n > 0 && f.bytes[n-1] != 'x') {
			t.Fatalf("a message of %d bytes reads back as %d bytes (%v)", n, len(f.bytes), err)
		}
		if g, _, err := nextField(rest); err != nil || string(g.bytes) != "after" {
			t.Errorf("after a message of %d bytes: %q, %v", n, g.bytes, err)
		}
	}
}
