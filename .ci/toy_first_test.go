package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// The first steps a newcomer takes with a local model, against the real
// llama-server and Ollama serving the toy model in the window it was
// trained for, 2,048 tokens: the full prompt with the default tools does
// not fit it, the compact one does.

// TestTheToyAnswersTheFirstCommand runs the README's first command with
// nothing but the server's address: the server says which it is, the one
// model it serves is used, the compact prompt stands in for the full one,
// which the server refuses, and the toy answers; a note says so.
func TestTheToyAnswersTheFirstCommand(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := toyServer(t, r, "toy.gguf")
		_, env := dataHome(t)
		o := runWithin(t, invocation{args: []string{"--base-url", srv.URL, "What is 17 * 23 + 4?"}, env: env}, 5*time.Minute)
		if o.code != 0 || o.stdout != "395\n" || !strings.Contains(o.stderr, "note: the full prompt") ||
			!strings.Contains(o.stderr, "this run uses the compact prompt (--prompt chooses one)") {
			t.Fatalf("want the answer 395 with the compact prompt, and a note saying so\n%s", o)
		}
		if r.name == "ollama" && !strings.Contains(o.stderr, "no model named: using toy:latest, the one model the server serves") {
			t.Errorf("the model used is not said\n%s", o)
		}
		runs := showLog(t, env)
		if len(runs) != 1 || runs[0].Prompt != "compact" || runs[0].Answer != "395" {
			t.Errorf("the log keeps %+v, want the compact prompt", runs)
		}
	})
}

// TestAPromptChosenThatDoesNotFitSaysWhatMakesItShorter asks with the
// full prompt chosen, and with the native protocol, whose tool
// definitions the compact prompt does not shorten: the server's refusal
// is not worked around, and the error names what makes the prompt
// shorter; with the calculator alone (-T), the native prompt fits, and
// the toy, taught native calls, answers.
func TestAPromptChosenThatDoesNotFitSaysWhatMakesItShorter(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := toyServer(t, r, "toy.gguf")
		base := []string{"--no-log", "--base-url", srv.URL}
		o := runWithin(t, invocation{args: append(base, "--prompt", "full", "What is 17 * 23 + 4?")}, 5*time.Minute)
		if o.code != 1 || strings.Contains(o.stderr, "note: the full prompt") ||
			!strings.Contains(o.stderr, "To make the prompt shorter, pass --prompt compact, less than half the full prompt; or offer fewer tools with -T") {
			t.Errorf("--prompt full: want the refusal, and --prompt compact and -T named\n%s", o)
		}
		o = runWithin(t, invocation{args: append(base, "--protocol", "native", "What is 17 * 23 + 4?")}, 5*time.Minute)
		if o.code != 1 || !strings.Contains(o.stderr, "To make the prompt shorter, pass --protocol text --prompt compact") ||
			!strings.Contains(o.stderr, "offer fewer tools with -T, as in -T calculator") {
			t.Errorf("--protocol native: want the refusal, and --protocol text --prompt compact and -T named\n%s", o)
		}
		o = runWithin(t, invocation{args: append(base, "--protocol", "native", "-T", "calculator", "What is 17 * 23 + 4?")}, 5*time.Minute)
		if o.code != 0 || strings.Contains(o.stderr, "To make the prompt shorter") || !strings.Contains(o.stdout, "395") {
			t.Errorf("--protocol native -T calculator: want the prompt to fit and the answer 395\n%s", o)
		}
	})
}

// TestAContinuedConversationIsHeldAsItWas asks the toy with the compact
// prompt, the calculator alone and the text protocol, then goes on with
// -c and nothing else: the next run is held the same way, against the
// same server and model, as the log and settings -c show.
func TestAContinuedConversationIsHeldAsItWas(t *testing.T) {
	eachReal(t, func(t *testing.T, r real) {
		srv := toyServer(t, r, "toy.gguf")
		_, env := dataHome(t)
		first := runWithin(t, invocation{args: []string{"--base-url", srv.URL, "--prompt", "compact", "-T", "calculator", "--protocol", "text",
			"What is 17 * 23 + 4?"}, env: env}, 5*time.Minute)
		if first.code != 0 || first.stdout != "395\n" {
			t.Fatalf("the first question was not answered\n%s", first)
		}
		settings := run(t, invocation{args: []string{"settings", "-c"}, env: env})
		for _, want := range []string{"prompt                 compact", "tool                   calculator", "protocol               text"} {
			if !strings.Contains(settings.stdout, want) {
				t.Errorf("settings -c does not show %q\n%s", want, settings)
			}
		}
		next := runWithin(t, invocation{args: []string{"-c", "What is 17 * 23 + 5?"}, env: env}, 5*time.Minute)
		if next.code == 1 || strings.Contains(next.stderr, "does not fit") {
			t.Fatalf("-c failed\n%s", next)
		}
		runs := showLog(t, env)
		if len(runs) != 2 {
			t.Fatalf("the conversation has %d runs, want 2", len(runs))
		}
		a, b := runs[0], runs[1]
		if b.Prompt != "compact" || !slices.Equal(b.Tools, []string{"calculator"}) || b.Protocol != "text" || b.Model != a.Model || b.Provider != a.Provider {
			got, _ := json.Marshal(runs)
			t.Errorf("-c was not held as the conversation was: %s", got)
		}
	})
}
