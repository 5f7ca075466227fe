package telemetry

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The messages of OTLP's traces, as opentelemetry-proto v1.10.0 numbers
// their fields (collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
// resource/v1/resource.proto, common/v1/common.proto).
const (
	requestResourceSpans = 1 // ExportTraceServiceRequest.resource_spans

	resourceSpansResource   = 1
	resourceSpansScopeSpans = 2
	resourceSpansSchemaURL  = 3

	resourceAttributes = 1

	scopeSpansScope     = 1
	scopeSpansSpans     = 2
	scopeSpansSchemaURL = 3

	scopeName       = 1
	scopeVersion    = 2
	scopeAttributes = 3

	spanTraceID                = 1
	spanSpanID                 = 2
	spanTraceState             = 3
	spanParentSpanID           = 4
	spanName                   = 5
	spanKind                   = 6
	spanStartTime              = 7
	spanEndTime                = 8
	spanAttributes             = 9
	spanDroppedAttributesCount = 10
	spanEvents                 = 11
	spanDroppedEventsCount     = 12
	spanLinks                  = 13
	spanDroppedLinksCount      = 14
	spanStatus                 = 15
	spanFlags                  = 16

	eventTime                   = 1
	eventName                   = 2
	eventAttributes             = 3
	eventDroppedAttributesCount = 4

	linkTraceID                = 1
	linkSpanID                 = 2
	linkTraceState             = 3
	linkAttributes             = 4
	linkDroppedAttributesCount = 5
	linkFlags                  = 6

	statusMessage = 2
	statusCode    = 3

	keyValueKey   = 1
	keyValueValue = 2

	anyString = 1
	anyBool   = 2
	anyInt    = 3
	anyDouble = 4
	anyArray  = 5
	anyKVList = 6
	anyBytes  = 7

	arrayValues  = 1 // ArrayValue.values
	kvListValues = 1 // KeyValueList.values

	// SpanFlags: the low 8 bits are the W3C trace flags; these say that
	// whether the parent is remote is known, and that it is.
	flagsHasIsRemote = 0x100
	flagsIsRemote    = 0x200

	// ExportTraceServiceResponse.partial_success, and its fields.
	responsePartialSuccess = 1
	partialRejectedSpans   = 1
	partialErrorMessage    = 2

	// google.rpc.Status.message, the text of a collector's error.
	rpcStatusMessage = 2
)

// appendRequest appends the ExportTraceServiceRequest that carries spans:
// grouped by resource, then by instrumentation scope, each in the order
// of its first span.
func appendRequest(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct {
		resource attribute.Distinct
		scope    instrumentation.Scope
	}
	type scopeSpans struct {
		scope instrumentation.Scope
		spans []sdktrace.ReadOnlySpan
	}
	type resourceSpans struct {
		resource *resource.Resource
		scopes   []*scopeSpans
	}
	var resources []*resourceSpans
	byResource := map[attribute.Distinct]*resourceSpans{}
	byScope := map[scopeKey]*scopeSpans{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		k := scopeKey{res.Equivalent(), s.InstrumentationScope()}
		ss := byScope[k]
		if ss == nil {
			ss = &scopeSpans{scope: k.scope}
			byScope[k] = ss
			rs := byResource[k.resource]
			if rs == nil {
				rs = &resourceSpans{resource: res}
				byResource[k.resource] = rs
				resources = append(resources, rs)
			}
			rs.scopes = append(rs.scopes, ss)
		}
		ss.spans = append(ss.spans, s)
	}
	for _, rs := range resources {
		b = appendMessage(b, requestResourceSpans, func(b []byte) []byte {
			if rs.resource != nil {
				b = appendMessage(b, resourceSpansResource, func(b []byte) []byte {
					iter := rs.resource.Iter()
					for iter.Next() {
						b = appendKeyValue(b, resourceAttributes, iter.Attribute())
					}
					return b
				})
			}
			for _, ss := range rs.scopes {
				b = appendMessage(b, resourceSpansScopeSpans, func(b []byte) []byte {
					if ss.scope != (instrumentation.Scope{}) {
						b = appendMessage(b, scopeSpansScope, func(b []byte) []byte {
							b = appendString(b, scopeName, ss.scope.Name)
							b = appendString(b, scopeVersion, ss.scope.Version)
							iter := ss.scope.Attributes.Iter()
							for iter.Next() {
								b = appendKeyValue(b, scopeAttributes, iter.Attribute())
							}
							return b
						})
					}
					for _, s := range ss.spans {
						b = appendMessage(b, scopeSpansSpans, func(b []byte) []byte { return appendSpan(b, s) })
					}
					return appendString(b, scopeSpansSchemaURL, ss.scope.SchemaURL)
				})
			}
			return appendString(b, resourceSpansSchemaURL, rs.resource.SchemaURL())
		})
	}
	return b
}

// appendSpan appends the fields of a Span.
func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, spanTraceID, tid[:])
	b = appendBytes(b, spanSpanID, sid[:])
	b = appendString(b, spanTraceState, sc.TraceState().String())
	if parent := s.Parent(); parent.SpanID().IsValid() {
		pid := parent.SpanID()
		b = appendBytes(b, spanParentSpanID, pid[:])
	}
	b = appendString(b, spanName, s.Name())
	b = appendVarint(b, spanKind, uint64(kindOf(s.SpanKind())))
	b = appendFixed64(b, spanStartTime, unixNano(s.StartTime().UnixNano()))
	b = appendFixed64(b, spanEndTime, unixNano(s.EndTime().UnixNano()))
	for _, kv := range s.Attributes() {
		b = appendKeyValue(b, spanAttributes, kv)
	}
	b = appendVarint(b, spanDroppedAttributesCount, count(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = appendMessage(b, spanEvents, func(b []byte) []byte {
			b = appendFixed64(b, eventTime, unixNano(e.Time.UnixNano()))
			b = appendString(b, eventName, e.Name)
			for _, kv := range e.Attributes {
				b = appendKeyValue(b, eventAttributes, kv)
			}
			return appendVarint(b, eventDroppedAttributesCount, count(e.DroppedAttributeCount))
		})
	}
	b = appendVarint(b, spanDroppedEventsCount, count(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = appendMessage(b, spanLinks, func(b []byte) []byte {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = appendBytes(b, linkTraceID, tid[:])
			b = appendBytes(b, linkSpanID, sid[:])
			b = appendString(b, linkTraceState, l.SpanContext.TraceState().String())
			for _, kv := range l.Attributes {
				b = appendKeyValue(b, linkAttributes, kv)
			}
			b = appendVarint(b, linkDroppedAttributesCount, count(l.DroppedAttributeCount))
			return appendFixed32(b, linkFlags, flagsOf(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = appendVarint(b, spanDroppedLinksCount, count(s.DroppedLinks()))
	status := s.Status()
	b = appendMessage(b, spanStatus, func(b []byte) []byte {
		b = appendString(b, statusMessage, status.Description)
		return appendVarint(b, statusCode, uint64(statusCodeOf(status.Code)))
	})
	return appendFixed32(b, spanFlags, flagsOf(sc.TraceFlags(), s.Parent()))
}

// appendKeyValue appends field num as the KeyValue kv.
func appendKeyValue(b []byte, num int, kv attribute.KeyValue) []byte {
	return appendMessage(b, num, func(b []byte) []byte {
		b = appendString(b, keyValueKey, string(kv.Key))
		return appendMessage(b, keyValueValue, func(b []byte) []byte { return appendAnyValue(b, kv.Value) })
	})
}

// appendAnyValue appends the fields of the AnyValue v: none for an empty
// value, one member of its oneof otherwise.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.EMPTY:
		return b
	case attribute.BOOL:
		return appendBool(b, v.AsBool())
	case attribute.INT64:
		return appendInt(b, v.AsInt64())
	case attribute.FLOAT64:
		return appendDouble(b, v.AsFloat64())
	case attribute.STRING:
		return appendText(b, v.AsString())
	case attribute.BYTESLICE:
		return appendOneofBytes(b, anyBytes, v.AsByteSlice())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), appendBool)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), appendInt)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), appendDouble)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), appendText)
	case attribute.SLICE:
		return appendArray(b, v.AsSlice(), appendAnyValue)
	case attribute.MAP:
		return appendMessage(b, anyKVList, func(b []byte) []byte {
			for _, kv := range v.AsMap() {
				b = appendKeyValue(b, kvListValues, kv)
			}
			return b
		})
	}
	// A type of a later version of the attribute package, as the
	// OpenTelemetry exporters write it.
	return appendText(b, "INVALID")
}

// appendArray appends the ArrayValue of values, each an AnyValue that
// add appends.
func appendArray[T any](b []byte, values []T, add func([]byte, T) []byte) []byte {
	return appendMessage(b, anyArray, func(b []byte) []byte {
		for _, v := range values {
			b = appendMessage(b, arrayValues, func(b []byte) []byte { return add(b, v) })
		}
		return b
	})
}

// The members of AnyValue's oneof, as the elements of an array take them.

func appendBool(b []byte, v bool) []byte {
	if v {
		return appendOneofVarint(b, anyBool, 1)
	}
	return appendOneofVarint(b, anyBool, 0)
}

func appendInt(b []byte, v int64) []byte { return appendOneofVarint(b, anyInt, uint64(v)) }

func appendDouble(b []byte, v float64) []byte {
	return appendOneofFixed64(b, anyDouble, math.Float64bits(v))
}

func appendText(b []byte, v string) []byte { return appendOneofString(b, anyString, v) }

// kindOf is OTLP's SpanKind of k.
func kindOf(k trace.SpanKind) int {
	switch k {
	case trace.SpanKindInternal:
		return 1
	case trace.SpanKindServer:
		return 2
	case trace.SpanKindClient:
		return 3
	case trace.SpanKindProducer:
		return 4
	case trace.SpanKindConsumer:
		return 5
	}
	return 0
}

// statusCodeOf is OTLP's Status.StatusCode of c.
func statusCodeOf(c codes.Code) int {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

// flagsOf is OTLP's SpanFlags: the W3C trace flags, and whether parent,
// the span's parent or a link's span, is remote.
func flagsOf(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	flags := uint32(tf) | flagsHasIsRemote
	if parent.IsRemote() {
		flags |= flagsIsRemote
	}
	return flags
}

// unixNano is a time in nanoseconds since 1970, or 0 for one before.
func unixNano(ns int64) uint64 {
	return uint64(max(0, ns))
}

// count is a count of dropped items, as the uint32 OTLP holds it.
func count(n int) uint64 {
	return uint64(min(max(0, int64(n)), math.MaxUint32))
}

// partialSuccess reads an ExportTraceServiceResponse: the number of spans
// the collector rejected and what it said.
func partialSuccess(b []byte) (rejected int64, message string, err error) {
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return 0, "", err
		}
		if f.num != responsePartialSuccess || f.typ != wireBytes {
			continue
		}
		for p := f.bytes; len(p) > 0; {
			var g field
			if g, p, err = nextField(p); err != nil {
				return 0, "", err
			}
			switch {
			case g.num == partialRejectedSpans && g.typ == wireVarint:
				rejected = int64(g.value)
			case g.num == partialErrorMessage && g.typ == wireBytes:
				message = string(g.bytes)
			}
		}
	}
	return rejected, message, nil
}

// statusMessageOf reads the message of a google.rpc.Status, the body of
// a collector's error over OTLP/HTTP.
func statusMessageOf(b []byte) (string, error) {
	message := ""
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return "", err
		}
		if f.num == rpcStatusMessage && f.typ == wireBytes {
			message = string(f.bytes)
		}
		b = rest
	}
	return message, nil
}
