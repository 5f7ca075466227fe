package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
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
	// where the provider and the URL may be left out.
	Model string `json:"model"`
	// Protocol is "text", "constrained" or "native".
	Protocol string `json:"protocol"`
}

func (t Target) String() string { return t.Model + " " + t.Protocol }

// ParseModel splits a model as the user gives it, "provider:model@url",
// into its parts. Model names hold colons too ("qwen2.5:7b"): the part
// before the first colon is the provider only when it is one of providers.
// The URL is what follows the last "@" when it starts with a scheme.
func ParseModel(s string, providers []string) (provider, name, baseURL string, err error) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "@"); i >= 0 && strings.Contains(s[i+1:], "://") {
		s, baseURL = s[:i], s[i+1:]
	}
	if p, rest, ok := strings.Cut(s, ":"); ok && slices.Contains(providers, p) {
		provider, s = p, rest
	}
	if s == "" && provider == "" {
		return "", "", "", errors.New("a model is empty: write provider:model@url, as in ollama:qwen2.5:7b or openai:gpt-4o-mini")
	}
	return provider, s, baseURL, nil
}

// ParseTargets returns every model with every protocol, models first.
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
			ts = append(ts, Target{Model: strings.TrimSpace(m), Protocol: p})
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
	Err          string        `json:"error,omitempty"`
	// Replies are what the model wrote, a reply a step.
	Replies []string `json:"replies,omitempty"`
}

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
	if opts.Timeout > 0 {
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
		Answer: res.Answer, Steps: res.Steps, FormatErrors: res.ParseErrors, Recovered: res.Recovered, Rescued: res.Rescued,
		Forced: res.Forced, StopReason: res.StopReason, TokensIn: res.TokensIn, TokensOut: res.TokensOut, Replies: res.Replies}
	if err != nil && o.Answer == "" {
		o.Err = err.Error()
		o.Why = "the run failed: " + err.Error()
		return o
	}
	o.Correct, o.Why = q.Judge(o.Answer)
	return o
}
