package telemetry

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The exporter attacked as a hostile or broken collector would: answers
// that are huge, broken, endless in their waits, or odd.

// oneSpan is a batch of one span.
func oneSpan(attrs ...attribute.KeyValue) []sdktrace.ReadOnlySpan {
	return []sdktrace.ReadOnlySpan{tracetest.SpanStub{Name: "invoke_agent react-agent", Attributes: attrs}.Snapshot()}
}

// answering is a collector that answers each request as answer says, and
// counts them.
func answering(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		answer(int(n.Add(1)), w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// rpcStatus is a google.rpc.Status of code and message, as a collector
// writes its error.
func rpcStatus(code int, message string) []byte {
	b := protowire.AppendTag(nil, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(code))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendString(b, message)
}

// partial is an ExportTraceServiceResponse of a partial success.
func partial(rejected int64, message string) []byte {
	b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: rejected, ErrorMessage: message}})
	return b
}

// TestCollectorsAnswersAreReadForWhatTheySay: each answer of a collector
// is an outcome, in a line that says what the collector said.
func TestCollectorsAnswersAreReadForWhatTheySay(t *testing.T) {
	protobuf := func(status int, body []byte) func(int, http.ResponseWriter, *http.Request) {
		return func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(status)
			w.Write(body)
		}
	}
	tests := []struct {
		name     string
		answer   func(int, http.ResponseWriter, *http.Request)
		want     string // "" for no error
		requests int32
	}{
		{"an empty 200", func(int, http.ResponseWriter, *http.Request) {}, "", 1},
		{"a 200 of an empty response", protobuf(200, nil), "", 1},
		{"a partial success", protobuf(200, partial(2, "spans too old")), "the collector rejected 2 of the spans: spans too old", 1},
		{"a partial success in JSON", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"partialSuccess":{"rejectedSpans":"3","errorMessage":"no"}}`)
		}, "the collector rejected 3 of the spans: no", 1},
		{"a warning", protobuf(200, partial(0, "slow down")), "the collector took the spans and said: slow down", 1},
		{"a 200 that is no OTLP", protobuf(200, []byte{0xff, 0xff}), "the collector's answer is not OTLP", 1},
		{"a web page", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><title>Jaeger UI</title>")
		}, "the collector answered with a web page, not OTLP: is it the collector's OTLP/HTTP address, its port 4318", 1},
		{"a 400 with a status", protobuf(400, rpcStatus(3, "bad span\x1b[31m")), `the collector answered 400 Bad Request: bad span\x1b[31m`, 1},
		{"a 404 in text", func(_ int, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "404 page not found\n\nmore", http.StatusNotFound)
		}, "the collector answered 404 Not Found: 404 page not found more", 1},
		{"a 413", func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(413) }, "the collector answered 413 Request Entity Too Large", 1},
		{"a 503, then a 200", func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(503)
			}
		}, "", 2},
		{"a 502 and a 504, then a 200", func(n int, w http.ResponseWriter, _ *http.Request) {
			if n < 3 {
				w.WriteHeader(500 + 2*n)
			}
		}, "", 3},
		{"a 429 for ever", func(n int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
		}, "the collector answered 429 Too Many Requests (", 0},
		{"a 429 that asks for an endless wait", func(n int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "18446744074")
			w.WriteHeader(429)
		}, "the collector answered 429 Too Many Requests, and asked for a wait (Retry-After: 18446744074) longer than the time the spans have", 1},
		{"a 503 that asks for a wait past the time", func(n int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
			w.WriteHeader(503)
		}, "the collector answered 503 Service Unavailable, and asked for a wait (Retry-After: ", 1},
		{"a redirect", func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/v1/traces", http.StatusPermanentRedirect)
		}, "the collector redirected the spans to https://elsewhere.example/v1/traces (308 Permanent Redirect); they were not sent there", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := answering(t, tt.answer)
			e := ours(srv.URL, false)
			e.timeout = 2 * time.Second
			start := time.Now()
			err := e.ExportSpans(context.Background(), oneSpan())
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("ExportSpans: %v; want %q", err, tt.want)
			}
			if tt.requests == 0 { // as many as the time allows
				if got := n.Load(); got < 2 || got > maxAttempts {
					t.Errorf("%d requests, want 2 to %d", got, maxAttempts)
				}
			} else if n.Load() != tt.requests {
				t.Errorf("%d requests, want %d", n.Load(), tt.requests)
			}
			if took := time.Since(start); took > e.timeout+500*time.Millisecond {
				t.Errorf("it took %s", took)
			}
		})
	}
}

// TestACollectorThatAnswersAGibibyteIsReadNoFurtherThanTheBound: a 200
// that goes on for 1 GiB is cut at maxAnswer, and the exporter says so.
func TestACollectorThatAnswersAGibibyteIsReadNoFurtherThanTheBound(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Header().Set("Content-Length", fmt.Sprint(1<<30))
		chunk := make([]byte, 64<<10)
		for sent.Load() < 1<<30 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	start := time.Now()
	err := ours(srv.URL, false).ExportSpans(context.Background(), oneSpan())
	if err == nil || !strings.Contains(err.Error(), "more than 64 KiB, which no OTLP collector does") {
		t.Errorf("ExportSpans: %v; want an error that says the answer is too long", err)
	}
	srv.CloseClientConnections()
	took := time.Since(start)
	if took > 2*time.Second {
		t.Errorf("it took %s", took)
	}
	t.Logf("the collector wrote %d KiB before the exporter hung up, in %s", sent.Load()>>10, took.Round(time.Millisecond))
}

// hijacked is a collector that writes raw, then closes the connection.
func hijacked(t *testing.T, raw string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		buf.WriteString(raw)
		buf.Flush()
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestACollectorThatHangsUpIsAnErrorWithinTheTime: a collector that
// closes the connection in the middle of its answer's body, or before
// any answer, costs the batch at most its time, and says so.
func TestACollectorThatHangsUpIsAnErrorWithinTheTime(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"mid-body", "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 100\r\n\r\n\x0a\x02", "the collector's answer broke off: unexpected EOF"},
		{"mid-headers", "HTTP/1.1 200 OK\r\nContent-Ty", "transport connection broken"},
		{"before answering", "", "EOF"},
		{"in HTTP/2, as a gRPC port", "\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x05\x00\x00@\x00",
			"the collector answered in HTTP/2 without TLS, as an OTLP/gRPC port (4317) does: name the collector's OTLP/HTTP port, 4318"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ours(hijacked(t, tt.raw).URL, false)
			e.timeout = time.Second
			start := time.Now()
			err := e.ExportSpans(context.Background(), oneSpan())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ExportSpans: %v; want %q", err, tt.want)
			}
			if took := time.Since(start); took > 1500*time.Millisecond {
				t.Errorf("it took %s, past the batch's time of %s", took, e.timeout)
			}
		})
	}
}

// TestACollectorThatNeverAnswersCostsTheBatchItsTime: a collector that
// reads the request and never answers costs the batch its time, and
// Shutdown ends a batch under way at once.
func TestACollectorThatNeverAnswersCostsTheBatchItsTime(t *testing.T) {
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hold)
	e := ours(srv.URL, false)
	e.timeout = 300 * time.Millisecond
	start := time.Now()
	if err := e.ExportSpans(context.Background(), oneSpan()); err == nil {
		t.Error("a batch nobody answered was sent")
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the batch took %s, past its time of %s", took, e.timeout)
	}

	e.timeout = time.Minute
	done := make(chan error)
	go func() { done <- e.ExportSpans(context.Background(), oneSpan()) }()
	time.Sleep(100 * time.Millisecond)
	start = time.Now()
	e.Shutdown(context.Background())
	select {
	case err := <-done:
		if err == nil {
			t.Error("the batch under way at Shutdown was sent")
		}
	case <-time.After(time.Second):
		t.Fatal("Shutdown did not end the batch under way")
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("Shutdown took %s", took)
	}
	if err := e.ExportSpans(context.Background(), oneSpan()); err != errStopped {
		t.Errorf("a batch after Shutdown: %v", err)
	}
}

// TestBatchesSentAtOnceAllArrive: batches exported from many goroutines at
// once each reach the collector whole.
func TestBatchesSentAtOnceAllArrive(t *testing.T) {
	c := newBodies(t)
	e := ours(c.URL, true)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				if err := e.ExportSpans(context.Background(), oneSpan(attribute.Int("g", g), attribute.Int("i", i), attribute.String("pad", strings.Repeat("x", 1000*i)))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	for _, b := range c.got {
		req := &coltracepb.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(b, req); err != nil {
			t.Fatal(err)
		}
		attrs := req.ResourceSpans[0].ScopeSpans[0].Spans[0].Attributes
		seen[fmt.Sprint(attrs[0].Value.GetIntValue(), attrs[1].Value.GetIntValue(), len(attrs[2].Value.GetStringValue()))] = true
	}
	if len(seen) != 80 {
		t.Errorf("the collector got %d different batches of 80", len(seen))
	}
}

// TestRetryAfterIsReadAsSecondsOrADate: the waits a collector asks for,
// however large.
func TestRetryAfterIsReadAsSecondsOrADate(t *testing.T) {
	tests := []struct {
		value    string
		min, max time.Duration
	}{
		{"0", 0, 0},
		{"3", 3 * time.Second, 3 * time.Second},
		{" 7 ", 7 * time.Second, 7 * time.Second},
		{"18446744074", 1<<63 - 1, 1<<63 - 1},
		{"99999999999999999999999", 1<<63 - 1, 1<<63 - 1},
		{"-1", 0, 0},
		{"soon", 0, 0},
		{time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 59 * time.Minute, time.Hour},
		{"Wed, 21 Oct 2015 07:28:00 GMT", 0, 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.value); got < tt.min || got > tt.max {
			t.Errorf("Retry-After: %s is a wait of %s, want %s to %s", tt.value, got, tt.min, tt.max)
		}
	}
}

// TestTheHeadersGoWithEachBatch: the headers of the environment, the
// content's type and encoding, and the exporter's name.
func TestTheHeadersGoWithEachBatch(t *testing.T) {
	var got http.Header
	srv, _ := answering(t, func(_ int, _ http.ResponseWriter, r *http.Request) { got = r.Header })
	if err := ours(srv.URL, true).ExportSpans(context.Background(), oneSpan()); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Api-Key": "k", "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip", "User-Agent": userAgent} {
		if got.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, got.Get(k), v)
		}
	}
}

// TestAServerThatSpeaksFirstIsReadAsItsAnswer: a port of HTTP/2 without
// TLS, as an OTLP/gRPC port is, writes its SETTINGS frame as soon as it
// accepts a connection; each time, the exporter says what it is, and Go's
// client logs nothing of an unsolicited answer.
func TestAServerThatSpeaksFirstIsReadAsItsAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				// As grpc-go's server: its SETTINGS, then, when what it
				// reads is no HTTP/2 preface, a hang-up.
				conn.Write([]byte("\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x05\x00\x00@\x00"))
				conn.Read(make([]byte, 24))
			}()
		}
	}()
	var logged strings.Builder
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	client, err := httpClient(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	e := newExporter("http://"+ln.Addr().String()+"/v1/traces", nil, false, 2*time.Second, client)
	for range 300 {
		err := e.ExportSpans(context.Background(), oneSpan())
		if err == nil || !strings.HasPrefix(err.Error(), "the collector answered in HTTP/2 without TLS, as an OTLP/gRPC port (4317) does") {
			t.Fatalf("ExportSpans: %v; want the error of a gRPC port", err)
		}
	}
	if logged.Len() > 0 {
		t.Errorf("Go's client logged:\n%s", logged.String())
	}
}
