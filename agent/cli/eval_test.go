package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent"
	evalpkg "github.com/react-agent/react-agent/agent/eval"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// evalScripts reads the scripts of the two fake models that the shipped
// evaluation was recorded from.
func evalScripts(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata/eval/models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	scripts := map[string][]string{}
	for name, list := range v {
		if replies, ok := list.([]any); ok {
			for _, r := range replies {
				scripts[name] = append(scripts[name], r.(string))
			}
		}
	}
	return scripts
}

// TestEvalRecordsWhatItReplays runs an evaluation of two scripted models
// served on loopback, with both protocols, recording a cassette a run;
// replayed offline, the recording gives the same table, and so do the
// cassettes shipped in testdata/eval/replay. With
// REACT_AGENT_RECORD_EVAL=1 the new recording replaces the shipped one.
func TestEvalRecordsWhatItReplays(t *testing.T) {
	t.Parallel()
	scripts := evalScripts(t)
	neat := modeltest.NewOllama(scripts["neat"])
	defer neat.Close()
	sloppy := modeltest.NewOllama(scripts["sloppy"])
	defer sloppy.Close()
	dir := t.TempDir()
	live := run(t, invocation{args: []string{"eval", "--record", dir,
		"--models", "ollama:neat@" + neat.URL + ",ollama:sloppy@" + sloppy.URL,
		"--protocol", "text,native", root + "/testdata/eval/arithmetic.jsonl"}})
	if live.code != 0 {
		t.Fatalf("the live evaluation failed\n%s", live)
	}
	replay := func(from string) outcome {
		return run(t, invocation{args: []string{"eval", "--replay", from, "--models", "ollama:neat,ollama:sloppy",
			"--protocol", "text,native", root + "/testdata/eval/arithmetic.jsonl"}})
	}
	again := replay(dir)
	if again.code != 0 {
		t.Fatalf("the replay failed\n%s", again)
	}
	// The live table names the models with their URLs and has times;
	// the replayed one has neither. The numbers are the same.
	cells := func(table string) [][]string {
		var rows [][]string
		for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
			f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
			rows = append(rows, f[1:9]) // protocol to tokens, not the model or the time
		}
		return rows
	}
	if l, r := cells(live.stdout), cells(again.stdout); fmt.Sprint(l) != fmt.Sprint(r) {
		t.Errorf("the replay gives other numbers than the live run:\n replay: %v\n   live: %v", r, l)
	}
	if os.Getenv("REACT_AGENT_RECORD_EVAL") == "1" {
		shipped := filepath.Join(root, "testdata/eval/replay")
		os.RemoveAll(shipped)
		if err := os.CopyFS(shipped, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
	}
	shipped := replay(root + "/testdata/eval/replay")
	if shipped.code != 0 || shipped.stdout != again.stdout {
		t.Errorf("the shipped cassettes give another table than a new recording:\n%s\nwant\n%s", shipped, again.stdout)
	}
}

// TestEvalFindsTheServerOfAnAddressWithoutAProvider evaluates a model
// named with an address and no provider: llama-server, found by what it
// answers, as --base-url alone finds it.
func TestEvalFindsTheServerOfAnAddressWithoutAProvider(t *testing.T) {
	t.Parallel()
	llama := modeltest.NewLlamaCpp([]string{"Thought: I know it.\nFinal Answer: 4"}, modeltest.Repeat())
	defer llama.Close()
	questions := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(questions, []byte(`{"question": "What is 2+2?", "expect": "4"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := args("eval", "--models", "modeltest.gguf@"+llama.URL, questions).run(t)
	if got.code != 0 || !strings.Contains(got.stdout, "1/1") || llama.Calls() == 0 {
		t.Errorf("want the question answered by the server at the address\n%s", got)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no question set", []string{"eval"}, "one question set"},
		{"an unknown protocol", []string{"eval", "--protocol", "smoke", root + "/testdata/eval/arithmetic.jsonl"}, `--protocol: unknown protocol "smoke"; the protocols are text, constrained and native`},
		{"record and replay", []string{"eval", "--record", "a", "--replay", "b", root + "/testdata/eval/arithmetic.jsonl"}, "contradict"},
		{"a set that is not one", []string{"eval", root + "/README.md"}, "README.md:3: not a question"},
		{"no iteration", []string{"eval", "--max-iterations", "0", root + "/testdata/eval/arithmetic.jsonl"}, "--max-iterations must be at least 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: tt.args})
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Errorf("want exit 2 and %q\n%s", tt.want, got)
			}
		})
	}
}

// TestEvalGivesEachRunItsCassette records an evaluation whose question
// IDs differ only in characters a file's name cannot hold (a/1, a_1,
// a:1) and replays it: each run replays its own answer.
func TestEvalGivesEachRunItsCassette(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := filepath.Join(dir, "set.jsonl")
	err := os.WriteFile(set, []byte(`{"id": "a/1", "question": "Say one", "expect": "one"}
{"id": "a_1", "question": "Say two", "expect": "two"}
{"id": "a:1", "question": "Say three", "expect": "three"}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	s := modeltest.NewOllama([]string{"Final Answer: one", "Final Answer: two", "Final Answer: three"})
	defer s.Close()
	cassettes := filepath.Join(dir, "cassettes")
	live := run(t, invocation{args: []string{"eval", "--record", cassettes, "--models", "ollama:m@" + s.URL, set}})
	if live.code != 0 || !strings.Contains(live.stdout, "3/3") {
		t.Fatalf("the live evaluation: want 3/3\n%s", live)
	}
	if files, _ := filepath.Glob(filepath.Join(cassettes, "*.jsonl")); len(files) != 3 {
		t.Errorf("%d cassettes for 3 runs", len(files))
	}
	replay := run(t, invocation{args: []string{"eval", "--replay", cassettes, "--models", "ollama:m", set}})
	if replay.code != 0 || !strings.Contains(replay.stdout, "3/3") {
		t.Fatalf("the replay: want 3/3, as recorded\n%s", replay)
	}
	t.Run("runs that would share a cassette are a usage error", func(t *testing.T) {
		dup := filepath.Join(dir, "dup.jsonl")
		os.WriteFile(dup, []byte(`{"id": "a", "question": "q", "expect": "x"}`+"\n"+`{"id": "a", "question": "r", "expect": "y"}`+"\n"), 0o644)
		for _, tt := range []struct {
			name string
			args []string
			want string
		}{
			{"an id twice", []string{"eval", "--replay", cassettes, "--models", "ollama:m", dup}, `the id "a" is also on line 1`},
			{"models apart only in their URL", []string{"eval", "--record", t.TempDir(), "--models", "ollama:m@http://127.0.0.1:1,ollama:m@http://127.0.0.1:2", set},
				"differ only in their server's URL"},
		} {
			got := run(t, invocation{args: tt.args})
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Errorf("%s: want exit 2 and %q\n%s", tt.name, tt.want, got)
			}
		}
	})
}

// TestEvalComparesConstrainedAndTextOffline evaluates a scripted model on
// a fake llama-server with the text protocol and the constrained one,
// recording a cassette a run: the constrained runs sent the grammar,
// their cassettes keep it, and the evaluation replays offline with the
// same numbers.
func TestEvalComparesConstrainedAndTextOffline(t *testing.T) {
	t.Parallel()
	text := evalScripts(t)["neat"][:12] // the text protocol's replies to the six questions
	srv := modeltest.NewLlamaCpp(text, modeltest.Repeat())
	defer srv.Close()
	dir := t.TempDir()
	args := func(models string, more ...string) []string {
		return append([]string{"eval", "--models", models, "--protocol", "text,constrained", root + "/testdata/eval/arithmetic.jsonl"}, more...)
	}
	live := run(t, invocation{args: args("llamacpp:neat@"+srv.URL, "--record", dir)})
	if live.code != 0 {
		t.Fatalf("the live evaluation failed\n%s", live)
	}
	grammars := 0
	for i := range srv.Calls() {
		if g, _ := srv.Request(i)["grammar"].(string); strings.HasPrefix(g, "root ::= reply\n") {
			grammars++
		}
	}
	if srv.Calls() != 24 || grammars != 12 {
		t.Errorf("the server got %d calls, %d with the grammar; want 24, the constrained half with it", srv.Calls(), grammars)
	}
	name := evalpkg.Cassette(evalpkg.Target{Model: "llamacpp:neat", Protocol: evalpkg.Constrained}, evalpkg.Question{ID: "sum"})
	cassette, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil || !strings.Contains(string(cassette), `"constraint":{"mode":"grammar","fields":{"grammar":"root ::=`) {
		t.Errorf("the constrained cassette does not keep the grammar (%v):\n%.400s", err, cassette)
	}
	again := run(t, invocation{args: args("llamacpp:neat", "--replay", dir)})
	if again.code != 0 {
		t.Fatalf("the replay failed\n%s", again)
	}
	rows := func(table string) []string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
			f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
			out = append(out, strings.Join(f[1:9], " | "))
		}
		return out
	}
	l, r := rows(live.stdout), rows(again.stdout)
	if len(l) != 2 || !strings.HasPrefix(l[1], "constrained | 6/6") || strings.Join(l, "\n") != strings.Join(r, "\n") {
		t.Errorf("live:\n%s\nreplayed:\n%s", live.stdout, again.stdout)
	}
}

func TestConstrainUsage(t *testing.T) {
	t.Parallel()
	plain := modeltest.NewOpenAI(replies(t, "two_steps.json"), modeltest.Model("m"))
	defer plain.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a word that is no mode", []string{"--constrain", "always", "What?"}, `--constrain: unknown mode "always"; the modes are auto, on and off`},
		{"on with the native protocol", []string{"--constrain", "on", "--protocol", "native", "What?"}, "pass --protocol text"},
		{"on with a server that cannot", []string{"--constrain", "on", "--provider", "openai", "--base-url", plain.URL, "-m", "m", "What?"},
			"use a server that binds steps: llama-server (--provider llamacpp)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: append([]string{"--no-log"}, tt.args...)})
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Errorf("want exit 2 and %q\n%s", tt.want, got)
			}
		})
	}
}

// TestEvalFailsWhenRunsCannotRun evaluates a model whose server is not
// there: the table is printed, the exit status is 1, and the first cause
// is said without --failures.
func TestEvalFailsWhenRunsCannotRun(t *testing.T) {
	t.Parallel()
	got := args("eval", "--models", "ollama:m@http://127.0.0.1:9", root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != exitFailure || !strings.Contains(got.stdout, "0/6") {
		t.Fatalf("want the table and exit 1\n%s", got)
	}
	if !strings.Contains(got.stderr, "6 of 6 runs failed to run, the first (ollama:m@http://127.0.0.1:9 with text, question sum) because ") ||
		!strings.Contains(got.stderr, "cannot reach Ollama at http://127.0.0.1:9") {
		t.Errorf("the cause is not said\n%s", got)
	}
	got = args("eval", "--json", "--models", "ollama:m@http://127.0.0.1:9", root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != exitFailure {
		t.Errorf("--json: want exit 1\n%s", got)
	}
	t.Run("a wrong answer is no failure to run", func(t *testing.T) {
		t.Parallel()
		s := modeltest.NewOllama([]string{"Final Answer: five"}, modeltest.Repeat())
		defer s.Close()
		got := args("eval", "--models", "ollama:m@"+s.URL, root+"/testdata/eval/arithmetic.jsonl").run(t)
		if got.code != 0 || !strings.Contains(got.stdout, "0/6") {
			t.Errorf("want exit 0 with every answer wrong\n%s", got)
		}
	})
}

// TestEvalBoundsEachReply evaluates with --max-tokens: every call of
// every run carries the bound, as ask's calls do, so that a runaway reply
// in an evaluation stops where it would stop in ask.
func TestEvalBoundsEachReply(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flags []string
		want  float64
	}{
		{nil, float64(model.DefaultMaxTokens)},
		{[]string{"--max-tokens", "77"}, 77},
	} {
		srv := modeltest.NewLlamaCpp(evalScripts(t)["neat"][:12], modeltest.Repeat())
		defer srv.Close()
		got := run(t, invocation{args: append([]string{"eval", "--models", "llamacpp:neat@" + srv.URL, root + "/testdata/eval/arithmetic.jsonl"}, tt.flags...)})
		if got.code != 0 || srv.Calls() == 0 {
			t.Fatalf("%v: the evaluation failed\n%s", tt.flags, got)
		}
		for i := range srv.Calls() {
			if n, _ := srv.Request(i)["n_predict"].(float64); n != tt.want {
				t.Fatalf("%v: call %d sent n_predict %v; want %v", tt.flags, i, srv.Request(i)["n_predict"], tt.want)
			}
		}
	}
}

// TestFailedToRunBlamesTheServerNotTheModel: a run stopped by the server
// or the setup failed to run; a model that wrote past the window, repeated
// itself until the server stopped it, or never followed the format
// answered wrongly.
func TestFailedToRunBlamesTheServerNotTheModel(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("ollama: %w", model.ErrNoModel), true},
		{fmt.Errorf("ollama: %w", model.ErrContextOverflow), true},
		{fmt.Errorf("agent: %w", agent.ErrNoAnswer), false},
		{fmt.Errorf("ollama: %w", model.ErrContextFull), false},
		{fmt.Errorf("ollama: %w", model.ErrRepeatLimit), false},
		{fmt.Errorf("agent: %w", agent.ErrRepeatedParseError), false},
	}
	for _, tt := range tests {
		if got := failedToRun(tt.err); got != tt.want {
			t.Errorf("failedToRun(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestEvalTakesModelsInPlainTextOnly gives --models with escape
// sequences and invisible characters in the model and in its URL: each
// is refused before any run, with the characters shown as escapes.
func TestEvalTakesModelsInPlainTextOnly(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"ollama:m\x1b[31m@http://127.0.0.1:9", "openai:m@http://127.0.0.1:9/v1\x1b]0;x\x07", "ollama:m\u202e@http://127.0.0.1:9"} {
		got := args("eval", "--models", m, root+"/testdata/eval/arithmetic.jsonl").run(t)
		if got.code != exitUsage || !strings.Contains(got.stderr, "do not show as written") || strings.ContainsAny(got.stderr, "\x1b\x07\u202e") {
			t.Errorf("%q: want a usage error with the characters escaped\n%s", m, got)
		}
	}
}

// TestEvalSaysWhereNothingAnswered evaluates a model given with an
// address and no provider where nothing listens: each run says that
// nothing answered there and how to start a server, not that Ollama
// cannot be reached.
func TestEvalSaysWhereNothingAnswered(t *testing.T) {
	t.Parallel()
	got := args("eval", "--models", "m@http://127.0.0.1:9", root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != exitFailure || !strings.Contains(got.stderr, "because nothing answered at http://127.0.0.1:9 (connection refused); start a model server there") ||
		strings.Contains(got.stderr, "Ollama at") {
		t.Errorf("want it said that nothing answered, and how to start a server\n%s", got)
	}
}

// TestEvalWorkersShareOneModelPerServer evaluates two models on two
// servers, one found by asking it, four runs at once: the runs of each
// model share its connections, and every run is answered.
func TestEvalWorkersShareOneModelPerServer(t *testing.T) {
	t.Parallel()
	var servers []*modeltest.Server
	for range 2 {
		s := modeltest.NewOllama([]string{"Thought: done\nFinal Answer: 395"}, modeltest.Repeat())
		defer s.Close()
		servers = append(servers, s)
	}
	got := args("eval", "-j", "4", "--protocol", "text,native", "--models", "m@"+servers[0].URL+",ollama:m@"+servers[1].URL,
		root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != 0 || strings.Count(got.stdout, "/6 ") != 4 {
		t.Fatalf("want four rows of six runs\n%s", got)
	}
	for i, s := range servers {
		if s.Calls() != 12 || s.Connections() > 6 {
			t.Errorf("server %d: %d calls on %d connections; want 12 calls on a few", i+1, s.Calls(), s.Connections())
		}
	}
}

// TestEvalKeepsAConnectionForEachRunAtOnce evaluates 64 questions eight
// at a time on a server slow enough that the runs overlap: each keeps
// its connection for the next, where Go's client keeps two to a server
// and opened a new one for most calls.
func TestEvalKeepsAConnectionForEachRunAtOnce(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOllama([]string{"Thought: done\nFinal Answer: 4"}, modeltest.Repeat(), modeltest.Slow(5*time.Millisecond))
	defer s.Close()
	var set strings.Builder
	for i := range 64 {
		fmt.Fprintf(&set, `{"id": "q%d", "question": "What is 2 + 2?", "expect": "4"}`+"\n", i)
	}
	path := filepath.Join(t.TempDir(), "set.jsonl")
	os.WriteFile(path, []byte(set.String()), 0o644)
	got := args("eval", "-j", "8", "--models", "ollama:m@"+s.URL, path).run(t)
	t.Logf("%d calls on %d connections", s.Calls(), s.Connections())
	if got.code != 0 || s.Calls() != 64 || s.Connections() > 10 {
		t.Errorf("%d calls on %d connections; want 64 on no more than the runs at once, and a few\n%s", s.Calls(), s.Connections(), got)
	}
}

// TestEvalSaysTheTimeLimitRunsReached evaluates a model whose server
// never answers, with --timeout 300ms: each run's error names the limit
// reached, not "after 0s", and so does its JSON, which marks it as timed
// out; the table counts the runs as failed, and eval exits 1, since no run
// could finish. Beside a model that answers, the runs that reached the
// limit are counted after the table, with the flag that moves it, and
// eval exits 0.
func TestEvalSaysTheTimeLimitRunsReached(t *testing.T) {
	t.Parallel()
	hung := modeltest.NewOllama([]string{"Final Answer: 4"}, modeltest.Hang())
	defer hung.Close()
	questions := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(questions, []byte(`{"id": "four", "question": "What is 2+2?", "number": 4}`+"\n"+
		`{"id": "six", "question": "What is 3+3?", "number": 6}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := args("eval", "--timeout", "300ms", "--models", "ollama:m@"+hung.URL, questions).run(t)
	if got.code != exitFailure || !strings.Contains(got.stdout, "0/2") {
		t.Fatalf("want the table and exit 1, no run having finished\n%s", got)
	}
	if want := "failed  tokens in/out  time\n"; !strings.Contains(got.stdout, want) || !regexp.MustCompile(`text +0/2 0% .* 2 +0 / 0`).MatchString(got.stdout) {
		t.Errorf("want both runs counted as failed\n%s", got)
	}
	if want := "react-agent: no run finished: all 2 reached the time limit of 300ms; raise --timeout to allow more\n"; got.stderr != want {
		t.Errorf("stderr is not\n%s\n%s", want, got)
	}
	got = args("eval", "--json", "--timeout", "300ms", "--models", "ollama:m@"+hung.URL, questions).run(t)
	if got.code != exitFailure {
		t.Errorf("--json: want exit 1\n%s", got)
	}
	for _, line := range strings.Split(strings.TrimSpace(got.stdout), "\n") {
		var o struct {
			TimedOut bool   `json:"timed_out"`
			Error    string `json:"error"`
			Why      string `json:"why"`
		}
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatal(err)
		}
		if !o.TimedOut || !strings.Contains(o.Error, "timed out after 300ms") || o.Why != "the run reached the time limit of 300ms" {
			t.Errorf("want the run marked as timed out, naming its limit: %s", line)
		}
	}

	answers := modeltest.NewOllama([]string{"Final Answer: 4", "Final Answer: 6"}, modeltest.Repeat())
	defer answers.Close()
	got = args("eval", "--timeout", "300ms", "--models", "ollama:m@"+hung.URL+",ollama:n@"+answers.URL, questions).run(t)
	if got.code != 0 || !strings.Contains(got.stdout, "2/2") {
		t.Fatalf("want exit 0, runs of the second model having finished\n%s", got)
	}
	if want := "react-agent: 2 of 4 runs reached the time limit of 300ms, counted as failed; raise --timeout to allow more\n"; got.stderr != want {
		t.Errorf("stderr is not\n%s\n%s", want, got)
	}

	// With --failures, on a terminal that shows stdout and stderr
	// together, what can be done comes last, after the failures.
	var both bytes.Buffer
	in := args("eval", "--failures", "--timeout", "300ms", "--models", "ollama:m@"+hung.URL+",ollama:n@"+answers.URL, questions)
	testEnv(t, in, &both, &both).run(in.args)
	if out := strings.TrimSpace(both.String()); !strings.HasSuffix(out, "raise --timeout to allow more") || !strings.Contains(out, "the run reached the time limit of 300ms") {
		t.Errorf("the runs that reached the time limit are not said last, after the failures\n%s", out)
	}
}

// TestEvalOffATerminalSaysHowFarItCame evaluates with stderr in a file
// or a pipe, on a clock that moves 2 seconds each time it is read: a
// plain line of the count comes now and then, and one at the end, with
// no bar and no escape sequence. On the real clock, an evaluation done in
// less time than a line would wait writes none, and on a terminal the bar
// is drawn and erased.
func TestEvalOffATerminalSaysHowFarItCame(t *testing.T) {
	t.Parallel()
	replayed := []string{"eval", "--replay", root + "/testdata/eval/replay", "--models", "ollama:neat,ollama:sloppy",
		"--protocol", "text,native", root + "/testdata/eval/arithmetic.jsonl"}
	var mu sync.Mutex
	clock := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	slow := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(2 * time.Second)
		return clock
	}
	got := invocation{args: replayed, now: slow}.run(t)
	lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
	if got.code != 0 || len(lines) < 4 || len(lines) > 12 || lines[0] != "3/24 runs" || lines[len(lines)-1] != "24/24 runs" ||
		strings.ContainsAny(got.stderr, "\r\x1b[#") {
		t.Errorf("want a plain line every third run and the last count\n%s", got)
	}
	got = invocation{args: []string{"eval", "--models", "ollama:m@http://127.0.0.1:9", root + "/testdata/eval/arithmetic.jsonl"}, now: slow}.run(t)
	if !strings.Contains(got.stderr, "\n6/6 runs, 6 failed\nreact-agent: ") {
		t.Errorf("want the count of failed runs\n%s", got)
	}
	if got := args(replayed...).run(t); got.code != 0 || got.stderr != "" {
		t.Errorf("want no line for an evaluation done at once\n%s", got)
	}
	got = invocation{args: replayed, terminal: true, width: 80}.run(t)
	if got.code != 0 || !strings.HasPrefix(got.stderr, "\r\x1b[K[") || !strings.Contains(got.stderr, "24/24 ollama:sloppy native quotient: right\r\x1b[Kreact-agent: ") ||
		strings.Contains(got.stderr, "24/24 runs") {
		t.Errorf("want the bar on a terminal, erased at the end\n%q", got.stderr)
	}
}

// TestEvalBaseURLIsTheServerOfModelsGivenWithoutOne evaluates with
// --base-url: it is the address of every model in --models given
// without one, as model@URL, and, with no --models, the model the server
// there serves is evaluated. The key goes where ask's would: a server
// found at the address gets no OPENAI_API_KEY, one whose provider the
// user named gets it, and --api-key goes to either.
func TestEvalBaseURLIsTheServerOfModelsGivenWithoutOne(t *testing.T) {
	t.Parallel()
	const key = "k3y-of-openai-in-the-environment"
	questions := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(questions, []byte(`{"question": "What is 2+2?", "number": 4}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		flags []string
		table string // the start of the table's row
		key   string // the key the server got, or ""
	}{
		{"a model given without a URL goes to --base-url", []string{"--models", "m"}, "m@%s  text      1/1", ""},
		{"a provider named gets the provider's key there", []string{"--models", "vllm:m"}, "vllm:m@%s  text      1/1", key},
		{"no --models evaluates the model the server serves", nil, "m@%s  text      1/1", ""},
		{"--api-key goes to the server found", []string{"--api-key", "k3y-given"}, "m@%s  text      1/1", "k3y-given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewVLLM([]string{"Thought: done\nFinal Answer: 4"}, modeltest.Repeat(), modeltest.Model("m"))
			defer s.Close()
			got := invocation{args: append(append([]string{"eval", "--base-url", s.URL}, tt.flags...), questions),
				env: []string{"OPENAI_API_KEY=" + key}}.run(t)
			if got.code != 0 || !strings.Contains(got.stdout, "\n"+fmt.Sprintf(tt.table, s.URL)) {
				t.Fatalf("want the row %q\n%s", fmt.Sprintf(tt.table, s.URL), got)
			}
			var keys []string
			for _, a := range s.Arrived() {
				if h := a.Header.Get("Authorization"); h != "" && !slices.Contains(keys, h) {
					keys = append(keys, h)
				}
			}
			if want := []string{"Bearer " + tt.key}; tt.key == "" && len(keys) > 0 || tt.key != "" && !slices.Equal(keys, want) {
				t.Errorf("the server got the keys %q; want %q", keys, tt.key)
			}
		})
	}
	t.Run("a server of several models asks which", func(t *testing.T) {
		t.Parallel()
		s := modeltest.NewOllama([]string{"Final Answer: 4"}, modeltest.Models("qwen2.5:7b", "llama3.1:8b"))
		defer s.Close()
		got := args("eval", "--base-url", s.URL, questions).run(t)
		if want := "react-agent eval: the server at " + s.URL + " serves 2 models (llama3.1:8b, qwen2.5:7b); name those to compare with --models, as in --models llama3.1:8b,qwen2.5:7b\n"; got.code != 2 || got.stderr != want {
			t.Errorf("want\n%s\n%s", want, got)
		}
	})
	t.Run("an address that is none is refused", func(t *testing.T) {
		t.Parallel()
		got := args("eval", "--base-url", "127.0.0.1:8080", questions).run(t)
		if want := "react-agent eval: --base-url takes a server's address, like http://127.0.0.1:8080; got \"127.0.0.1:8080\"\n"; got.code != 2 || got.stderr != want {
			t.Errorf("want\n%s\n%s", want, got)
		}
	})
}

// TestAReplayTakesTheSettingsOfItsRecording replays the README's
// evaluation with settings that shape the prompt set elsewhere: the
// config file's prompt: compact, REACT_AGENT_MAX_ITERATIONS, a default
// set of tools. The replay sends what was recorded, since it takes the
// recording's settings, and a note says which of the person's it set
// aside and where they came from. A flag on the command line keeps its
// value: the runs diverge, and the error names the flag and the
// recording's value. Cassettes that do not say their settings name those
// that differ from the defaults.
func TestAReplayTakesTheSettingsOfItsRecording(t *testing.T) {
	t.Parallel()
	shipped := root + "/testdata/eval/replay"
	replay := func(dir string, flags ...string) []string {
		return append(append([]string{"eval", "--replay", dir, "--models", "ollama:neat,ollama:sloppy", "--protocol", "text,native"}, flags...),
			root+"/testdata/eval/arithmetic.jsonl")
	}
	want := args(replay(shipped)...).run(t)
	if want.code != 0 {
		t.Fatalf("the shipped evaluation does not replay\n%s", want)
	}
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("prompt: compact\ntool: [calculator]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"REACT_AGENT_CONFIG=" + config, "REACT_AGENT_MAX_ITERATIONS=3"}
	got := invocation{args: replay(shipped), env: env}.run(t)
	if got.code != 0 || got.stdout != want.stdout {
		t.Fatalf("want the table of the recording\n%s", got)
	}
	note := "react-agent: the replay takes the settings of the recording: prompt full, not compact (from " + config +
		"), tool calculator,http_request,web_search, not calculator (from " + config +
		") and max-iterations 10, not 3 (from REACT_AGENT_MAX_ITERATIONS); a flag on the command line replays with another\n"
	if got.stderr != note {
		t.Errorf("the note is not\n%s\n%s", note, got)
	}

	got = invocation{args: replay(shipped, "--prompt", "compact"), env: env}.run(t)
	if got.code != exitFailure || !strings.Contains(got.stderr, "call 1 diverges") ||
		!strings.HasSuffix(got.stderr, "\nthis replay changes what the recording in "+shipped+" sent: --prompt compact (the recording has full)\n") {
		t.Errorf("want the divergence blamed on --prompt\n%s", got)
	}

	old := t.TempDir()
	if err := os.CopyFS(old, os.DirFS(shipped)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(old, "settings.json")); err != nil {
		t.Fatal(err)
	}
	got = invocation{args: replay(old), env: env}.run(t)
	if got.code != exitFailure || !strings.HasSuffix(got.stderr, "\n"+old+" does not say the settings it was recorded with, and this replay's differ from the defaults: prompt compact (from "+
		config+"), tool calculator (from "+config+") and max-iterations 3 (from REACT_AGENT_MAX_ITERATIONS)\n") {
		t.Errorf("want the settings that differ from the defaults named\n%s", got)
	}
}

// TestARecordingKeepsItsSettings records an evaluation with the compact
// prompt, the calculator alone and 4 iterations, and replays it without
// a flag: the replay sends what was recorded, the settings being the
// recording's.
func TestARecordingKeepsItsSettings(t *testing.T) {
	t.Parallel()
	scripts := evalScripts(t)
	neat := modeltest.NewOllama(scripts["neat"])
	defer neat.Close()
	dir := t.TempDir()
	got := args("eval", "--record", dir, "--prompt", "compact", "-T", "calculator", "--max-iterations", "4",
		"--models", "ollama:neat@"+neat.URL, root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != 0 {
		t.Fatalf("the recording failed\n%s", got)
	}
	data, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"prompt\": \"compact\",\n  \"tool\": [\n    \"calculator\"\n  ],\n  \"max-iterations\": 4,\n  \"max-observation\": 8192\n}\n"; string(data) != want {
		t.Errorf("settings.json is\n%s\nwant\n%s", data, want)
	}
	got = args("eval", "--replay", dir, "--models", "ollama:neat", root+"/testdata/eval/arithmetic.jsonl").run(t)
	if got.code != 0 || !strings.Contains(got.stdout, "6/6") || got.stderr != "" {
		t.Errorf("want the recording replayed with its settings, and no note\n%s", got)
	}
}
