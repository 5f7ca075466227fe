package agent

import (
	"fmt"

	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/prompt"

	"github.com/react-agent/react-agent/agent/model"

	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/parser"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		replies    []string
		opts       []Option
		wantAnswer string
		wantStop   event.StopReason
		wantForced bool
		wantErr    error
		wantIters  int
		// wantInPrompt are strings the last prompt must hold.
		wantInPrompt []string
	}{
		{
			name:       "a direct final answer ends the run at once",
			replies:    []string{final("42")},
			wantAnswer: "42", wantStop: event.StopFinalAnswer, wantIters: 1,
		},
		{
			name:       "a tool call's observation reaches the next prompt",
			replies:    []string{action("add", `{"a": 17, "b": 25}`), final("42")},
			wantAnswer: "42", wantStop: event.StopFinalAnswer, wantIters: 2,
			wantInPrompt: []string{"Action: add\nAction Input: {\"a\":17,\"b\":25}\nObservation: 42\n"},
		},
		{
			name:       "a parse error becomes an observation and the loop goes on",
			replies:    []string{"Thought: I need to think more", final("ok")},
			wantAnswer: "ok", wantStop: event.StopFinalAnswer, wantIters: 2,
			wantInPrompt: []string{"Thought: I need to think more\nObservation: Your reply has a Thought but neither"},
		},
		{
			name:       "an unknown tool lists the available ones",
			replies:    []string{action("multiply", `{"a": 1}`), final("ok")},
			wantAnswer: "ok", wantStop: event.StopFinalAnswer, wantIters: 2,
			wantInPrompt: []string{"Observation: Error: ", "multiply", "add, echo, fail, slow"},
		},
		{
			name:       "bad arguments are explained to the model",
			replies:    []string{action("add", `{"a": 1}`), final("ok")},
			wantAnswer: "ok", wantStop: event.StopFinalAnswer,
			wantIters:    2,
			wantInPrompt: []string{"Observation: Error: add: missing argument \"b\""},
		},
		{
			name:       "a tool error becomes an observation",
			replies:    []string{action("fail", `{"input": "x"}`), final("ok")},
			wantAnswer: "ok", wantStop: event.StopFinalAnswer, wantIters: 2,
			wantInPrompt: []string{"Observation: Error: disk on fire"},
		},
		{
			name:     "the same parse error three times in a row ends the run",
			replies:  []string{"Thought: hmm", "Thought: hmm?", "Thought: hmmm"},
			wantStop: event.StopRepeatedParseError, wantErr: ErrRepeatedParseError, wantIters: 3,
		},
		{
			name:       "reaching the iteration limit asks for a forced answer",
			replies:    []string{action("echo", `{"text": "a"}`), action("echo", `{"text": "b"}`), final("best guess")},
			opts:       []Option{WithMaxIterations(2)},
			wantAnswer: "best guess", wantStop: event.StopMaxIterations, wantForced: true, wantIters: 2,
			wantInPrompt: []string{"Observation: b\n\nYou cannot use any more tools"},
		},
		{
			name:       "a forced reply in plain text is taken as the answer",
			replies:    []string{action("echo", `{"text": "a"}`), "It is probably 7."},
			opts:       []Option{WithMaxIterations(1)},
			wantAnswer: "It is probably 7.", wantStop: event.StopMaxIterations, wantForced: true, wantIters: 1,
		},
		{
			name:     "a forced reply that is another action gives no answer",
			replies:  []string{action("echo", `{"text": "a"}`)},
			opts:     []Option{WithMaxIterations(1)},
			wantStop: event.StopMaxIterations, wantErr: ErrNoAnswer, wantIters: 1,
		},
		{
			name:       "a timeout during a tool call asks for a forced answer",
			replies:    []string{action("slow", `{"input": "x"}`), final("partial")},
			opts:       []Option{WithTimeout(50 * time.Millisecond), WithGracePeriod(time.Second)},
			wantAnswer: "partial", wantStop: event.StopTimeout, wantForced: true, wantIters: 1,
		},
		{
			name:       "reasoning text is never parsed as protocol",
			replies:    []string{"<think>Maybe\nAction: fail\nAction Input: {}\nObservation: no</think>\nThought: easy\nFinal Answer: 4"},
			wantAnswer: "4", wantStop: event.StopFinalAnswer, wantIters: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := scripted(tt.replies...)
			a := New(m, registry(t), tt.opts...)
			res, err := a.Run(context.Background(), "What is 17 + 25?")
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				var repeated *RepeatedParseError
				if errors.Is(err, ErrRepeatedParseError) && (!errors.As(err, &repeated) || repeated.Times != res.Iterations || repeated.Err == nil) {
					t.Errorf("a run ended for its parse errors: want a RepeatedParseError of %d times, got %#v", res.Iterations, repeated)
				}
			} else if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Answer != tt.wantAnswer || res.StopReason != tt.wantStop || res.Forced != tt.wantForced || res.Iterations != tt.wantIters {
				t.Errorf("got answer %q, stop %s, forced %v, iterations %d; want %q, %s, %v, %d",
					res.Answer, res.StopReason, res.Forced, res.Iterations, tt.wantAnswer, tt.wantStop, tt.wantForced, tt.wantIters)
			}
			last := m.last(len(m.calls) - 1)
			for _, w := range tt.wantInPrompt {
				if !strings.Contains(last, w) {
					t.Errorf("the last prompt lacks %q:\n%s", w, last)
				}
			}
			for i, o := range m.opts {
				if len(o.StopWords) == 0 || o.StopWords[0] != "\nObservation" {
					t.Errorf("call %d was sent without the stop sequences: %q", i+1, o.StopWords)
				}
			}
		})
	}
}

func TestRunRecordsSteps(t *testing.T) {
	m := scripted("<think>add them</think>\n"+action("add", `{"a": 1, "b": 2}`), final("3"))
	res, err := New(m, registry(t)).Run(context.Background(), "1+2?")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 2 {
		t.Fatalf("got %d steps, want 2: %+v", len(res.Steps), res.Steps)
	}
	s := res.Steps[0]
	if s.Kind != parser.KindAction || s.Action != "add" || s.Observation != "3" || s.Reasoning != "add them" ||
		s.Thought != "I will use add." || s.Args["b"] != 2.0 || s.Iteration != 1 {
		t.Errorf("step 1 = %+v", s)
	}
	if f := res.Steps[1]; f.Kind != parser.KindFinal || f.Answer != "3" || f.Iteration != 2 {
		t.Errorf("step 2 = %+v", f)
	}
}

// TestPromptIsAppendOnly checks, through the loop, that each prompt starts
// with the exact bytes of the one before, so that servers reuse their
// prompt-prefix cache.
func TestPromptIsAppendOnly(t *testing.T) {
	m := scripted(action("echo", `{"text": "one"}`), "Thought: oops", action("fail", `{"input": "x"}`),
		action("nope", `{}`), action("echo", `{"text": "two"}`))
	_, _ = New(m, registry(t), WithMaxIterations(5)).Run(context.Background(), "q")
	if len(m.calls) != 6 {
		t.Fatalf("got %d calls, want 6", len(m.calls))
	}
	for i := 1; i < len(m.calls); i++ {
		prev, cur := m.calls[i-1], m.calls[i]
		if model.MessageText(prev[0]) != model.MessageText(cur[0]) {
			t.Fatalf("call %d changed the system message", i+1)
		}
		if p, c := m.last(i-1), m.last(i); !strings.HasPrefix(c, p) {
			t.Fatalf("prompt %d does not start with prompt %d:\n%q\n%q", i+1, i, c, p)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := modelFunc(func(ctx context.Context, _ []llms.MessageContent, _ llms.CallOptions) (string, error) {
		cancel()
		<-ctx.Done()
		return "", ctx.Err()
	})
	res, err := New(m, registry(t)).Run(ctx, "q")
	if !errors.Is(err, context.Canceled) || res.StopReason != event.StopCancelled {
		t.Fatalf("got %v, %s; want context.Canceled, cancelled", err, res.StopReason)
	}
}

func TestRunTimeoutInModelCall(t *testing.T) {
	calls := 0
	m := modelFunc(func(ctx context.Context, msgs []llms.MessageContent, _ llms.CallOptions) (string, error) {
		calls++
		if calls == 1 {
			<-ctx.Done() // a server that hangs
			return "", ctx.Err()
		}
		if !strings.Contains(model.MessageText(msgs[len(msgs)-1]), "You cannot use any more tools") {
			t.Error("the forced call does not ask for a final answer")
		}
		return final("what I know"), nil
	})
	res, err := New(m, registry(t), WithTimeout(30*time.Millisecond)).Run(context.Background(), "q")
	if err != nil || res.StopReason != event.StopTimeout || !res.Forced || res.Answer != "what I know" {
		t.Fatalf("got %v, %+v", err, res)
	}
}

func TestRetries(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	tests := []struct {
		name      string
		errs      []error
		wantCalls int
		wantErr   bool
	}{
		{"transient failures are retried", []error{reset,
			&model.Error{StatusCode: 503, Temporary: true, Err: errors.New("overloaded")}}, 3, false},
		{"a rate limit is retried", []error{&model.Error{StatusCode: 429, Temporary: true, Err: errors.New("slow down")}}, 2, false},
		{"retries stop after three", []error{reset, reset, reset, reset}, 4, true},
		{"a permanent failure is not retried", []error{&model.Error{StatusCode: 401, Err: errors.New("bad key")}}, 1, true},
		{"a 404 is not retried", []error{&model.Error{StatusCode: 404, Err: errors.New("model not found")}}, 1, true},
		// A client that flattened its error into text said nothing the
		// agent reads: errors are classified by their types alone.
		{"an error's text is not read", []error{errors.New("API returned unexpected status code: 503: overloaded")}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			m := modelFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (string, error) {
				calls++
				if calls <= len(tt.errs) {
					return "", tt.errs[calls-1]
				}
				return final("ok"), nil
			})
			var retries []event.Event
			res, err := New(m, registry(t), fastRetries(), WithEvents(func(e event.Event) {
				if e.Kind == event.Retry {
					retries = append(retries, e)
				}
			})).Run(context.Background(), "q")
			if (err != nil) != tt.wantErr || calls != tt.wantCalls {
				t.Fatalf("got error %v after %d calls; want error %v after %d", err, calls, tt.wantErr, tt.wantCalls)
			}
			if tt.wantErr && res.StopReason != event.StopError {
				t.Errorf("stop reason %s, want error", res.StopReason)
			}
			var me *model.Error
			if tt.wantErr && !errors.As(err, &me) {
				t.Errorf("error %T is not a *model.Error", err)
			}
			if want := tt.wantCalls - 1; len(retries) != want {
				t.Errorf("got %d retry events, want %d", len(retries), want)
			}
			for i, e := range retries {
				if e.Attempt != i+2 || e.Wait <= 0 || e.RetryReason == "" || e.Err == nil || !strings.Contains(e.Text, "retrying in") {
					t.Errorf("retry event %d: attempt %d, wait %s, reason %q, %q", i+1, e.Attempt, e.Wait, e.RetryReason, e.Text)
				}
			}
		})
	}
}

func TestCallTimeoutIsRetried(t *testing.T) {
	calls := 0
	m := modelFunc(func(ctx context.Context, _ []llms.MessageContent, _ llms.CallOptions) (string, error) {
		calls++
		if calls == 1 {
			<-ctx.Done()
			return "", ctx.Err()
		}
		return final("ok"), nil
	})
	res, err := New(m, registry(t), fastRetries(), WithCallTimeout(20*time.Millisecond)).Run(context.Background(), "q")
	if err != nil || res.Answer != "ok" || calls != 2 {
		t.Fatalf("got %v, %q after %d calls", err, res.Answer, calls)
	}
}

func TestUsageIsSummed(t *testing.T) {
	m := modelFunc(func(_ context.Context, msgs []llms.MessageContent, _ llms.CallOptions) (string, error) {
		if strings.Contains(model.MessageText(msgs[len(msgs)-1]), "Observation") {
			return final("2"), nil
		}
		return action("echo", `{"text": "x"}`), nil
	})
	res, err := New(m, registry(t)).Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if want := (model.Usage{PromptTokens: 20, CompletionTokens: 10, TotalTokens: 30}); res.Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
}

func TestContextWindowWarning(t *testing.T) {
	var warned []event.Event
	m := scripted(action("echo", `{"text": "`+strings.Repeat("x", 4000)+`"}`), final("ok"))
	_, err := New(m, registry(t), WithContextWindow(2000), WithEvents(func(e event.Event) {
		if e.Kind == event.Warning {
			warned = append(warned, e)
		}
	})).Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !errors.Is(warned[0].Err, model.ErrContextOverflow) || !strings.Contains(warned[0].Text, "context window of 2000") {
		t.Errorf("warnings = %+v, want one about the context window", warned)
	}
}

func TestReasoningCutByStopIsAskedAgain(t *testing.T) {
	// A reasoning model that writes "Observation" inside its thinking: the
	// stop sequence cuts it there, so the agent asks again without them.
	reply := "<think>If I call add\nObservation: would be 3</think>\n" + action("add", `{"a": 1, "b": 2}`) + "\nObservation: 3 (made up)"
	var stops [][]string
	calls := 0
	m := modelFunc(func(ctx context.Context, _ []llms.MessageContent, o llms.CallOptions) (string, error) {
		calls++
		stops = append(stops, o.StopWords)
		if calls > 2 {
			return final("3"), nil
		}
		text := stopAt(reply, o.StopWords)
		if o.StreamingFunc != nil {
			for _, c := range model.Chunks(text) {
				if err := o.StreamingFunc(ctx, []byte(c)); err != nil {
					return "", err
				}
			}
		}
		return text, nil
	})
	res, err := New(m, registry(t)).Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if len(stops) != 3 || len(stops[0]) == 0 || len(stops[1]) != 0 {
		t.Fatalf("stop words per call = %q; want the second call without them", stops)
	}
	if s := res.Steps[0]; s.Action != "add" || s.Observation != "3" || !strings.Contains(s.Reasoning, "would be 3") {
		t.Errorf("step 1 = %+v", s)
	}
}

func TestStreaming(t *testing.T) {
	// A server that ignores stop sequences: the agent cuts the stream at
	// the made-up observation and cancels the generation.
	reply := "<think>Observation: inside thinking does not count</think>\n" + action("echo", `{"text": "hi"}`) +
		"\nObservation: hallucinated\nThought: more\nFinal Answer: wrong"
	var sent int
	calls := 0
	m := modelFunc(func(ctx context.Context, _ []llms.MessageContent, o llms.CallOptions) (string, error) {
		calls++
		if calls > 1 {
			return final("hi"), nil
		}
		if o.StreamingFunc == nil {
			t.Fatal("the call does not stream")
		}
		for _, c := range model.Chunks(reply) {
			sent += len(c)
			if err := o.StreamingFunc(ctx, []byte(c)); err != nil {
				return "", err
			}
		}
		return reply, nil
	})
	var got strings.Builder
	res, err := New(m, registry(t), WithStreaming(func(s string) { got.WriteString(s) })).Run(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if sent >= len(reply) {
		t.Error("the generation was not cancelled at the made-up observation")
	}
	if !strings.HasPrefix(reply, got.String()) || !strings.Contains(got.String(), "Action Input") {
		t.Errorf("streamed %q", got.String())
	}
	if res.Steps[0].Observation != "hi" || strings.Contains(res.Steps[0].Reply, "hallucinated") {
		t.Errorf("step 1 = %+v", res.Steps[0])
	}
}

func TestRunWithoutTools(t *testing.T) {
	m := scripted(final("hello"))
	res, err := New(m, nil).Run(context.Background(), "hi")
	if err != nil || res.Answer != "hello" {
		t.Fatalf("got %v, %q", err, res.Answer)
	}
	if sys := model.MessageText(m.calls[0][0]); !strings.Contains(sys, "You have no tools") {
		t.Errorf("system part:\n%s", sys)
	}
}

func TestSystemContext(t *testing.T) {
	m := scripted(final("ok"))
	if _, err := New(m, registry(t), WithSystem("Our store opens at 9.")).Run(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	if sys := model.MessageText(m.calls[0][0]); !strings.HasSuffix(sys, "Our store opens at 9.\n") {
		t.Errorf("system part does not end with the context:\n%s", sys)
	}
}

// TestThePromptStaysBounded runs a model whose every reply is huge, fed
// back into the prompt step after step: the run stops with an error once
// the prompt passes its bound, instead of growing without end.
func TestThePromptStaysBounded(t *testing.T) {
	huge := strings.Repeat("I think ", 512<<10) // 4 MiB a reply
	m := scripted(action("echo", `{"text": "a"}`))
	calls := 0
	m.Model = modelFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (string, error) {
		calls++
		return fmt.Sprintf("Thought: %s\nAction: echo\nAction Input: call %d", huge, calls), nil
	})
	res, err := New(m, registry(t), WithMaxIterations(50)).Run(context.Background(), "q")
	if !errors.Is(err, ErrPromptTooLarge) || res.Iterations > 6 {
		t.Fatalf("got %v after %d iterations, want ErrPromptTooLarge within 6", err, res.Iterations)
	}
}

func TestContextWindowWarningSaysOverWhenOver(t *testing.T) {
	var warned []string
	m := scripted(action("echo", `{"text": "`+strings.Repeat("x", 4000)+`"}`), final("ok"))
	New(m, registry(t), WithContextWindow(500), WithEvents(func(e event.Event) {
		if e.Kind == event.Warning {
			warned = append(warned, e.Text)
		}
	})).Run(context.Background(), "q")
	over := 0
	for _, w := range warned {
		if strings.Contains(w, "over the context window of 500") {
			over++
		}
		if strings.Contains(w, "over") && strings.Contains(w, "near") {
			t.Errorf("a warning says both that the prompt nears the window and that it is over it: %q", w)
		}
	}
	if over != 1 {
		t.Errorf("warnings = %q, want one saying the prompt is over the window", warned)
	}
}

// TestRepeatedCalls has a model call the same tool with the same arguments
// again and again: the second time it is shown the earlier result and not
// run, the third ends the run with its own stop reason and a forced
// answer.
func TestRepeatedCalls(t *testing.T) {
	runs := 0
	counting := funcTool{name: "count", schema: oneString("text"), fn: func(context.Context, map[string]any) (string, error) {
		runs++
		return "counted", nil
	}}
	same := action("count", `{"text": "a"}`)
	m := scripted(same, same, same, final("gave up"))
	res, err := New(m, registry(t, counting), WithMaxIterations(10)).Run(context.Background(), "q")
	if err != nil || res.StopReason != event.StopRepeatedCall || !res.Forced || res.Answer != "gave up" {
		t.Fatalf("got %v, %+v; want a forced answer after the third same call", err, res)
	}
	if runs != 1 {
		t.Errorf("the tool ran %d times, want once", runs)
	}
	if !strings.Contains(m.last(2), "You made this same call at step 1, and it gave:\ncounted") {
		t.Errorf("the second call's observation does not show the earlier result:\n%s", m.last(2))
	}
}

// TestStepsLeftAreToldNearTheLimit checks that the observations of the
// last steps tell the model how many it has left.
func TestStepsLeftAreToldNearTheLimit(t *testing.T) {
	m := scripted(action("echo", `{"text": "1"}`), action("echo", `{"text": "2"}`), final("done"))
	if _, err := New(m, registry(t), WithMaxIterations(3)).Run(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.last(1), "(2 steps left before you must give your final answer.)") ||
		!strings.Contains(m.last(2), "(1 step left: give your final answer next.)") {
		t.Errorf("the prompts do not count the steps left:\n%s\n---\n%s", m.last(1), m.last(2))
	}
}

// TestSystemTextWithATemplateWithoutContext checks that WithSystem's text
// reaches the model even when the template has no {{.Context}}.
func TestSystemTextWithATemplateWithoutContext(t *testing.T) {
	tmpl, err := prompt.Parse("mine", "Answer with the tools {{.ToolNames}}.")
	if err != nil {
		t.Fatal(err)
	}
	m := scripted(final("ok"))
	if _, err := New(m, registry(t), WithTemplate(tmpl), WithSystem("We are a bakery.")).Run(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	system := model.MessageText(m.calls[0][0])
	m.mu.Unlock()
	if !strings.HasPrefix(system, "Answer with the tools") || !strings.HasSuffix(system, "We are a bakery.") {
		t.Errorf("system prompt = %q", system)
	}
}
