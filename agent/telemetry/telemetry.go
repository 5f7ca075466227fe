package telemetry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The environment variables Setup reads, beside OTEL_EXPORTER_OTLP_TIMEOUT,
// _CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY (and their _TRACES_
// forms). The OTLP exporter reads the others of its own
// (OTEL_EXPORTER_OTLP_COMPRESSION…), and the SDK those of the batching
// (OTEL_BSP_*) and the sampler (OTEL_TRACES_SAMPLER).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL" // http/protobuf (the default) or grpc
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

	sdk      *sdktrace.TracerProvider // nil when off
	exporter *reporting
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
	grpc, err := overGRPC(getenv)
	if err != nil {
		return t, err
	}
	endpoint, err := endpointOf(getenv, grpc)
	if endpoint == nil || err != nil {
		return t, err
	}
	headers, err := headersOf(getenv)
	if err != nil {
		return t, err
	}
	res, err := resourceOf(ctx, getenv)
	if err != nil {
		return t, err
	}
	var exp sdktrace.SpanExporter
	if grpc {
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(endpoint.String()), otlptracegrpc.WithHeaders(headers))
	} else {
		var hc *http.Client
		if hc, err = httpClient(getenv); err != nil {
			return t, err
		}
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint.String()), otlptracehttp.WithHeaders(headers),
			otlptracehttp.WithHTTPClient(hc))
	}
	if err != nil {
		return t, fmt.Errorf("%w: the OTLP exporter: %w", ErrSetting, err)
	}
	t.exporter = &reporting{SpanExporter: exp}
	t.sdk = sdktrace.NewTracerProvider(sdktrace.WithBatcher(t.exporter), sdktrace.WithResource(res))
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
	err := t.sdk.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("the collector did not take them within %s", ShutdownTimeout)
	}
	if err == nil {
		err = t.exporter.first()
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
// is, or the endpoint of every signal, with /v1/traces after its path
// over HTTP, as the OTLP exporter specification says; nil when neither is
// set.
func endpointOf(getenv func(string) string, grpc bool) (*url.URL, error) {
	name, raw := EnvTracesEndpoint, strings.TrimSpace(getenv(EnvTracesEndpoint))
	if raw == "" {
		name, raw = EnvEndpoint, strings.TrimSpace(getenv(EnvEndpoint))
	}
	if raw == "" {
		return nil, nil
	}
	port := "4318"
	if grpc {
		port = "4317"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, settingErrorf("%s is not a collector's URL: write it as http://host:%s, the collector's OTLP port", name, port)
	}
	if name == EnvEndpoint && !grpc {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u, nil
}

// overGRPC reports whether the spans go over gRPC rather than HTTP with
// protobuf, the default; it refuses the other protocols.
func overGRPC(getenv func(string) string) (bool, error) {
	for _, name := range []string{EnvTracesProtocol, EnvProtocol} {
		switch p := strings.TrimSpace(getenv(name)); p {
		case "":
			continue
		case "http/protobuf":
			return false, nil
		case "grpc":
			return true, nil
		default:
			return false, settingErrorf("%s=%q: react-agent sends OTLP over gRPC or over HTTP with protobuf; set it to grpc or http/protobuf", name, p)
		}
	}
	return false, nil
}

// errRedirect is the error of a collector that redirects the spans.
var errRedirect = errors.New("the collector redirected the spans elsewhere; name the address they are to go to")

// httpClient returns the client the spans go over HTTP with: as the
// exporter's own, with the proxy of the environment, the certificates of
// OTEL_EXPORTER_OTLP_CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY
// (or their _TRACES_ forms) and the time limit of
// OTEL_EXPORTER_OTLP_TIMEOUT (10 seconds by default), but one that
// follows no redirect: the headers, which hold keys, would go along.
func httpClient(getenv func(string) string) (*http.Client, error) {
	setting := func(name string) (string, string) {
		traces := strings.Replace(name, "OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_TRACES_", 1)
		if v := strings.TrimSpace(getenv(traces)); v != "" {
			return traces, v
		}
		return name, strings.TrimSpace(getenv(name))
	}
	timeout := 10 * time.Second
	if name, v := setting("OTEL_EXPORTER_OTLP_TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, settingErrorf("%s=%q is not a number of milliseconds, as in 10000", name, v)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
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
	return &http.Client{Transport: transport, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect }}, nil
}

// headersOf returns the headers to send with the spans: those of every
// signal, and those of traces over them.
func headersOf(getenv func(string) string) (map[string]string, error) {
	headers := map[string]string{}
	for _, name := range []string{EnvHeaders, EnvTracesHeaders} {
		if err := pairs(getenv(name), func(k, v string) { headers[k] = v }); err != nil {
			return nil, settingErrorf("%s is not a list of key=value pairs, as in api-key=secret,team=agents", name)
		}
	}
	return headers, nil
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
