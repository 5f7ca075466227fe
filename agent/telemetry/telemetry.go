package telemetry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The environment variables Setup reads, beside OTEL_EXPORTER_OTLP_TIMEOUT,
// _COMPRESSION, _CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY (and
// their _TRACES_ forms). The SDK reads those of the batching (OTEL_BSP_*)
// and the sampler (OTEL_TRACES_SAMPLER).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL" // http/protobuf, the one Setup sends
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvServiceName    = "OTEL_SERVICE_NAME"
	EnvResource       = "OTEL_RESOURCE_ATTRIBUTES"
	EnvDisabled       = "OTEL_SDK_DISABLED"
	// EnvContent set to true puts prompts, replies, tool arguments and
	// observations into the spans (see agent.WithSpanContent).
	EnvContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
)

// DefaultServiceName is the service.name of the spans unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES give another.
const DefaultServiceName = "react-agent"

// ShutdownTimeout bounds the time Shutdown waits for the spans still
// queued to reach the collector: a collector that is down or slow costs a
// run no more.
const ShutdownTimeout = time.Second

// stopTime is the part of ShutdownTimeout kept to end a batch that the
// collector has not taken.
const stopTime = 50 * time.Millisecond

// ErrSetting is matched by the errors of Setup: a variable it cannot use.
var ErrSetting = errors.New("an OpenTelemetry setting cannot be used")

// settingError is an error of Setup, which says what is wrong and what to
// write instead, and matches ErrSetting.
type settingError string

func (e settingError) Error() string { return string(e) }

func (e settingError) Is(target error) bool { return target == ErrSetting }

// settingErrorf formats a settingError.
func settingErrorf(format string, args ...any) error {
	return settingError(fmt.Sprintf(format, args...))
}

// Traces is where the spans of a program go, as the environment says.
type Traces struct {
	// Provider makes the spans: one that sends them to the collector, or
	// one that makes none when tracing is off.
	Provider trace.TracerProvider
	// Content reports whether the spans are to hold what the conventions
	// call content: prompts, replies, tool arguments and observations.
	Content bool
	// Endpoint is the collector's URL the spans are sent to, without a
	// password; "" when tracing is off.
	Endpoint string

	sdk       *sdktrace.TracerProvider // nil when off
	exporter  *exporter
	reporting *reporting
}

// On reports whether spans are sent anywhere.
func (t *Traces) On() bool { return t.sdk != nil }

// Setup returns where the spans go, as the environment getenv reads (the
// process's, os.Getenv, or one with a config file's settings beside it)
// says. When no collector is named, or OTEL_SDK_DISABLED is true, tracing
// is off and Setup starts nothing. Its errors match ErrSetting and name the
// variable to change, without its value, which may hold a key.
func Setup(ctx context.Context, getenv func(string) string) (*Traces, error) {
	t := &Traces{Provider: noop.NewTracerProvider(), Content: strings.EqualFold(strings.TrimSpace(getenv(EnvContent)), "true")}
	if strings.EqualFold(strings.TrimSpace(getenv(EnvDisabled)), "true") {
		return t, nil
	}
	endpoint, err := endpointOf(getenv)
	if endpoint == nil || err != nil {
		return t, err
	}
	if err := protocolOf(getenv); err != nil {
		return t, err
	}
	headers, err := headersOf(getenv)
	if err != nil {
		return t, err
	}
	gzip, err := compressionOf(getenv)
	if err != nil {
		return t, err
	}
	timeout, err := timeoutOf(getenv)
	if err != nil {
		return t, err
	}
	hc, err := httpClient(getenv)
	if err != nil {
		return t, err
	}
	res, err := resourceOf(ctx, getenv)
	if err != nil {
		return t, err
	}
	t.exporter = newExporter(endpoint.String(), headers, gzip, timeout, hc)
	t.reporting = &reporting{SpanExporter: t.exporter}
	t.sdk = sdktrace.NewTracerProvider(sdktrace.WithBatcher(t.reporting), sdktrace.WithResource(res))
	t.Provider, t.Endpoint = t.sdk, endpoint.Redacted()
	return t, nil
}

// Shutdown sends the spans still queued and stops, within
// ShutdownTimeout. It returns the first error of sending spans, during
// the run or now, saying where they were to go.
func (t *Traces) Shutdown(ctx context.Context) error {
	if t == nil || t.sdk == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
	defer cancel()
	// The batches have the second but its last moments, in which the one
	// still under way, if the time ran out, ends and says why: nothing
	// goes on sending once Shutdown has returned.
	sending, stop := context.WithTimeout(ctx, ShutdownTimeout-stopTime)
	defer stop()
	err := t.sdk.Shutdown(sending)
	t.exporter.Shutdown(ctx)
	first := t.reporting.first()
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("the collector did not take them within %s", ShutdownTimeout)
		if first != nil && !errors.Is(first, context.Canceled) && !errors.Is(first, context.DeadlineExceeded) && !errors.Is(first, errStopped) {
			err = fmt.Errorf("%w: %w", err, first)
		}
	} else if err == nil {
		err = first
	}
	var w *warning
	if errors.As(err, &w) {
		return fmt.Errorf("the collector at %s took the traces and said: %s", t.Endpoint, w.message)
	}
	if err != nil {
		return fmt.Errorf("the traces were not all sent to %s: %w", t.Endpoint, err)
	}
	return nil
}

// reporting is an exporter that keeps its first error for Shutdown to
// report, instead of handing each to OpenTelemetry's global error handler,
// which logs them all as they come.
type reporting struct {
	sdktrace.SpanExporter
	mu  sync.Mutex
	err error
}

func (r *reporting) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := r.SpanExporter.ExportSpans(ctx, spans); err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
	return nil
}

func (r *reporting) first() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// endpointOf returns the URL to send spans to: the traces endpoint as it
// is, or the endpoint of every signal with /v1/traces after its path, as
// the OTLP exporter specification says; nil when neither is set.
func endpointOf(getenv func(string) string) (*url.URL, error) {
	name, raw := EnvTracesEndpoint, strings.TrimSpace(getenv(EnvTracesEndpoint))
	if raw == "" {
		name, raw = EnvEndpoint, strings.TrimSpace(getenv(EnvEndpoint))
	}
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, settingErrorf("%s is not a collector's URL: write it as http://host:4318, the collector's OTLP/HTTP port", name)
	}
	if name == EnvEndpoint {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u, nil
}

// protocolOf checks that the protocol asked for is OTLP over HTTP with
// protobuf, the default and the one Setup sends.
func protocolOf(getenv func(string) string) error {
	name, p := setting(getenv, EnvProtocol)
	switch p {
	case "", "http/protobuf":
		return nil
	case "grpc":
		return settingErrorf("%s=grpc: react-agent sends OTLP over HTTP, not gRPC; name the collector's OTLP/HTTP port, 4318, as in http://127.0.0.1:4318, and set %s=http/protobuf or leave it unset", name, name)
	}
	return settingErrorf("%s=%q: react-agent sends OTLP over HTTP with protobuf; set it to http/protobuf or leave it unset", name, p)
}

// compressionOf reports whether the batches are to be compressed with
// gzip.
func compressionOf(getenv func(string) string) (bool, error) {
	switch name, v := setting(getenv, "OTEL_EXPORTER_OTLP_COMPRESSION"); v {
	case "", "none":
		return false, nil
	case "gzip":
		return true, nil
	default:
		return false, settingErrorf("%s=%q: the compression is gzip or none", name, v)
	}
}

// timeoutOf returns the time one batch has to reach the collector: that
// of OTEL_EXPORTER_OTLP_TIMEOUT, 10 seconds by default.
func timeoutOf(getenv func(string) string) (time.Duration, error) {
	name, v := setting(getenv, "OTEL_EXPORTER_OTLP_TIMEOUT")
	if v == "" {
		return 10 * time.Second, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms <= 0 {
		return 0, settingErrorf("%s=%q is not a number of milliseconds, as in 10000", name, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// setting returns the name and value of the variable of traces that
// stands for name, OTEL_EXPORTER_OTLP_TRACES_X for OTEL_EXPORTER_OTLP_X,
// if it is set, or else name's own.
func setting(getenv func(string) string, name string) (string, string) {
	traces := strings.Replace(name, "OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_TRACES_", 1)
	if v := strings.TrimSpace(getenv(traces)); v != "" {
		return traces, v
	}
	return name, strings.TrimSpace(getenv(name))
}

// httpClient returns the client the spans go over: with the proxy of the
// environment and the certificates of OTEL_EXPORTER_OTLP_CERTIFICATE,
// _CLIENT_CERTIFICATE and _CLIENT_KEY (or their _TRACES_ forms), and one
// that follows no redirect: the headers, which hold keys, would go along.
func httpClient(getenv func(string) string) (*http.Client, error) {
	setting := func(name string) (string, string) { return setting(getenv, name) }
	tlsConfig := &tls.Config{}
	if name, path := setting("OTEL_EXPORTER_OTLP_CERTIFICATE"); path != "" {
		pem, err := os.ReadFile(path)
		pool := x509.NewCertPool()
		if err != nil || !pool.AppendCertsFromPEM(pem) {
			return nil, settingErrorf("%s=%s is not a file of PEM certificates", name, path)
		}
		tlsConfig.RootCAs = pool
	}
	certName, cert := setting("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE")
	keyName, key := setting("OTEL_EXPORTER_OTLP_CLIENT_KEY")
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, settingErrorf("%s=%s and %s=%s are not a certificate and its key: %v", certName, cert, keyName, key, err)
		}
		tlsConfig.Certificates = []tls.Certificate{pair}
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	dial := transport.DialContext
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &speaksSecond{Conn: conn, written: make(chan struct{})}, nil
	}
	return &http.Client{Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}

// speaksSecond is a connection that is not read before it is first
// written to. A server that speaks first, as one of HTTP/2 without TLS
// does (an OTLP/gRPC port), is then read as the answer to the request;
// else Go's client, reading it before the request is sent, may take it for
// an unsolicited answer, say so on the standard logger, and fail with an
// error that says nothing.
type speaksSecond struct {
	net.Conn
	once    sync.Once
	written chan struct{} // closed at the first write, or at Close
}

func (c *speaksSecond) Write(b []byte) (int, error) {
	defer c.once.Do(func() { close(c.written) })
	return c.Conn.Write(b)
}

func (c *speaksSecond) Read(b []byte) (int, error) {
	<-c.written
	return c.Conn.Read(b)
}

func (c *speaksSecond) Close() error {
	c.once.Do(func() { close(c.written) })
	return c.Conn.Close()
}

// headersOf returns the headers to send with the spans: those of every
// signal, and those of traces over them.
func headersOf(getenv func(string) string) (map[string]string, error) {
	headers := map[string]string{}
	for _, name := range []string{EnvHeaders, EnvTracesHeaders} {
		valid := true
		err := pairs(getenv(name), func(k, v string) {
			valid = valid && headerName(k) && headerValue(v)
			headers[k] = v
		})
		if err != nil || !valid {
			return nil, settingErrorf("%s is not a list of key=value pairs, as in api-key=secret,team=agents, each key a header's name and each value, percent-encoded, one line", name)
		}
	}
	return headers, nil
}

// headerName reports whether k can name an HTTP header: a token of
// RFC 9110.
func headerName(k string) bool {
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return k != ""
}

// headerValue reports whether v can be an HTTP header's value: no
// control character but the tab.
func headerValue(v string) bool {
	for _, c := range []byte(v) {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// resourceOf describes the program: its service name and the attributes
// of OTEL_RESOURCE_ATTRIBUTES, with the SDK's own.
func resourceOf(ctx context.Context, getenv func(string) string) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{semconv.ServiceName(DefaultServiceName)}
	if err := pairs(getenv(EnvResource), func(k, v string) { attrs = append(attrs, attribute.String(k, v)) }); err != nil {
		return nil, settingErrorf("%s is not a list of key=value pairs, as in deployment.environment.name=test", EnvResource)
	}
	if name := strings.TrimSpace(getenv(EnvServiceName)); name != "" {
		attrs = append(attrs, semconv.ServiceName(name))
	}
	// Of the same key, the last of attrs wins.
	return resource.New(ctx, resource.WithTelemetrySDK(), resource.WithAttributes(attrs...))
}

// pairs calls fn with each key and value of a list written as OpenTelemetry
// writes it: key=value pairs separated by commas, with their values
// percent-encoded.
func pairs(list string, fn func(key, value string)) error {
	if strings.TrimSpace(list) == "" {
		return nil
	}
	for _, p := range strings.Split(list, ",") {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return errors.New("not key=value")
		}
		value, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return err
		}
		fn(k, value)
	}
	return nil
}
