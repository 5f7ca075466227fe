package telemetry_test

import (
	"compress/gzip"
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/react-agent/react-agent/agent/telemetry"
)

// env is an environment of the variables given.
func env(vars ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	return func(k string) string { return m[k] }
}

// collector is an OTLP/HTTP collector that keeps what it is sent.
type collector struct {
	*httptest.Server
	mu       sync.Mutex
	paths    []string
	headers  []http.Header
	requests []*coltracepb.ExportTraceServiceRequest
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reader io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			reader = zr
		}
		body, _ := io.ReadAll(reader)
		req := &coltracepb.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.paths, c.headers, c.requests = append(c.paths, r.URL.Path), append(c.headers, r.Header), append(c.requests, req)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(c.Close)
	return c
}

// TestTracingIsOffWithoutACollector: with no endpoint, or with the SDK
// disabled, Setup makes a provider that makes no spans, and starts no
// goroutine.
func TestTracingIsOffWithoutACollector(t *testing.T) {
	tests := []struct {
		name string
		env  func(string) string
	}{
		{"no variable", env()},
		{"other variables only", env(telemetry.EnvServiceName, "svc", telemetry.EnvProtocol, "grpc", telemetry.EnvContent, "true")},
		{"the SDK disabled", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", telemetry.EnvDisabled, "TRUE")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			tr, err := telemetry.Setup(context.Background(), tt.env)
			if err != nil {
				t.Fatal(err)
			}
			_, span := tr.Provider.Tracer("t").Start(context.Background(), "s")
			span.End()
			if tr.On() || span.IsRecording() || tr.Endpoint != "" {
				t.Errorf("tracing is on (%q), or its span records", tr.Endpoint)
			}
			if after := runtime.NumGoroutine(); after != before {
				t.Errorf("%d goroutines before Setup, %d after", before, after)
			}
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSpansReachTheCollectorAsTheEnvironmentSays sends a span to a
// collector named each way the variables can, with their headers and
// resource.
func TestSpansReachTheCollectorAsTheEnvironmentSays(t *testing.T) {
	c := newCollector(t)
	tests := []struct {
		name, path, service string
		env                 []string
	}{
		{"the endpoint of every signal", "/v1/traces", "react-agent", []string{telemetry.EnvEndpoint, c.URL}},
		{"the endpoint of every signal with a path", "/otlp/v1/traces", "react-agent", []string{telemetry.EnvEndpoint, c.URL + "/otlp/"}},
		{"the endpoint of traces, as it is", "/custom", "react-agent",
			[]string{telemetry.EnvEndpoint, "http://127.0.0.1:1", telemetry.EnvTracesEndpoint, c.URL + "/custom"}},
		{"a service name of its own", "/v1/traces", "svc",
			[]string{telemetry.EnvEndpoint, c.URL, telemetry.EnvServiceName, "svc", telemetry.EnvProtocol, "http/protobuf"}},
		{"a service name in the resource", "/v1/traces", "from-resource",
			[]string{telemetry.EnvEndpoint, c.URL, telemetry.EnvResource, "service.name=from-resource,team=a%20b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := append(tt.env, telemetry.EnvHeaders, "api-key=s3cret%2C1,x-team=agents", telemetry.EnvContent, "true")
			tr, err := telemetry.Setup(context.Background(), env(vars...))
			if err != nil {
				t.Fatal(err)
			}
			if !tr.On() || !tr.Content {
				t.Fatalf("tracing on %v, content %v; want both", tr.On(), tr.Content)
			}
			_, span := tr.Provider.Tracer("t").Start(context.Background(), "invoke_agent")
			span.End()
			c.mu.Lock()
			n := len(c.requests)
			c.mu.Unlock()
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(c.requests) != n+1 {
				t.Fatalf("the collector got %d requests, want 1", len(c.requests)-n)
			}
			req, h := c.requests[n], c.headers[n]
			if c.paths[n] != tt.path || h.Get("api-key") != "s3cret,1" || h.Get("x-team") != "agents" ||
				h.Get("Content-Type") != "application/x-protobuf" {
				t.Errorf("the spans went to %s with the headers %v", c.paths[n], h)
			}
			res := map[string]string{}
			for _, kv := range req.ResourceSpans[0].Resource.Attributes {
				res[kv.Key] = kv.Value.GetStringValue()
			}
			if res["service.name"] != tt.service || res["telemetry.sdk.language"] != "go" {
				t.Errorf("the resource is %v, want the service %q", res, tt.service)
			}
			if name := req.ResourceSpans[0].ScopeSpans[0].Spans[0].Name; name != "invoke_agent" {
				t.Errorf("the span sent is %q", name)
			}
		})
	}
}

// TestSettingsThatCannotBeUsedSayWhichToChange: each error names the
// variable and what to write, and never a header's value.
func TestSettingsThatCannotBeUsedSayWhichToChange(t *testing.T) {
	tests := []struct {
		name string
		env  func(string) string
		want string
	}{
		{"gRPC", env(telemetry.EnvEndpoint, "http://127.0.0.1:4317", telemetry.EnvProtocol, "grpc"),
			"OTEL_EXPORTER_OTLP_PROTOCOL=grpc: react-agent sends OTLP over HTTP, not gRPC; name the collector's OTLP/HTTP port, 4318, as in http://127.0.0.1:4318, and set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or leave it unset"},
		{"gRPC for traces", env(telemetry.EnvTracesEndpoint, "http://127.0.0.1:4317", telemetry.EnvTracesProtocol, "grpc", telemetry.EnvProtocol, "http/protobuf"),
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc: react-agent sends OTLP over HTTP, not gRPC"},
		{"JSON", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", telemetry.EnvProtocol, "http/json"),
			`OTEL_EXPORTER_OTLP_PROTOCOL="http/json": react-agent sends OTLP over HTTP with protobuf; set it to http/protobuf or leave it unset`},
		{"JSON for traces", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", telemetry.EnvTracesProtocol, "http/json", telemetry.EnvProtocol, "grpc"),
			`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/json"`},
		{"a compression but gzip", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"),
			`OTEL_EXPORTER_OTLP_COMPRESSION="zstd": the compression is gzip or none`},
		{"a header on two lines", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", telemetry.EnvTracesHeaders, "api-key=sk-secret%0D%0AX-Evil: 1"),
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS is not a list"},
		{"a header of no name", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", telemetry.EnvHeaders, "api key=sk-secret"),
			"OTEL_EXPORTER_OTLP_HEADERS is not a list"},
		{"no URL", env(telemetry.EnvEndpoint, "127.0.0.1:4318"), "write it as http://host:4318"},
		{"another scheme", env(telemetry.EnvTracesEndpoint, "file:///tmp/x"), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not"},
		{"headers that are no pairs", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", telemetry.EnvHeaders, "Bearer sk-secret-value"),
			"OTEL_EXPORTER_OTLP_HEADERS is not a list"},
		{"a resource that is no pairs", env(telemetry.EnvEndpoint, "http://127.0.0.1:4318", telemetry.EnvResource, "=x"),
			"OTEL_RESOURCE_ATTRIBUTES is not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := telemetry.Setup(context.Background(), tt.env)
			if !errors.Is(err, telemetry.ErrSetting) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("Setup: %v; want an error that says %q", err, tt.want)
			}
			if tr == nil || tr.On() {
				t.Error("a setting that cannot be used leaves tracing on")
			}
		})
	}
}

// TestACollectorThatIsDownOrSlowCostsAtMostTheBound: a port nothing
// listens on, a collector that takes the connection and never answers,
// and one that is always too busy, each cost Shutdown at most
// ShutdownTimeout, and say so once.
func TestACollectorThatIsDownOrSlowCostsAtMostTheBound(t *testing.T) {
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + dead.Addr().String()
	dead.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, never read nor answered
		}
	}()
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	for name, url := range map[string]string{"down": deadURL, "silent": "http://" + silent.Addr().String(), "busy": busy.URL} {
		t.Run(name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			tr, err := telemetry.Setup(context.Background(), env(telemetry.EnvEndpoint, url))
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				_, span := tr.Provider.Tracer("t").Start(context.Background(), "s")
				span.End()
			}
			start := time.Now()
			err = tr.Shutdown(context.Background())
			took := time.Since(start)
			if took > telemetry.ShutdownTimeout+200*time.Millisecond {
				t.Errorf("Shutdown took %s, more than its bound of %s", took, telemetry.ShutdownTimeout)
			}
			if err == nil || !strings.Contains(err.Error(), "sent to "+url) {
				t.Errorf("Shutdown: %v; want an error that names the collector", err)
			}
			if name == "busy" && !strings.Contains(err.Error(), "did not take them within 1s: the collector answered 503 Service Unavailable: overloaded (") {
				t.Errorf("Shutdown: %v; want an error that says what the collector answered", err)
			}
			if name == "down" && !strings.HasSuffix(err.Error(), ": nothing listens at "+strings.TrimPrefix(url, "http://")+" (connection refused): is the collector running?") {
				t.Errorf("Shutdown: %v; want an error that says nothing listens", err)
			}
			// The batch under way ended with Shutdown: nothing goes on.
			for deadline := time.Now().Add(time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if after := runtime.NumGoroutine(); after > before {
				t.Errorf("%d goroutines before Setup, %d after Shutdown", before, after)
			}
			t.Logf("%s after %s", err, took.Round(time.Millisecond))
		})
	}
}

// TestACollectorThatRedirectsGetsNoHeaderElsewhere: the spans, and the
// headers that hold keys, do not follow a redirect; Shutdown says why
// they were not sent.
func TestACollectorThatRedirectsGetsNoHeaderElsewhere(t *testing.T) {
	reached := false
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	defer elsewhere.Close()
	// Another host than the collector's, to which Go's client would send
	// every header but Authorization and Cookie.
	target := "http://localhost:" + strings.TrimPrefix(elsewhere.URL, "http://127.0.0.1:") + "/v1/traces"
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	tr, err := telemetry.Setup(context.Background(), env(telemetry.EnvEndpoint, redirecting.URL, telemetry.EnvHeaders, "api-key=s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	_, span := tr.Provider.Tracer("t").Start(context.Background(), "s")
	span.End()
	err = tr.Shutdown(context.Background())
	if reached || err == nil || !strings.Contains(err.Error(), "redirected") {
		t.Errorf("the redirect's target was reached: %v; Shutdown: %v", reached, err)
	}
}

// TestACollectorOverTLSIsTrustedAsTheCertificateSays: a collector whose
// certificate OTEL_EXPORTER_OTLP_CERTIFICATE holds gets the spans; without
// it they are not sent.
func TestACollectorOverTLSIsTrustedAsTheCertificateSays(t *testing.T) {
	got := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got++ }))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	for _, trusted := range []bool{true, false} {
		vars := []string{telemetry.EnvEndpoint, srv.URL}
		if trusted {
			vars = append(vars, "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", path)
		}
		tr, err := telemetry.Setup(context.Background(), env(vars...))
		if err != nil {
			t.Fatal(err)
		}
		_, span := tr.Provider.Tracer("t").Start(context.Background(), "s")
		span.End()
		err = tr.Shutdown(context.Background())
		if trusted != (err == nil) || trusted != (got == 1) {
			t.Errorf("with the certificate %v: Shutdown: %v, %d requests", trusted, err, got)
		}
		got = 0
	}
	for _, vars := range [][]string{{"OTEL_EXPORTER_OTLP_CERTIFICATE", filepath.Join(t.TempDir(), "none.pem")},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s"}, {"OTEL_EXPORTER_OTLP_CLIENT_KEY", path}} {
		_, err := telemetry.Setup(context.Background(), env(append(vars, telemetry.EnvEndpoint, srv.URL)...))
		if !errors.Is(err, telemetry.ErrSetting) || !strings.Contains(err.Error(), vars[0]) {
			t.Errorf("%s=%s: %v; want an error that names it", vars[0], vars[1], err)
		}
	}
}

// TestSpansOfAMebibyteEachReachTheCollectorWhole: a run's spans, each
// with an attribute of 1 MiB, all reach the collector, gzipped or not, in
// the batches sent as the run goes.
func TestSpansOfAMebibyteEachReachTheCollectorWhole(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // milliseconds between batches, read by the SDK
	huge := strings.Repeat("observation ", 1<<20/12)
	for _, compression := range []string{"none", "gzip"} {
		t.Run(compression, func(t *testing.T) {
			c := newCollector(t)
			tr, err := telemetry.Setup(context.Background(), env(telemetry.EnvEndpoint, c.URL, "OTEL_EXPORTER_OTLP_COMPRESSION", compression))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Shutdown(context.Background())
			start := time.Now()
			for i := range 5 {
				_, span := tr.Provider.Tracer("t").Start(context.Background(), "execute_tool")
				span.SetAttributes(attribute.String("gen_ai.tool.call.result", huge), attribute.Int("i", i))
				span.End()
			}
			whole := func() int {
				c.mu.Lock()
				defer c.mu.Unlock()
				n := 0
				for _, req := range c.requests {
					for _, s := range req.ResourceSpans[0].ScopeSpans[0].Spans {
						if s.Attributes[0].Value.GetStringValue() == huge {
							n++
						}
					}
				}
				return n
			}
			for deadline := time.Now().Add(10 * time.Second); whole() < 5 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if n := whole(); n != 5 {
				t.Errorf("the collector got %d spans of 1 MiB whole, want 5", n)
			}
			t.Logf("5 spans of 1 MiB, %s, sent in %s", compression, time.Since(start).Round(time.Millisecond))
		})
	}
}
