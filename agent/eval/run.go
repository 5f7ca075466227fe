package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/react-agent/react-agent/agent/redact"
)

// The protocols a target may use: the ReAct text protocol, the same bound
// to the tools by the server (a lazy grammar, a structural tag, or the JSON
// object protocol's schema, as the server takes it), and native tool
// calling.
const (
	Text        = "text"
	Constrained = "constrained"
	Native      = "native"
)

// Target is one model and protocol to evaluate.
type Target struct {
	// Model is the model as the user gave it: "provider:model@base-url",
	// where the provider and the URL may be left out, and where the
	// password of the URL's user is hidden ("http://bob:***@host/v1"),
	// so that the model may be shown anywhere: in the table, in JSON, in
	// errors and in file names.
	Model string `json:"model"`
	// Protocol is "text", "constrained" or "native".
	Protocol string `json:"protocol"`
	// given is the model as the user gave it, password and all, when
	// Model hides one.
	given string
}

func (t Target) String() string { return t.Model + " " + t.Protocol }

// Given returns the model as the user gave it, with the password of its
// server's URL that Model hides: what a Runner connects with, never what
// it shows.
func (t Target) Given() string { return cmp.Or(t.given, t.Model) }

// ParseModel splits a model as the user gives it, "provider:model@url",
// into its parts. Model names hold colons too ("qwen2.5:7b"): the part
// before the first colon is the provider only when it is one of
// providers. The URL starts at the first "@" that a scheme and "://"
// follow, so that its user information may hold "@" and ":"
// ("http://bob:p@ss:w@host/v1"), and a model's name "://" (an Ollama
// model of a registry given with its scheme), but not "@http://".
func ParseModel(s string, providers []string) (provider, name, baseURL string, err error) {
	s, baseURL = splitURL(strings.TrimSpace(s))
	if p, rest, ok := strings.Cut(s, ":"); ok && slices.Contains(providers, p) {
		provider, s = p, rest
	}
	if s == "" && provider == "" {
		return "", "", "", errors.New("a model is empty: write provider:model@url, as in ollama:qwen2.5:7b or openai:gpt-4o-mini")
	}
	return provider, s, baseURL, nil
}

// splitURL splits a model as the user gives it into the model and the
// URL of its server (see ParseModel); the URL is "" when there is none.
func splitURL(s string) (modelPart, url string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '@' && startsWithScheme(s[i+1:]) {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// startsWithScheme reports whether s starts with a URL's scheme and
// "://": a letter, then letters, digits, "+", "-" or ".".
func startsWithScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.HasPrefix(s[i:], "://")
		default:
			return false
		}
	}
	return false
}

// hidePassword returns a model as the user gives it with the password of
// its server's URL hidden.
func hidePassword(s string) string {
	m, url := splitURL(s)
	if url == "" {
		return s
	}
	return m + "@" + redact.URL(url)
}

// ParseTargets returns every model with every protocol, models first,
// each model's password hidden (see Target).
func ParseTargets(models, protocols []string) ([]Target, error) {
	if len(models) == 0 {
		return nil, errors.New("no model to evaluate")
	}
	if len(protocols) == 0 {
		protocols = []string{Text}
	}
	var ts []Target
	for _, m := range models {
		for _, p := range protocols {
			switch p {
			case Text, Constrained, Native:
			default:
				return nil, fmt.Errorf("the protocol %q is not text, constrained or native", p)
			}
			t := Target{Model: hidePassword(strings.TrimSpace(m)), Protocol: p}
			if given := strings.TrimSpace(m); given != t.Model {
				t.given = given
			}
			ts = append(ts, t)
		}
	}
	return ts, nil
}

// Runner runs one question against one target and reports the run, also
// when it failed (what was done until then).
type Runner func(ctx context.Context, t Target, q Question) (Result, error)

// Result is what a Runner reports of one run of the agent.
type Result struct {
	Answer string
	// Steps is the number of steps the run took, the final answer
	// included.
	Steps int
	// ParseErrors counts the replies the parser could not read;
	// Recovered, those it read though they were not in the protocol's
	// canonical form; Rescued, native replies whose call was in the text.
	ParseErrors, Recovered, Rescued int
	// Forced is true when the answer was asked for at a limit.
	Forced     bool
	StopReason string
	TokensIn   int
	TokensOut  int
	// Replies are what the model wrote, a reply a step.
	Replies []string
}

// Options say how Run runs the questions.
type Options struct {
	// Concurrency is how many runs go at once; below 1 means 1.
	Concurrency int
	// Timeout bounds each run; zero means none.
	Timeout time.Duration
	// Progress, when set, is called after each run, one call at a time,
	// with the runs done and the runs in all.
	Progress func(done, total int, last Outcome)
	// TracerProvider, when set, makes a span of each run, the root of its
	// trace, named "eval" and the protocol, with the question, the
	// model and whether the answer was right: the runner's spans are its
	// children, so that each question asked of each model is a trace.
	TracerProvider trace.TracerProvider
}

// Outcome is one run: a question asked of a target, and how it went.
type Outcome struct {
	Target       Target        `json:"target"`
	Question     Question      `json:"question"`
	Answer       string        `json:"answer"`
	Correct      bool          `json:"correct"`
	Why          string        `json:"why,omitempty"`
	Steps        int           `json:"steps"`
	FormatErrors int           `json:"format_errors"`
	Recovered    int           `json:"recovered"`
	Rescued      int           `json:"rescued"`
	Forced       bool          `json:"forced"`
	StopReason   string        `json:"stop_reason"`
	TokensIn     int           `json:"tokens_in"`
	TokensOut    int           `json:"tokens_out"`
	Duration     time.Duration `json:"duration_ns"`
	// TimedOut reports that the run reached Options.Timeout before it
	// had an answer: a failed run (Err is set) of its own kind.
	TimedOut bool   `json:"timed_out"`
	Err      string `json:"error,omitempty"`
	// Replies are what the model wrote, a reply a step, each cut to its
	// first MaxReplyKept bytes: what the failures view shows of it.
	Replies []string `json:"replies,omitempty"`
}

// Bounds of what an Outcome keeps of a run, so that an evaluation of many
// questions keeps little of each, however long the model's replies: cut,
// a text ends in "…".
const (
	// MaxReplyKept bounds each of Outcome.Replies, in bytes.
	MaxReplyKept = 300
	// MaxAnswerKept bounds Outcome.Answer, in bytes, once it is judged.
	MaxAnswerKept = 4 << 10
	// MaxErrorKept bounds Outcome.Err and Outcome.Why, in bytes.
	MaxErrorKept = 4 << 10
)

// Run asks every question of every target, Options.Concurrency at a time,
// and reports the outcomes in order: targets as given, then questions as
// given, however the runs interleaved. A run that fails is an outcome
// with Err set, not the end of the evaluation; when ctx ends, Run starts
// no more runs and returns what finished, with ctx's error.
func Run(ctx context.Context, targets []Target, qs []Question, run Runner, opts Options) (*Report, error) {
	type job struct{ t, q int }
	total := len(targets) * len(qs)
	outcomes := make([]*Outcome, total)
	jobs := make(chan job)
	var mu sync.Mutex // guards done and Progress
	done := 0
	var wg sync.WaitGroup
	for range max(1, opts.Concurrency) {
		wg.Go(func() {
			for j := range jobs {
				o := runOne(ctx, targets[j.t], qs[j.q], run, opts)
				outcomes[j.t*len(qs)+j.q] = &o
				mu.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(done, total, o)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for t := range targets {
		for q := range qs {
			select {
			case jobs <- job{t, q}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	r := &Report{Targets: targets}
	for _, o := range outcomes {
		if o != nil {
			r.Outcomes = append(r.Outcomes, *o)
		}
	}
	return r, ctx.Err()
}

// runOne runs one question against one target and judges the answer.
func runOne(ctx context.Context, t Target, q Question, run Runner, opts Options) (o Outcome) {
	parent, timeout := ctx, opts.Timeout
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	if opts.TracerProvider != nil {
		var span trace.Span
		ctx, span = startSpan(ctx, opts.TracerProvider, t, q)
		defer func() { endSpan(span, o) }()
	}
	start := time.Now()
	res, err := run(ctx, t, q)
	o = Outcome{Target: t, Question: q, Duration: time.Since(start),
		Steps: res.Steps, FormatErrors: res.ParseErrors, Recovered: res.Recovered, Rescued: res.Rescued,
		Forced: res.Forced, StopReason: res.StopReason, TokensIn: res.TokensIn, TokensOut: res.TokensOut}
	for _, reply := range res.Replies {
		o.Replies = append(o.Replies, clip(reply, MaxReplyKept))
	}
	switch {
	case err != nil && res.Answer == "" && timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil:
		o.TimedOut = true
		o.Err = clip(err.Error(), MaxErrorKept)
		o.Why = fmt.Sprintf("the run reached the time limit of %s", timeout)
	case err != nil && res.Answer == "":
		o.Err = clip(err.Error(), MaxErrorKept)
		o.Why = clip("the run failed: "+err.Error(), MaxErrorKept)
	default:
		o.Correct, o.Why = q.Judge(res.Answer)
		o.Why = clip(o.Why, MaxErrorKept)
	}
	o.Answer = clip(res.Answer, MaxAnswerKept)
	return o
}
