package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/telemetry"
	"github.com/react-agent/react-agent/tools/escape"
)

// addTraceFlag adds --otlp-endpoint, the collector the traces go to, to
// fs.
func addTraceFlag(fs *pflag.FlagSet, endpoint *string) {
	fs.StringVar(endpoint, "otlp-endpoint", "", `send the runs' traces to this OpenTelemetry collector's OTLP/HTTP address, such as http://127.0.0.1:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT; see "react-agent help traces")`)
}

// startTraces sets up where the spans of the command's runs go: the
// collector of --otlp-endpoint when it is on the command line, else that
// of OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
// else that of the setting (the config file, REACT_AGENT_OTLP_ENDPOINT);
// nowhere without one. An OpenTelemetry variable that cannot be used is
// said on stderr, and the command runs without traces; an endpoint of
// --otlp-endpoint that is no URL is a usage error.
func (c *call) startTraces(endpoint string) (*telemetry.Traces, error) {
	if endpoint != "" {
		if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("--otlp-endpoint %q is not a collector's URL: write it as http://host:4318, the collector's OTLP/HTTP port", endpoint)
		}
	}
	fl := c.fs.Lookup("otlp-endpoint")
	onCommandLine := fl != nil && fl.Changed && len(fl.Annotations[sourceAnnotation]) == 0
	inEnv := c.getenv(telemetry.EnvEndpoint) != "" || c.getenv(telemetry.EnvTracesEndpoint) != ""
	getenv := c.getenv
	if endpoint != "" && (onCommandLine || !inEnv) {
		getenv = func(k string) string {
			switch k {
			case telemetry.EnvEndpoint:
				return endpoint
			case telemetry.EnvTracesEndpoint:
				return ""
			}
			return c.getenv(k)
		}
	}
	tr, err := telemetry.Setup(context.Background(), getenv)
	if err != nil {
		fmt.Fprintf(c.stderr, "react-agent: not tracing: %s\n", escape.Visible(err.Error()))
	}
	return tr, nil
}

// stopTraces sends the spans still queued, within
// telemetry.ShutdownTimeout, and says once when some could not be sent.
func (e *env) stopTraces(tr *telemetry.Traces) {
	if err := tr.Shutdown(context.Background()); err != nil {
		fmt.Fprintf(e.stderr, "react-agent: %s\n", escape.Visible(err.Error()))
	}
}

// spanOptions are the options that send an agent's spans where tr says.
func spanOptions(tr *telemetry.Traces) []agent.Option {
	if tr == nil {
		return nil
	}
	return []agent.Option{agent.WithTracerProvider(tr.Provider), agent.WithSpanContent(tr.Content)}
}
