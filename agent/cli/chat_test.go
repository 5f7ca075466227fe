package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestChatCommandsAreNeverQuestions types a chat's commands with and
// without arguments, Ollama's among them: none reaches the model.
func TestChatCommandsAreNeverQuestions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, want string
	}{
		{"/model llama3.1:8b", "(now chatting with llama3.1:8b on ollama at "},
		{"/clear", "the conversation is forgotten"},
		{"/clear x", `/clear takes nothing after it, got "x"`},
		{"/tools now", "/tools takes nothing after it"},
		{"/nope", "unknown command /nope; /help lists the commands"},
		{"/nope with words", "unknown command /nope"},
		{"/set parameter temperature 0.2", "temperature is 0.2 from now on"},
		{"/set parameter num_predict 64", "num_predict is 64 from now on"},
		{"/set parameter", "parameter takes a key and its value"},
		{"/set nothing", "/set takes parameter KEY VALUE or system TEXT"},
		{"/set system Answer in French.", "the system prompt has this extra context"},
		{"/model", "(chatting with qwen2.5:7b on ollama at "},
		{"/?", "/set parameter KEY VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			s := ollama(t, "calculator.json", modeltest.Repeat(), modeltest.Models("qwen2.5:7b", "llama3.1:8b"))
			got := invocation{args: []string{"chat", "-q", "--base-url", s.URL}, stdin: tt.line + "\n"}.run(t)
			if got.code != 0 || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit 0 and %q\n%s", tt.want, got)
			}
			if s.Calls() != 0 {
				t.Errorf("%q went to the model", tt.line)
			}
		})
	}
	for _, bye := range []string{"/bye", "/quit", "/exit", "exit"} {
		t.Run(bye+" ends the session", func(t *testing.T) {
			t.Parallel()
			s := ollama(t, "calculator.json", modeltest.Repeat())
			got := invocation{args: []string{"chat", "-q", "--base-url", s.URL}, stdin: bye + "\nWhat is 17 * 23 + 4?\n"}.run(t)
			if got.code != 0 || s.Calls() != 0 {
				t.Fatalf("want exit 0 and nothing asked after %s: %d calls\n%s", bye, s.Calls(), got)
			}
		})
	}
	t.Run("a path is a question", func(t *testing.T) {
		t.Parallel()
		s := ollama(t, "calculator.json", modeltest.Repeat())
		got := invocation{args: []string{"chat", "-q", "--base-url", s.URL}, stdin: "/etc/hosts: what is it for?\n"}.run(t)
		if got.code != 0 || s.Calls() == 0 {
			t.Fatalf("want the line asked\n%s", got)
		}
	})
}

// TestChatChangesItsModelAndOptions changes the model and an option in a
// chat: the next question goes to the new model, with the option and the
// conversation so far.
func TestChatChangesItsModelAndOptions(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Repeat(), modeltest.Models("qwen2.5:7b", "other:1b"))
	got := invocation{args: []string{"chat", "-q", "--base-url", s.URL},
		stdin: "What is 17 * 23 + 4?\n/model other:1b\n/set parameter repeat_penalty 1.2\nAnd plus one?\n"}.run(t)
	if got.code != 0 || s.Calls() != 4 {
		t.Fatalf("want two questions of two calls each, %d calls\n%s", s.Calls(), got)
	}
	last := s.Request(2)
	opts, _ := last["options"].(map[string]any)
	body, _ := json.Marshal(last)
	if last["model"] != "other:1b" || opts["repeat_penalty"] != 1.2 || !strings.Contains(string(body), "17 * 23 + 4 = 395") {
		t.Errorf("the second question's call: model %v, options %v, want other:1b, repeat_penalty 1.2 and the first turn:\n%s", last["model"], opts, body)
	}
}

// TestChatBannerNamesTheModel starts a chat at a terminal: the banner
// names the model and its server.
func TestChatBannerNamesTheModel(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Repeat())
	got := invocation{args: []string{"chat", "--base-url", s.URL}, stdin: "/exit\n", terminal: true, width: 80}.run(t)
	if want := "Chatting with qwen2.5:7b on ollama at " + s.URL + ".\n"; got.code != 0 || !strings.HasPrefix(got.stderr, want) {
		t.Fatalf("want the banner %q\n%s", want, got)
	}
}

// TestChatSaysWhenNoModelWasNamed: a chat with a recording, or with a
// llama-server and no model named, says so rather than show an empty name
// or a placeholder: the model the llama-server serves, when it says, or
// else that none was named.
func TestChatSaysWhenNoModelWasNamed(t *testing.T) {
	t.Parallel()
	demo := root + "/testdata/agent/demo.jsonl"
	got := invocation{args: []string{"chat", "--replay", demo}, stdin: "/model\n/exit\n", terminal: true, width: 80}.run(t)
	if want := "Chatting with the model recorded in " + demo + ".\n"; got.code != 0 || !strings.HasPrefix(got.stderr, want) ||
		!strings.Contains(got.stderr, "(chatting with the model recorded in "+demo+")\n") {
		t.Errorf("want %q, and the same after /model\n%s", want, got)
	}
	s := modeltest.NewLlamaCpp(replies(t, "calculator.json"), modeltest.Repeat())
	defer s.Close()
	got = invocation{args: []string{"chat", "--provider", "llamacpp", "--base-url", s.URL}, stdin: "/exit\n", terminal: true, width: 80}.run(t)
	if want := "Chatting with modeltest.gguf on llamacpp at " + s.URL + ".\n"; got.code != 0 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("want %q\n%s", want, got)
	}
	got = invocation{args: []string{"chat", "--provider", "llamacpp", "--base-url", "http://127.0.0.1:9"}, stdin: "/exit\n", terminal: true, width: 80}.run(t)
	if want := "Chatting with the model that llamacpp at http://127.0.0.1:9 serves, as none was named.\n"; got.code != 0 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("want %q\n%s", want, got)
	}
}

func TestChat(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json", modeltest.Repeat())
	got := run(t, invocation{
		args:  []string{"chat", "-q", "--base-url", s.URL},
		stdin: "What is 17 * 23 + 4?\n/tools\n\n/reset\nAnd plus one?\n/nope\n/exit\nnever asked\n",
	})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	if n := strings.Count(got.stdout, "17 * 23 + 4 = 395\n"); n != 2 {
		t.Errorf("want two answers, got %d\n%s", n, got)
	}
	if !strings.Contains(got.stderr, "expression") || strings.Contains(got.stdout, "expression") {
		t.Errorf("/tools did not list the tools on stderr, away from the answers\n%s", got)
	}
	if !strings.Contains(got.stderr, "unknown command /nope") {
		t.Errorf("an unknown command is not explained\n%s", got)
	}
	if s.Calls() != 4 {
		t.Fatalf("the server got %d calls, want 4 (nothing after /exit)", s.Calls())
	}
	// /reset forgot the first question: the second one's first call does
	// not carry it.
	if body, _ := json.Marshal(s.Request(2)); strings.Contains(string(body), "17 * 23 + 4?") {
		t.Errorf("after /reset the first question is still sent: %s", body)
	}

	t.Run("without /reset the conversation is remembered", func(t *testing.T) {
		s := ollama(t, "calculator.json", modeltest.Repeat())
		got := run(t, invocation{args: []string{"chat", "-q", "--base-url", s.URL}, stdin: "What is 17 * 23 + 4?\nAnd plus one?\n"})
		body, _ := json.Marshal(s.Request(2))
		if got.code != 0 || !strings.Contains(string(body), "17 * 23 + 4?") || !strings.Contains(string(body), "And plus one?") {
			t.Fatalf("the second question's call lacks the first question\n%s\n%s", body, got)
		}
	})
}

// TestChatSaysWhichConversationItContinues: chat -c at a terminal says
// which conversation it goes on with, and its last question.
func TestChatSaysWhichConversationItContinues(t *testing.T) {
	t.Parallel()
	env := []string{"REACT_AGENT_LOG_DB=" + filepath.Join(t.TempDir(), "logs.db")}
	run(t, invocation{args: append(append([]string{"-q"}, demo...), "What is 17 * 23 + 4?"), env: env})
	list := run(t, invocation{args: []string{"logs", "--json"}, env: env})
	var convs []struct{ ID string }
	if err := json.Unmarshal([]byte(list.stdout), &convs); err != nil || len(convs) != 1 {
		t.Fatalf("logs --json: %v\n%s", err, list)
	}
	got := run(t, invocation{args: append([]string{"chat", "-c"}, demo...), stdin: "/exit\n", env: env, terminal: true, width: 80})
	if want := "Going on with conversation " + convs[0].ID + "; its last question: What is 17 * 23 + 4?\n"; got.code != 0 || !strings.Contains(got.stderr, want) {
		t.Errorf("want %q\n%s", want, got)
	}
}
