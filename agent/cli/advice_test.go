package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools/mcp"
)

// TestABoundStepIsANoticeNotAWarning runs on a llama-server that binds
// steps to the tools: the trace says so as a note with -v only, as a
// detail of how the run goes, and --json as a notice.
func TestABoundStepIsANoticeNotAWarning(t *testing.T) {
	t.Parallel()
	s := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat())
	defer s.Close()
	got := args("--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || strings.Contains(got.stderr, "constrained") || strings.Contains(got.stderr, "warning") {
		t.Fatalf("want no note, and no warning, without -v\n%s", got)
	}
	got = args("-v", "--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "note: constrained: ") || strings.Contains(got.stderr, "warning") {
		t.Fatalf("want a note with -v, not a warning\n%s", got)
	}
	got = args("-q", "--json", "--provider", "llamacpp", "--base-url", s.URL, "What is 17 * 23 + 4?").run(t)
	if got.code != 0 || !strings.Contains(got.stdout, `{"type":"notice","iteration":1,"message":"constrained: `) || strings.Contains(got.stdout, `"warning"`) {
		t.Fatalf("want a notice event, no warning\n%s", got)
	}
}

// TestTheShellOffIsSaidOnScreen has the model ask for the shell, which is
// off: the screen says how to allow it, the model's observation aside.
func TestTheShellOffIsSaidOnScreen(t *testing.T) {
	t.Parallel()
	s := ollama(t, "shell_confirm.json")
	got := args("--base-url", s.URL, "What does the shell say?").run(t)
	if got.code != 0 || !strings.Contains(got.stderr, "note: the model asked for the shell, which is off: pass --allow-shell") {
		t.Fatalf("want a note naming --allow-shell\n%s", got)
	}
}

// TestAReplyOllamaCutIsToldAsSuch runs a model whose reply Ollama ends
// with no "done" message, as it does when the model writes one token over
// and over and when its runner fails: the call is made twice, and the
// error says what is known (the reply was cut before the server finished
// it), both causes and where to look, and does not send the person to
// the temperature.
func TestAReplyOllamaCutIsToldAsSuch(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.Misbehave(modeltest.RepeatLimit))
	defer s.Close()
	got := args("-q", "--no-log", "--base-url", s.URL, "What is 6 * 7?").run(t)
	if got.code != 1 || s.Calls() != 2 {
		t.Fatalf("want exit 1 after 2 calls; %d calls\n%s", s.Calls(), got)
	}
	for _, want := range []string{"the reply ended before the server finished it", "more than 30 times in a row", "runner", "fails", "the server's log"} {
		if !strings.Contains(got.stderr, want) {
			t.Errorf("the error does not say %q\n%s", want, got)
		}
	}
	if strings.Contains(got.stderr, "temperature") {
		t.Errorf("the error sends the person to the temperature\n%s", got)
	}
}

// TestARemoteMCPServerThatDoesNotAnswerIsNotToldOfNpx checks the advice
// for an MCP server that did not answer in time: once a remote one was
// told that a server fetched with npx -y may need longer.
func TestARemoteMCPServerThatDoesNotAnswerIsNotToldOfNpx(t *testing.T) {
	t.Parallel()
	remote := advise(&mcp.StartError{Server: "far", URL: "https://mcp.example.com/mcp", Err: fmt.Errorf("no answer: %w", context.DeadlineExceeded)})
	if strings.Contains(remote, "npx") || !strings.Contains(remote, "check that the server is up at that address") {
		t.Errorf("a remote server's advice: %s", remote)
	}
	local := advise(&mcp.StartError{Server: "near", Err: fmt.Errorf("no answer: %w", context.DeadlineExceeded)})
	if !strings.Contains(local, "npx -y") {
		t.Errorf("a command's advice: %s", local)
	}
}

// TestTheWindowWarningNamesAFlagThatHelps runs a long question against
// llama-server, whose window is its -c, and against Ollama with
// --num-ctx: only the second is told to raise --num-ctx.
func TestTheWindowWarningNamesAFlagThatHelps(t *testing.T) {
	t.Parallel()
	question := "What is 17 * 23 + 4? " + strings.Repeat("Say it plainly. ", 400)
	llama := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat(), modeltest.ContextSize(2048))
	defer llama.Close()
	got := args("--no-log", "--provider", "llamacpp", "--base-url", llama.URL, question).run(t)
	if !strings.Contains(got.stderr, "context window of 2048") || strings.Contains(got.stderr, "--num-ctx") ||
		strings.Contains(got.stderr, "may drop its beginning") || !strings.Contains(got.stderr, "its -c") {
		t.Errorf("want the window said, with llama-server's -c and no --num-ctx\n%s", got)
	}
	ollama := modeltest.NewOllama(replies(t, "calculator.json"), modeltest.Repeat(), modeltest.ContextSize(32768))
	defer ollama.Close()
	got = args("--no-log", "--base-url", ollama.URL, "--num-ctx", "2048", question).run(t)
	if !strings.Contains(got.stderr, "context window of 2048") || !strings.Contains(got.stderr, "raise --num-ctx") {
		t.Errorf("want --num-ctx named\n%s", got)
	}
}

// TestAServersErrorReachesTheTerminalEscaped has a server answer with an
// error whose message holds escape sequences: the person reads them
// escaped, never as what they would do to the terminal.
func TestAServersErrorReachesTheTerminalEscaped(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":"no \u001b[2J\u001b]52;c;aGk=\u0007 for you"}`)
	}))
	defer srv.Close()
	got := args("--no-log", "--provider", "ollama", "--base-url", srv.URL, "-m", "m", "What?").run(t)
	if got.code != 1 || strings.ContainsAny(got.stderr, "\x1b\x07") || !strings.Contains(got.stderr, "for you") {
		t.Fatalf("want the server's message, escaped\n%q", got.stderr)
	}
}

// TestTheWindowIsAdvisedOneWay runs a question too large for the context
// window asked of Ollama: the warning that the prompt passes the window,
// and the error that ends the run (the model's refusal of a prompt that
// cannot fit), say what to do the same way, once each: the command line's
// words with its flags, not those and the library's besides. The review
// found it said three ways ("raise --num-ctx or lower --max-observation",
// "raise --num-ctx (if the model takes it), …", "ask for a larger context
// window, or for less").
func TestTheWindowIsAdvisedOneWay(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOllama([]string{"Final Answer: 42"}, modeltest.Repeat(), modeltest.ContextSize(32768))
	defer s.Close()
	question := "Sum these: " + strings.Repeat("1 + ", 3000) + "1" // the prompt cannot fit; the question alone could
	got := args("--no-log", "--base-url", s.URL, "-m", "m", "--num-ctx", "2048", question).run(t)
	// The first call's prompt holds no observation to shorten: no
	// --max-observation; and the run went on with the compact prompt
	// already: no --prompt compact.
	const advice = "raise --num-ctx (if the model takes it)"
	if got.code != 1 || !strings.Contains(got.stderr, "warning: the prompt is about") || !strings.Contains(got.stderr, "error: ") {
		t.Fatalf("want a warning that the prompt passes the window, and the error that ends the run\n%s", got)
	}
	if n := strings.Count(got.stderr, advice); n != 2 {
		t.Errorf("the advice %q is said %d times, want once in the warning and once in the error\n%s", advice, n, got)
	}
	for _, other := range []string{"ask for a larger context window", "or for less", "raise --num-ctx or", "--max-observation", "pass --prompt compact", "context window: the prompt"} {
		if strings.Contains(got.stderr, other) {
			t.Errorf("the window is advised another way too: %q\n%s", other, got)
		}
	}
	if !strings.Contains(got.stderr, "the model takes up to 32768 tokens") {
		t.Errorf("what the model knows of its window is lost\n%s", got)
	}
}

// TestAWaitPastTheCapIsSaidOnce: a server that asks to be called again in
// longer than a run waits ends the run at once, and the person is told
// what it asked, once.
func TestAWaitPastTheCapIsSaidOnce(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOpenAI([]string{"Final Answer: 42"}, modeltest.Fail(1, 429), modeltest.RetryAfter(7200))
	defer s.Close()
	got := args("--no-log", "--provider", "openai", "--base-url", s.URL+"/v1", "-m", "m", "What is 6 * 7?").run(t)
	if got.code != 1 || s.Calls() != 1 || strings.Count(got.stderr, "2h0m0s") != 1 || !strings.Contains(got.stderr, "try again once that time is past") {
		t.Fatalf("want exit 1 after 1 call, saying once that the server asked for 2h0m0s; %d calls\n%s", s.Calls(), got)
	}
}
