package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// promptTokensOf returns the tokens, as the fake llama-server counts them
// (4 bytes each), of the first prompt of a question asked with flags.
func promptTokensOf(t *testing.T, flags ...string) int {
	t.Helper()
	s := modeltest.NewLlamaCpp([]string{"Thought: I know it.\nFinal Answer: 395"})
	defer s.Close()
	if got := args(append(append([]string{"-q", "--no-log", "--base-url", s.URL}, flags...), "What is 17 * 23 + 4?")...).run(t); got.code != 0 {
		t.Fatalf("the run failed\n%s", got)
	}
	p, _ := s.Request(0)["prompt"].(string)
	return (len(p) + 3) / 4
}

// TestTheFirstQuestionFitsASmallWindow asks a llama-server whose context
// window the full prompt does not fit and the compact one does, with
// nothing but its address on the command line: the run answers with the
// compact prompt, and a note on the trace says so; the conversation goes
// on with it. A prompt chosen, by a flag, the environment or the config
// file, is not changed: the server refuses it, and the error names what
// makes the prompt shorter.
func TestTheFirstQuestionFitsASmallWindow(t *testing.T) {
	full, compact := promptTokensOf(t), promptTokensOf(t, "--prompt", "compact")
	if 3*compact > 2*full {
		t.Fatalf("the compact prompt is %d tokens, the full one %d", compact, full)
	}
	window := (full + compact) / 2
	server := func(replies ...string) *modeltest.Server {
		s := modeltest.NewLlamaCpp(replies, modeltest.ContextSize(window))
		t.Cleanup(s.Close)
		return s
	}
	db := filepath.Join(t.TempDir(), "logs.db")
	env := []string{"REACT_AGENT_LOG_DB=" + db}

	s := server("Thought: I know it.\nFinal Answer: 395", "Thought: I know it.\nFinal Answer: 79")
	got := invocation{args: []string{"--base-url", s.URL, "What is 17 * 23 + 4?"}, env: env}.run(t)
	note := "note: the full prompt, " // then its tokens and the window, as the server counts them
	if got.code != 0 || got.stdout != "395\n" || !strings.Contains(got.stderr, note) ||
		!strings.Contains(got.stderr, "this run uses the compact prompt (--prompt chooses one)") {
		t.Fatalf("want the answer, and a note that the compact prompt was used\n%s", got)
	}
	if got := (invocation{args: []string{"-c", "And divided by 5?"}, env: env}).run(t); got.code != 0 || got.stdout != "79\n" || strings.Contains(got.stderr, note) {
		t.Errorf("-c did not go on with the compact prompt\n%s", got)
	}

	for _, in := range []invocation{
		args("--no-log", "--prompt", "full"),
		{args: []string{"--no-log"}, env: []string{"REACT_AGENT_PROMPT=full"}},
	} {
		s := server("Thought: I know it.\nFinal Answer: 395")
		in.args = append(in.args, "--base-url", s.URL, "What is 17 * 23 + 4?")
		got := in.run(t)
		if got.code != exitFailure || s.Calls() != 1 || strings.Contains(got.stderr, note) ||
			!strings.Contains(got.stderr, "To make the prompt shorter, pass --prompt compact, less than half the full prompt; "+
				"or offer fewer tools with -T, as in -T calculator (this run offers calculator, http_request and web_search).") {
			t.Errorf("%v: want the full prompt refused, and what makes it shorter named\n%s", in.env, got)
		}
	}

}

// TestAModelIsNamedByTheOneTheServerServes asks an Ollama server that
// serves one model, not the default one, with nothing but its address:
// the run uses that model, and says so; a server with several does not
// choose for the user.
func TestAModelIsNamedByTheOneTheServerServes(t *testing.T) {
	s := modeltest.NewOllama([]string{"Thought: I know it.\nFinal Answer: 395"}, modeltest.Model("toy:latest"))
	t.Cleanup(s.Close)
	got := args("--no-log", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || got.stdout != "395\n" || s.Request(0)["model"] != "toy:latest" ||
		!strings.Contains(got.stderr, "react-agent: no model named: using toy:latest, the one model the server serves (--model chooses another)") {
		t.Errorf("want the one model served used, and said\n%s", got)
	}
	if value, source := settingLine(args("settings", "--base-url", s.URL).run(t).stdout, "model"); value != "toy:latest" || source != theOneServed {
		t.Errorf("settings shows model %q from %q", value, source)
	}
	evil := modeltest.NewOllama([]string{"Thought: I know it.\nFinal Answer: 395"}, modeltest.Model("toy\x1b]0;pwned\a"))
	t.Cleanup(evil.Close)
	got = args("--no-log", "--base-url", evil.URL, "What is 17 * 23 + 4?").run(t)
	if got.code == 0 || strings.Contains(got.stderr, "using toy") || strings.Contains(got.stderr, "\x1b") {
		t.Errorf("a name no one could type was taken from the server\n%s", got)
	}
}

// TestAQuestionLongerThanTheWindowIsNotSent asks a question of 75 KB of
// llama-server with a window of 2048 tokens, and of Ollama with --num-ctx
// 8192: the question alone cannot fit, which is said before any call,
// with what can help (a shorter question, the server's larger window, a
// model with a larger one), never a shorter prompt, fewer tools or
// --max-observation, which leave the question as long.
func TestAQuestionLongerThanTheWindowIsNotSent(t *testing.T) {
	t.Parallel()
	question := "Summarize this: " + strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1700)
	llama := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat(), modeltest.ContextSize(2048))
	defer llama.Close()
	ollama := modeltest.NewOllama(replies(t, "calculator.json"), modeltest.Repeat(), modeltest.ContextSize(32768))
	defer ollama.Close()
	tokens := strconv.Itoa(len(question) / 8)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"llama-server's window, on the trace", []string{"--base-url", llama.URL},
			"error: the question is about " + tokens + " tokens, more than the model's context window of 2048 tokens holds, and was not sent; " +
				"ask a shorter question, or start llama-server with a larger context (its -c), or use a model with a larger context window\n"},
		{"llama-server's window, quiet", []string{"-q", "--base-url", llama.URL},
			"react-agent: the question is about " + tokens + " tokens, more than the model's context window of 2048 tokens holds, and was not sent; " +
				"ask a shorter question, or start llama-server with a larger context (its -c), or use a model with a larger context window\n"},
		{"Ollama's window asked for", []string{"-q", "--base-url", ollama.URL, "--num-ctx", "8192"},
			"react-agent: the question is about " + tokens + " tokens, more than the model's context window of 8192 tokens holds, and was not sent; " +
				"ask a shorter question, or raise --num-ctx (the model takes up to 32768 tokens), or use a model with a larger context window\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := args(append(append([]string{"--no-log"}, tt.args...), question)...).run(t)
			if got.code != exitFailure || got.stderr != tt.want {
				t.Errorf("want exit 1 and\n%s\n%s", tt.want, got)
			}
		})
	}
	if llama.Calls() != 0 || ollama.Calls() != 0 {
		t.Errorf("the question was sent: %d calls to llama-server, %d to Ollama", llama.Calls(), ollama.Calls())
	}
}
