package cli

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestSettingsOfAContinuedConversation logs a conversation with a model
// and a server of its own, then asks settings -c and --cid, which once
// showed the defaults while ask -c used the conversation's provider,
// model and server.
func TestSettingsOfAContinuedConversation(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Model("qwen-logged:1b"))
	db := filepath.Join(t.TempDir(), "logs.db")
	env := []string{"REACT_AGENT_LOG_DB=" + db}
	if got := (invocation{args: []string{"-q", "--base-url", s.URL, "-m", "qwen-logged:1b", "What is 17 * 23 + 4?"}, env: env}).run(t); got.code != 0 {
		t.Fatalf("the first run failed\n%s", got)
	}
	id := conversationOf(t, db)
	for _, flags := range [][]string{{"-c"}, {"--continue"}, {"--cid", id[:5]}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			got := invocation{args: append([]string{"settings"}, flags...), env: env}.run(t)
			from := "conversation " + id
			for name, want := range map[string]string{"model": "qwen-logged:1b", "base-url": s.URL} {
				if value, source := settingLine(got.stdout, name); value != want || source != from {
					t.Errorf("settings shows %s %q from %q; want %q from %q\n%s", name, value, source, want, from, got)
				}
			}
		})
	}
	t.Run("a conversation that is not in the log", func(t *testing.T) {
		got := invocation{args: []string{"settings", "--cid", "ffffffffffff"}, env: env}.run(t)
		if got.code == 0 || !strings.Contains(got.stderr, "not in the log") {
			t.Errorf("want an error saying the conversation is not in the log\n%s", got)
		}
	})
	t.Run("a provider the log names that does not exist blames no flag", func(t *testing.T) {
		raw, err := sql.Open("sqlite", db)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec("UPDATE runs SET provider = 'olama'"); err != nil {
			t.Fatal(err)
		}
		got := invocation{args: []string{"-q", "-c", "And times 10?"}, env: env}.run(t)
		want := `provider (from conversation ` + id + ` in the log; pass --provider to choose another): `
		if got.code == 0 || !strings.Contains(got.stderr, want) || !strings.Contains(got.stderr, `unknown provider "olama"`) || strings.Contains(got.stderr, "--provider: ") {
			t.Errorf("want %q and the provider named\n%s", want, got)
		}
	})
}

// conversationOf returns the ID of the latest conversation of the log at
// path.
func conversationOf(t *testing.T, path string) string {
	t.Helper()
	store, err := logs.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	id, err := store.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSettingsHideAPasswordInTheServersURL gives --base-url with a
// password, and a key in its query: settings shows them as it shows the
// API key, hidden.
func TestSettingsHideAPasswordInTheServersURL(t *testing.T) {
	for _, r := range []invocation{
		args("settings", "--base-url", "http://bob:hunter2-secret@127.0.0.1:8080/v1?api_key=k3y-in-the-query"),
		{args: []string{"settings"}, env: []string{"OLLAMA_HOST=http://bob:hunter2-secret@127.0.0.1:11434"}},
	} {
		got := r.run(t)
		if got.code != 0 || strings.Contains(got.stdout, "hunter2-secret") || strings.Contains(got.stdout, "k3y-in-the-query") || !strings.HasPrefix(func() string { v, _ := settingLine(got.stdout, "base-url"); return v }(), "http://bob:***@127.0.0.1:") {
			t.Errorf("want the password and the key hidden\n%s", got)
		}
	}
	got := args("settings", "--search-engine", "searxng", "--search-url", "http://bob:hunter2-secret@127.0.0.1:8888").run(t)
	if v, _ := settingLine(got.stdout, "search-url"); got.code != 0 || strings.Contains(got.stdout, "hunter2-secret") || v != "http://bob:***@127.0.0.1:8888" {
		t.Errorf("want the password of --search-url hidden\n%s", got)
	}
}

// TestAContinuedConversationGetsNoKeyMeantForAnother logs a conversation
// with a vLLM found at --base-url, which gets no OPENAI_API_KEY, and
// continues it: the provider and the address come from the log, which
// does not say that the server was found rather than chosen, and once
// the key went to it. Now it goes only when --provider names it again.
func TestAContinuedConversationGetsNoKeyMeantForAnother(t *testing.T) {
	const key = "k3y-of-openai-in-the-environment"
	s := modeltest.NewVLLM([]string{"Thought: done\nFinal Answer: 4"}, modeltest.Repeat(), modeltest.Model("m"))
	defer s.Close()
	env := []string{"REACT_AGENT_LOG_DB=" + filepath.Join(t.TempDir(), "logs.db"), "OPENAI_API_KEY=" + key}
	sent := func() bool {
		for _, a := range s.Arrived() {
			if strings.Contains(a.Header.Get("Authorization"), key) {
				return true
			}
		}
		return false
	}
	for _, r := range []struct {
		args []string
		sent bool
	}{
		{[]string{"-q", "--base-url", s.URL, "-m", "m", "What is 2 + 2?"}, false},
		{[]string{"-q", "-c", "And 3 + 3?"}, false},
		{[]string{"-q", "-c", "--provider", "vllm", "And 4 + 4?"}, true},
	} {
		if got := (invocation{args: r.args, env: env}).run(t); got.code != 0 || sent() != r.sent {
			t.Errorf("%q: the key of OPENAI_API_KEY was sent: %v, want %v\n%s", r.args, sent(), r.sent, got)
		}
	}
}

// systemPrompt returns the system prompt of the chat call n (from 0) that
// the fake server s took.
func systemPrompt(t *testing.T, s *modeltest.Server, n int) string {
	t.Helper()
	msgs, _ := s.Request(n)["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("call %d has no messages", n)
	}
	first, _ := msgs[0].(map[string]any)
	text, _ := first["content"].(string)
	return text
}

// TestAContinuedConversationKeepsHowItWasHeld asks a question with the
// compact prompt, the calculator alone and the text protocol, then goes on
// with -c and nothing else: the next question is asked the same way, as
// settings -c shows; a flag that changes one of them wins, and is said.
func TestAContinuedConversationKeepsHowItWasHeld(t *testing.T) {
	final := "Thought: I know it.\nFinal Answer: 4"
	s := modeltest.NewOllama([]string{final, final, final}, modeltest.Model("held:1b"))
	t.Cleanup(s.Close)
	db := filepath.Join(t.TempDir(), "logs.db")
	env := []string{"REACT_AGENT_LOG_DB=" + db}
	first := invocation{args: []string{"-q", "--base-url", s.URL, "-m", "held:1b", "--prompt", "compact", "-T", "calculator", "What is 2+2?"}, env: env}.run(t)
	if first.code != 0 {
		t.Fatalf("the first run failed\n%s", first)
	}
	compact := systemPrompt(t, s, 0)
	if !strings.HasPrefix(compact, "Answer the question.") || !strings.Contains(compact, "- calculator:") || strings.Contains(compact, "web_search") {
		t.Fatalf("the first run's prompt is not the compact one with the calculator alone:\n%s", compact)
	}
	id := conversationOf(t, db)

	got := invocation{args: []string{"settings", "-c"}, env: env}.run(t)
	for name, want := range map[string]string{"prompt": "compact", "tool": "calculator", "protocol": "text", "lang": "en", "model": "held:1b"} {
		if value, source := settingLine(got.stdout, name); value != want || source != "conversation "+id {
			t.Errorf("settings -c shows %s %q from %q; want %q from the conversation\n%s", name, value, source, want, got)
		}
	}

	again := invocation{args: []string{"-c", "And times 10?"}, env: env}.run(t)
	if again.code != 0 || systemPrompt(t, s, 1) != compact || strings.Contains(again.stderr, "as it was held, but for") {
		t.Errorf("-c did not ask as the conversation was held:\n%s\n%s", systemPrompt(t, s, 1), again)
	}

	changed := invocation{args: []string{"-c", "--prompt", "full", "And plus 1?"}, env: env}.run(t)
	full := systemPrompt(t, s, 2)
	if changed.code != 0 || strings.HasPrefix(full, "Answer the question.") || strings.Contains(full, "web_search") ||
		!strings.Contains(changed.stderr, "going on with conversation "+id+" as it was held, but for --prompt full (it had compact)") {
		t.Errorf("-c --prompt full did not change the prompt alone, or did not say so:\n%s\n%s", full, changed)
	}
}
