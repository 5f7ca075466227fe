package agent

import (
	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/redact"

	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/react-agent/react-agent/prompt"
)

// Option configures an Agent.
type Option func(*options)

type options struct {
	maxIterations   int
	timeout         time.Duration
	grace           time.Duration
	callTimeout     time.Duration
	retries         int
	backoffInitial  time.Duration
	backoffMax      time.Duration
	template        *prompt.Template
	fallback        *prompt.Template
	system          string
	hooks           hookList
	events          []func(event.Event)
	onToken         func(string)
	stops           []string
	contextWindow   int
	maxParseRepeats int
	protocol        Protocol
	constrain       Constrain
	images          []Image
	redactor        *redact.Redactor
	tracerProvider  trace.TracerProvider
	spanContent     bool
	name            string
}

func defaultOptions() options {
	return options{
		maxIterations:   10,
		grace:           -1, // a fifth of the timeout
		retries:         3,
		backoffInitial:  500 * time.Millisecond,
		backoffMax:      10 * time.Second,
		template:        prompt.English(),
		stops:           DefaultStopSequences(),
		maxParseRepeats: 3,
		protocol:        ProtocolText,
		name:            defaultName,
	}
}

// DefaultStopSequences returns the stop sequences sent on every model call,
// the prompt's: the start of an observation line, which the model must not
// write itself (see prompt.StopSequences).
func DefaultStopSequences() []string {
	return prompt.StopSequences()
}

// WithMaxIterations bounds the number of model calls (default 10). When
// the limit is reached, one more call asks the model for its best final
// answer, and the result is marked forced.
func WithMaxIterations(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxIterations = n
		}
	}
}

// WithTimeout bounds the whole run, the forced final answer included
// (default none). The loop stops when only the grace period (see
// WithGracePeriod) is left, and one more call, within it, asks the model
// for its best final answer.
func WithTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

// WithGracePeriod sets the part of the timeout kept for the call that asks
// for a final answer when the time is up (default a fifth of the timeout,
// at most 30s; never more than half of it). Zero skips that call.
func WithGracePeriod(d time.Duration) Option {
	return func(o *options) { o.grace = max(d, 0) }
}

// reserve returns the part of the timeout kept for the forced answer.
func (o options) reserve() time.Duration {
	if o.grace < 0 {
		return min(o.timeout/5, 30*time.Second)
	}
	return min(o.grace, o.timeout/2)
}

// WithCallTimeout bounds each attempt of a model call (default none). An
// attempt that times out is retried like any transient failure.
func WithCallTimeout(d time.Duration) Option {
	return func(o *options) { o.callTimeout = d }
}

// WithRetries sets how many times a model call that failed transiently
// (connection refused, timeout, HTTP 429 or 5xx) is retried (default 3),
// and the first and the longest wait between attempts (default 500ms and
// 10s); the waits grow exponentially with jitter, or are what the
// server's Retry-After asks, up to a minute. A call the model says to make
// again at once (its model.Error's Retry: a parameter or a constraint the
// server refused, now left out; a larger window; a new connection) is made
// again besides, at most four times. Each call made again is an
// event.Retry.
func WithRetries(n int, initial, max time.Duration) Option {
	return func(o *options) {
		o.retries = max0(n)
		if initial > 0 {
			o.backoffInitial = initial
		}
		if max > 0 {
			o.backoffMax = max
		}
	}
}

// WithTemplate sets the prompt template (default prompt.English()).
func WithTemplate(t *prompt.Template) Option {
	return func(o *options) {
		if t != nil {
			o.template = t
		}
	}
}

// WithFallbackTemplate gives the text protocol a second template, smaller
// than the first, for a model whose context window the first does not fit
// (a small model on a small window, say): when the server finds the first
// prompt of a run, before any step, longer than its window, the run goes
// on with t, and so does every run of the agent after it. A notice whose
// Err matches ErrFallbackTemplate says so.
func WithFallbackTemplate(t *prompt.Template) Option {
	return func(o *options) { o.fallback = t }
}

// WithSystem appends extra context to the system part of the prompt, as
// a product's business context would be.
func WithSystem(text string) Option {
	return func(o *options) { o.system = text }
}

// WithHooks adds hooks, called in the order given.
func WithHooks(hs ...Hooks) Option {
	return func(o *options) {
		for _, h := range hs {
			if h != nil {
				o.hooks = append(o.hooks, h)
			}
		}
	}
}

// WithEvents adds a function that receives every [event.Event] of a run,
// in order, on the goroutine that runs the loop. A trace.Trace (package
// agent/trace) shows the run on a terminal (pass its Event method);
// [event.JSONLines] writes it as JSON.
func WithEvents(fn func(event.Event)) Option {
	return func(o *options) {
		if fn != nil {
			o.events = append(o.events, fn)
		}
	}
}

// WithStreaming asks the model to stream and passes its text to fn as it
// arrives; a trace.Trace's Token method shows it. When the text already
// holds a complete action followed by an "Observation:" the model made up,
// the agent cancels the generation there, and fn never receives what it
// cut: the line still streaming (at most its last 256 bytes) is held back
// until it is known not to be where the reply is cut. Reasoning that the
// server sends apart from the reply comes first, as it arrives, between
// <think> and </think>, as reasoning models write it in their text. The
// warning that the server refused the stop sequences comes before the
// first piece.
func WithStreaming(fn func(chunk string)) Option {
	return func(o *options) { o.onToken = fn }
}

// WithStopSequences replaces the stop sequences sent on every model call
// (default DefaultStopSequences).
func WithStopSequences(stops ...string) Option {
	return func(o *options) { o.stops = stops }
}

// WithContextWindow sets the model's context window in tokens, to warn when
// a prompt nears it. Models from model.New report theirs (Config.NumCtx
// for Ollama), so this is rarely needed.
func WithContextWindow(tokens int) Option {
	return func(o *options) { o.contextWindow = tokens }
}

// WithRedactor removes the secrets r knows, and those shaped like one
// (see redact.Text), from what the model reads of each tool call:
// its observation or its error, such as the stderr of an MCP server that
// died, holding a value of its envFile. The command line passes the
// secrets it keeps out of the log (API keys, the headers and env of MCP
// servers), so that what the log hides does not reach the model either.
// The events report the observation as the model read it.
func WithRedactor(r *redact.Redactor) Option {
	return func(o *options) { o.redactor = r }
}

// WithTracerProvider sets where the spans of the agent's runs go (see
// the package's doc): an invoke_agent span for each run, a chat span for
// each attempt of a model call and an execute_tool span for each tool
// call, named and attributed as the OpenTelemetry semantic conventions
// for generative AI say. The default is the global provider,
// otel.GetTracerProvider(), which makes no spans until a program sets
// one; a run whose context holds a span (a service's request) is its
// child.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) {
		if tp != nil {
			o.tracerProvider = tp
		}
	}
}

// WithSpanContent puts what the conventions call content into the
// spans: the question and the answer, the messages of each model call
// and its reply, and each tool call's arguments and observation, through
// the agent's redactor (see WithRedactor). It is off by default: spans
// then say what happened, how long it took and how many tokens it cost,
// never what was written.
func WithSpanContent(on bool) Option {
	return func(o *options) { o.spanContent = on }
}

// WithName names the agent in its spans (gen_ai.agent.name), for a
// program that runs several; the default is "react-agent".
func WithName(name string) Option {
	return func(o *options) {
		if name != "" {
			o.name = name
		}
	}
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}
