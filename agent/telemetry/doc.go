// Package telemetry sets up the OpenTelemetry traces of a command line
// from the environment, as every OpenTelemetry program reads it: on when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names
// a collector, off otherwise, and off whatever they say with
// OTEL_SDK_DISABLED=true. When on, spans are batched and sent over OTLP
// to the collector, over HTTP with protobuf or, with
// OTEL_EXPORTER_OTLP_PROTOCOL=grpc, over gRPC, with the resource of
// OTEL_SERVICE_NAME (react-agent by default) and OTEL_RESOURCE_ATTRIBUTES,
// and the headers of OTEL_EXPORTER_OTLP_HEADERS; what is still queued at
// the end is sent within [ShutdownTimeout]. When off, it starts nothing:
// no exporter, no goroutine, no connection.
//
//	tr, err := telemetry.Setup(ctx, os.Getenv)
//	...
//	defer tr.Shutdown(context.Background())
//	a := agent.New(m, reg, agent.WithTracerProvider(tr.Provider), agent.WithSpanContent(tr.Content))
package telemetry
