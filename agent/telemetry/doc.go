// Package telemetry sets up the OpenTelemetry traces of a command line
// from the environment, as every OpenTelemetry program reads it: on when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names
// a collector, off otherwise, and off whatever they say with
// OTEL_SDK_DISABLED=true. When on, spans are batched and sent to the
// collector over OTLP/HTTP in protobuf (gzipped with
// OTEL_EXPORTER_OTLP_COMPRESSION=gzip), with the resource of
// OTEL_SERVICE_NAME (react-agent by default) and OTEL_RESOURCE_ATTRIBUTES,
// and the headers of OTEL_EXPORTER_OTLP_HEADERS; what is still queued at
// the end is sent within [ShutdownTimeout]. When off, it starts nothing:
// no exporter, no goroutine, no connection.
//
// The exporter is the package's own, which writes OTLP's protobuf
// messages field by field: OpenTelemetry's OTLP exporters link gRPC and
// the generated protobuf types, whose initialisation a program pays for
// at every start, traced or not. gRPC is not spoken; OTLP/HTTP is what
// every collector and Jaeger take, on port 4318.
//
//	tr, err := telemetry.Setup(ctx, os.Getenv)
//	...
//	defer tr.Shutdown(context.Background())
//	a := agent.New(m, reg, agent.WithTracerProvider(tr.Provider), agent.WithSpanContent(tr.Content))
package telemetry
