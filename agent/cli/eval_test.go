package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
	if files, _ := os.ReadDir(cassettes); len(files) != 3 {
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
			"steps are bound by --provider llamacpp"},
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
	if !strings.Contains(got.stderr, "6 of 6 runs failed to run; the first, ollama:m@http://127.0.0.1:9 with text, question sum: ") ||
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
	if got.code != exitFailure || !strings.Contains(got.stderr, "nothing answered at http://127.0.0.1:9 (connection refused): start a model server there") ||
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
