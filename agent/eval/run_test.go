package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools"
)

// arithmetic is four questions a calculator answers.
var arithmetic = []Question{
	{ID: "a", Question: "17 * 23 + 4?", Number: num(395)},
	{ID: "b", Question: "2 ** 10?", Number: num(1024)},
	{ID: "c", Question: "100 / 8?", Number: num(12.5)},
	{ID: "d", Question: "7 * 6?", Number: num(42)},
}

// knownRates is a runner for two fake models: "good" answers three
// questions of four right, in two steps, "poor" one, in four steps with a
// parse error each time and a forced answer.
func knownRates(_ context.Context, t Target, q Question) (Result, error) {
	right := fmt.Sprint(*q.Number)
	switch t.Model {
	case "good":
		answer := right
		if q.ID == "d" {
			answer = "41"
		}
		return Result{Answer: answer, Steps: 2, StopReason: "final_answer", Recovered: 1, TokensIn: 100, TokensOut: 10}, nil
	case "poor":
		answer := "I do not know"
		if q.ID == "a" {
			answer = right
		}
		return Result{Answer: answer, Steps: 4, StopReason: "max_iterations", Forced: true, ParseErrors: 1, TokensIn: 300, TokensOut: 40}, nil
	}
	return Result{}, errors.New("no such model")
}

const wantTable = `model  protocol  correct  steps mean/median  format errors  recovered  forced  failed  tokens in/out
good   text      3/4 75%  2.0 / 2            0              4          0       0       400 / 40
poor   text      1/4 25%  4.0 / 4            4              0          4       0       1200 / 160
`

func TestRunWithKnownRates(t *testing.T) {
	targets, err := ParseTargets([]string{"good", "poor"}, []string{"text"})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []int{1, 4} {
		t.Run(fmt.Sprintf("concurrency %d", j), func(t *testing.T) {
			var calls atomic.Int32
			r, err := Run(context.Background(), targets, arithmetic, knownRates, Options{Concurrency: j,
				Progress: func(done, total int, _ Outcome) {
					calls.Add(1)
					if total != 8 || done > total {
						t.Errorf("progress %d/%d", done, total)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			r.HideTime = true
			var b bytes.Buffer
			if err := r.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != wantTable {
				t.Errorf("table\n%s\nwant\n%s", b.String(), wantTable)
			}
			if calls.Load() != 8 {
				t.Errorf("progress called %d times, want 8", calls.Load())
			}
			for i, o := range r.Outcomes {
				if want := arithmetic[i%4].ID; o.Question.ID != want {
					t.Errorf("outcome %d is question %s, want %s: the order must not depend on the concurrency", i, o.Question.ID, want)
				}
			}
			var f bytes.Buffer
			r.WriteFailures(&f)
			if got := strings.Count(f.String(), "  question:"); got != 4 {
				t.Errorf("the failures view shows %d runs, want 4:\n%s", got, f.String())
			}
		})
	}
}

func TestRunTimeoutAndCancel(t *testing.T) {
	slow := func(ctx context.Context, _ Target, q Question) (Result, error) {
		if q.ID == "b" {
			<-ctx.Done()
			return Result{StopReason: "timeout"}, ctx.Err()
		}
		return Result{Answer: fmt.Sprint(*q.Number)}, nil
	}
	targets := []Target{{Model: "m", Protocol: "text"}}
	r, err := Run(context.Background(), targets, arithmetic, slow, Options{Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Summaries()[0]; s.Correct != 3 || s.Failed != 1 || s.TimedOut != 1 {
		t.Errorf("correct %d, failed %d, timed out %d; want 3, 1 and 1: a run that times out is an outcome", s.Correct, s.Failed, s.TimedOut)
	}
	if o := r.Outcomes[1]; !o.TimedOut || o.Why != "the run reached the time limit of 20ms" {
		t.Errorf("the run that timed out: %+v", o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = Run(ctx, targets, arithmetic, slow, Options{})
	if !errors.Is(err, context.Canceled) || len(r.Outcomes) > 1 {
		t.Errorf("cancelled: %d outcomes, %v; want none started and context.Canceled", len(r.Outcomes), err)
	}
}

func TestParseModel(t *testing.T) {
	providers := []string{"ollama", "openai"}
	tests := []struct{ in, provider, name, url string }{
		{"qwen2.5:7b", "", "qwen2.5:7b", ""},
		{"ollama:qwen2.5:7b", "ollama", "qwen2.5:7b", ""},
		{"openai:gpt-4o-mini@http://127.0.0.1:8080/v1", "openai", "gpt-4o-mini", "http://127.0.0.1:8080/v1"},
		{"llama3@http://host:11434", "", "llama3", "http://host:11434"},
		{"openai:m@http://user:pass@host/v1", "openai", "m", "http://user:pass@host/v1"},
		{"openai:m@http://us@er:p@ss:w@host:8000/v1", "openai", "m", "http://us@er:p@ss:w@host:8000/v1"},
		{"openai:m@https://us%40er:p%3Ass@host", "openai", "m", "https://us%40er:p%3Ass@host"},
		{"ollama:https://registry.example/me/tiny:q4@http://127.0.0.1:11434", "ollama", "https://registry.example/me/tiny:q4", "http://127.0.0.1:11434"},
		{"ollama:https://registry.example/me/tiny:q4", "ollama", "https://registry.example/me/tiny:q4", ""},
		{"org/model@v2", "", "org/model@v2", ""},
	}
	for _, tt := range tests {
		p, n, u, err := ParseModel(tt.in, providers)
		if err != nil || p != tt.provider || n != tt.name || u != tt.url {
			t.Errorf("ParseModel(%q) = %q, %q, %q, %v", tt.in, p, n, u, err)
		}
	}
	if _, err := ParseTargets([]string{"m"}, []string{"smoke"}); err == nil {
		t.Error("an unknown protocol was taken")
	}
}

// TestAPasswordInAModelsURLIsNeverShown gives a model whose server's URL
// has a password, with "@" and ":" in it: once the model was split at the
// last "@", inside the password, and the whole became a model's name,
// sent to the provider's default address, and shown in the table, the
// JSON and the failures. Now the URL is the URL, and everything shown
// says user:***@host; Given keeps the password for the runner alone.
func TestAPasswordInAModelsURLIsNeverShown(t *testing.T) {
	given := "openai:m@http://bob:hunter@2:secret@127.0.0.1:8000/v1"
	targets, err := ParseTargets([]string{given}, []string{Text})
	if err != nil {
		t.Fatal(err)
	}
	tg := targets[0]
	if want := "openai:m@http://bob:***@127.0.0.1:8000/v1"; tg.Model != want || tg.Given() != given {
		t.Fatalf("target %q, given %q; want %q, and the model as given", tg.Model, tg.Given(), want)
	}
	_, _, url, _ := ParseModel(tg.Given(), []string{"openai"})
	if url != "http://bob:hunter@2:secret@127.0.0.1:8000/v1" {
		t.Errorf("the URL given is %q", url)
	}
	q := Question{ID: "q1", Question: "2+2?", Expect: "4"}
	r, err := Run(context.Background(), targets, []Question{q}, func(ctx context.Context, t Target, q Question) (Result, error) {
		return Result{Answer: "5", Replies: []string{"Final Answer: 5"}}, nil
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.WriteTable(&out)
	r.WriteJSON(&out)
	r.WriteFailures(&out)
	out.WriteString(Cassette(tg, q))
	if strings.Contains(out.String(), "hunter") || strings.Contains(out.String(), "secret") || !strings.Contains(out.String(), "bob:***@127.0.0.1:8000") {
		t.Errorf("what is shown holds the password, or not the server:\n%s", out.String())
	}
}

// TestAnOutcomeKeepsLittleOfLongReplies runs a question whose replies
// are 400 KB each, and whose answer is a part of one: the outcome keeps
// each reply and the answer cut, as the failures view shows them, and
// nothing of the memory of the replies.
func TestAnOutcomeKeepsLittleOfLongReplies(t *testing.T) {
	long := "Thought: " + strings.Repeat("a", 400<<10) + "\nFinal Answer: 395"
	answer := long[len(long)-3:]
	r, err := Run(context.Background(), []Target{{Model: "m", Protocol: Text}}, []Question{{ID: "q", Question: "?", Expect: "395"}},
		func(ctx context.Context, t Target, q Question) (Result, error) {
			return Result{Answer: answer, Steps: 2, Replies: []string{long, long}}, nil
		}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := r.Outcomes[0]
	if !o.Correct || len(o.Replies) != 2 || len(o.Replies[0]) > MaxReplyKept+len("…") || !strings.HasSuffix(o.Replies[0], "…") {
		t.Fatalf("outcome: correct %v, %d replies of %d bytes", o.Correct, len(o.Replies), len(o.Replies[0]))
	}
	if unsafe.StringData(o.Answer) == unsafe.StringData(answer) {
		t.Errorf("the answer kept is the reply's memory")
	}
}

// TestRunRealAgents evaluates two scripted models through the real agent,
// the real langchaingo client and a fake OpenAI server on loopback: one
// writes canonical replies, the other markdown and an unlabelled answer,
// both of which the tolerant parser recovers, and gets one answer wrong.
func TestRunRealAgents(t *testing.T) {
	scripts := map[string][]string{
		"neat": {
			"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"17 * 23 + 4\"}", "Thought: done\nFinal Answer: 395",
			"Thought: power\nAction: calculator\nAction Input: {\"expression\": \"2 ** 10\"}", "Thought: done\nFinal Answer: 1024",
		},
		"sloppy": {
			"**Thought:** multiply\n**Action:** `calculator`\n**Action Input:** 17 * 23 + 4", "Final Answer: 395",
			"I think it is 1000.", "Final Answer: 1000",
		},
	}
	servers := map[string]*modeltest.Server{}
	for name, replies := range scripts {
		servers[name] = modeltest.NewOpenAI(replies)
		defer servers[name].Close()
	}
	run := func(ctx context.Context, t Target, q Question) (Result, error) {
		m, err := model.New(ctx, model.Config{Provider: "openai", BaseURL: servers[t.Model].URL, APIKey: "k", Model: t.Model})
		if err != nil {
			return Result{}, err
		}
		reg, err := tools.Builtins(tools.DefaultOptions())
		if err != nil {
			return Result{}, err
		}
		res, err := agent.New(m, reg, agent.WithProtocol(agent.Protocol(t.Protocol))).Run(ctx, q.Question)
		return Result{Answer: res.Answer, Steps: len(res.Steps), ParseErrors: res.ParseErrors, Recovered: res.Recovered,
			TokensIn: res.Usage.PromptTokens, TokensOut: res.Usage.CompletionTokens}, err
	}
	qs := arithmetic[:2]
	targets := []Target{{Model: "neat", Protocol: "text"}, {Model: "sloppy", Protocol: "text"}}
	r, err := Run(context.Background(), targets, qs, run, Options{}) // one at a time: each server's script is in order
	if err != nil {
		t.Fatal(err)
	}
	r.HideTime = true
	var b bytes.Buffer
	r.WriteTable(&b)
	want := `model   protocol  correct   steps mean/median  format errors  recovered  forced  failed  tokens in/out
neat    text      2/2 100%  2.0 / 2            0              0          0       0       400 / 80
sloppy  text      1/2 50%   1.5 / 1.5          0              2          0       0       300 / 60
`
	if b.String() != want {
		t.Errorf("table\n%s\nwant\n%s", b.String(), want)
	}
}

// TestTableFitsTheWidth writes the table of models with long names at 80
// columns: no line is wider, the names are given by keys with a legend,
// and every column is still there.
func TestTableFitsTheWidth(t *testing.T) {
	long := []Target{{Model: "openai:qwen2.5-7b-instruct@http://127.0.0.1:1234/v1", Protocol: "text"},
		{Model: "openai:llama-3.1-8b-instruct@http://127.0.0.1:8000/v1", Protocol: "native"}}
	r := &Report{Targets: long, Width: 80}
	for _, tg := range long {
		r.Outcomes = append(r.Outcomes, Outcome{Target: tg, Correct: true, Steps: 2, TokensIn: 123456, TokensOut: 7890, Duration: 90 * time.Second})
	}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
	for _, want := range []string{"m1  openai:qwen2.5-7b-instruct@http://127.0.0.1:1234/v1", "m2  openai:llama", "format errors", "tokens in/out", "123456 / 7890", "1m30s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
	r.Width = 0
	b.Reset()
	r.WriteTable(&b)
	if strings.Contains(b.String(), "m1") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("without a width the table is one, with the names:\n%s", b.String())
	}
}

func TestParseTargetsTakesTheConstrainedProtocolBesideTheOthers(t *testing.T) {
	ts, err := ParseTargets([]string{"llamacpp:q"}, []string{Text, Constrained, Native})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tt := range ts {
		got = append(got, tt.String())
	}
	if want := "llamacpp:q text,llamacpp:q constrained,llamacpp:q native"; strings.Join(got, ",") != want {
		t.Errorf("targets %q, want %q", got, want)
	}
}
