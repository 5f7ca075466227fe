package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/tools/mcp/mcptest"
)

// logRun is a run as `react-agent logs show --json` prints it.
type logRun struct {
	Conversation string `json:"conversation"`
	Status       string `json:"status"`
	Question     string `json:"question"`
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	Protocol     string `json:"protocol"`
	Answer       string `json:"answer"`
	StopReason   string `json:"stop_reason"`
	Usage        struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
	Events []struct {
		Kind string         `json:"kind"`
		Text string         `json:"text"`
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	} `json:"events"`
}

// logSummary is a conversation as `react-agent logs --json` lists it.
type logSummary struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Runs     int    `json:"runs"`
	Status   string `json:"status"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// dataHome returns an empty data directory and the environment that
// makes the binary keep its log there.
func dataHome(t *testing.T) (string, []string) {
	dir := t.TempDir()
	return dir, []string{"XDG_DATA_HOME=" + dir}
}

// mustRun runs the binary and fails t unless it exits 0.
func mustRun(t *testing.T, in invocation) outcome {
	t.Helper()
	got := run(t, in)
	if got.code != 0 {
		t.Fatalf("react-agent %s: exit %d\n%s", strings.Join(in.args, " "), got.code, got)
	}
	return got
}

// listLog returns the conversations `react-agent logs --json` lists with
// the extra arguments.
func listLog(t *testing.T, env []string, args ...string) []logSummary {
	t.Helper()
	got := mustRun(t, invocation{args: append([]string{"logs", "--json", "-n", "100"}, args...), env: env})
	var list []logSummary
	if err := json.Unmarshal([]byte(got.stdout), &list); err != nil {
		t.Fatalf("logs --json is not a JSON list: %v\n%s", err, got)
	}
	return list
}

// showLog returns the runs of a conversation, the latest without id.
func showLog(t *testing.T, env []string, id ...string) []logRun {
	t.Helper()
	got := mustRun(t, invocation{args: append([]string{"logs", "show", "--json"}, id...), env: env})
	var runs []logRun
	if err := json.Unmarshal([]byte(got.stdout), &runs); err != nil {
		t.Fatalf("logs show --json is not a JSON list: %v\n%s", err, got)
	}
	return runs
}

func TestLogsKeepEveryRun(t *testing.T) {
	t.Parallel()
	dir, env := dataHome(t)
	mustRun(t, invocation{args: append(append([]string{"ask", "-q"}, demo...), "What is 17 * 23 + 4?"), env: env})

	got := mustRun(t, invocation{args: []string{"logs", "path"}, env: env})
	if want := filepath.Join(dir, "react-agent", "logs.db") + "\n"; got.stdout != want {
		t.Errorf("logs path = %q, want %q", got.stdout, want)
	}
	list := listLog(t, env)
	if len(list) != 1 || list[0].Question != "What is 17 * 23 + 4?" || list[0].Status != "answered" || list[0].Runs != 1 {
		t.Fatalf("logs lists %+v, want the one answered run", list)
	}
	runs := showLog(t, env, list[0].ID[:4])
	r := runs[0]
	if r.Answer != "17 * 23 + 4 = 395" || r.StopReason != "final_answer" || r.Provider != "replay" || r.Protocol != "text" || r.Usage.TotalTokens != 1820 {
		t.Errorf("the run's record: %+v", r)
	}
	var kinds []string
	for _, e := range r.Events {
		kinds = append(kinds, e.Kind)
	}
	if want := "thought action observation thought action observation thought final"; strings.Join(kinds, " ") != want {
		t.Errorf("events %q, want %q", strings.Join(kinds, " "), want)
	}
	if r.Events[1].Tool != "calculator" || r.Events[1].Args["expression"] != "17 * 23" || r.Events[2].Text != "391" {
		t.Errorf("the first action and observation: %+v %+v", r.Events[1], r.Events[2])
	}

	t.Run("logs show prints the run as the trace did", func(t *testing.T) {
		got := mustRun(t, invocation{args: []string{"logs", "show"}, env: env})
		for _, want := range []string{"· replay · answered\n", "Question: What is 17 * 23 + 4?\n", "[1] Action: calculator {\"expression\":\"17 * 23\"}\n",
			"[1] Observation: 391", "[3] Final Answer: 17 * 23 + 4 = 395", "1820 tokens"} {
			if !strings.Contains(got.stdout, want) {
				t.Errorf("logs show lacks %q\n%s", want, got)
			}
		}
	})
	t.Run("logs lists conversations as a table", func(t *testing.T) {
		got := mustRun(t, invocation{args: []string{"logs"}, env: env})
		if !strings.HasPrefix(got.stdout, "ID ") || !strings.Contains(got.stdout, list[0].ID) || !strings.Contains(got.stdout, "What is 17 * 23 + 4?") {
			t.Errorf("logs:\n%s", got)
		}
	})
	t.Run("filters select conversations", func(t *testing.T) {
		mustRun(t, invocation{args: append(append([]string{"ask", "-q"}, demo...), "What is 17 * 23 + 4, again?"), env: env})
		for _, tt := range []struct {
			args []string
			n    int
		}{
			{nil, 2},
			{[]string{"-q", "again"}, 1},
			{[]string{"-q", "391"}, 2}, // an observation
			{[]string{"-q", "tokyo"}, 0},
			{[]string{"--model", "qwen"}, 0},
			{[]string{"--since", "24h"}, 2},
			{[]string{"--since", time.Now().Add(48 * time.Hour).Format("2006-01-02")}, 0},
			{[]string{"-n", "1"}, 1},
		} {
			if got := listLog(t, env, tt.args...); len(got) != tt.n {
				t.Errorf("logs %q lists %d conversations, want %d", tt.args, len(got), tt.n)
			}
		}
		got := run(t, invocation{args: []string{"logs", "--since", "yesterday"}, env: env})
		if got.code != 2 || !strings.Contains(got.stderr, "24h") {
			t.Errorf("a bad --since: want exit 2 and an example\n%s", got)
		}
	})
	t.Run("logs delete removes a conversation", func(t *testing.T) {
		before := listLog(t, env)
		got := mustRun(t, invocation{args: []string{"logs", "delete", before[0].ID}, env: env})
		if !strings.Contains(got.stderr, "deleted conversation "+before[0].ID) {
			t.Errorf("delete says:\n%s", got)
		}
		if after := listLog(t, env); len(after) != len(before)-1 {
			t.Errorf("%d conversations after deleting one of %d", len(after), len(before))
		}
		got = run(t, invocation{args: []string{"logs", "show", before[0].ID}, env: env})
		if got.code != 1 || !strings.Contains(got.stderr, "not in the log") {
			t.Errorf("showing the deleted conversation: want exit 1 and \"not in the log\"\n%s", got)
		}
	})
}

func TestLogsKeepNoSecrets(t *testing.T) {
	t.Parallel()
	dir, env := dataHome(t)
	const key = "sk-test-secret-0123456789"
	s := modeltest.NewOpenAI(replies(t, "calculator.json"), modeltest.APIKey(key))
	defer s.Close()
	mustRun(t, invocation{args: []string{"ask", "-q", "--provider", "openai", "--base-url", s.URL + "/v1", "--api-key", key,
		"What is 17 * 23 + 4? My key is " + key + " and my proxy http://me:pa55word@proxy.example"}, env: env})
	files, _ := filepath.Glob(filepath.Join(dir, "react-agent", "logs.db*"))
	if len(files) == 0 {
		t.Fatal("no log written")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, secret := range []string{key, "pa55word"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s holds %q", f, secret)
			}
		}
	}
	if r := showLog(t, env)[0]; !strings.Contains(r.Question, "http://me:REDACTED@proxy.example") {
		t.Errorf("question logged as %q", r.Question)
	}
}

func TestContinue(t *testing.T) {
	t.Parallel()
	_, env := dataHome(t)
	s := ollama(t, "calculator.json", modeltest.Repeat())
	ask := []string{"ask", "-q", "--base-url", s.URL}
	got := mustRun(t, invocation{args: append(ask, "What is 17 * 23 + 4?"), env: env})
	if got.stdout != "17 * 23 + 4 = 395\n" {
		t.Fatalf("first answer\n%s", got)
	}
	mustRun(t, invocation{args: append(ask, "-c", "And plus one?"), env: env})
	body, _ := json.Marshal(s.Request(2)) // the second run's first call
	for _, want := range []string{"What is 17 * 23 + 4?", "17 * 23 + 4 = 395", "And plus one?"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the continued run's request lacks %q:\n%s", want, body)
		}
	}
	list := listLog(t, env)
	if len(list) != 1 || list[0].Runs != 2 || list[0].Model != "qwen2.5:7b" {
		t.Fatalf("want one conversation of two runs on qwen2.5:7b, got %+v", list)
	}

	t.Run("a new question starts a new conversation", func(t *testing.T) {
		mustRun(t, invocation{args: append(ask, "Something new?"), env: env})
		body, _ := json.Marshal(s.Request(s.Calls() - 2))
		if strings.Contains(string(body), "And plus one?") {
			t.Errorf("a run without -c was sent the earlier turns:\n%s", body)
		}
		if n := len(listLog(t, env)); n != 2 {
			t.Errorf("%d conversations, want 2", n)
		}
	})
	t.Run("--cid continues a given conversation in chat", func(t *testing.T) {
		calls := s.Calls()
		mustRun(t, invocation{args: []string{"chat", "-q", "--base-url", s.URL, "--cid", list[0].ID[:6]}, stdin: "And minus one?\n", env: env})
		body, _ := json.Marshal(s.Request(calls))
		if !strings.Contains(string(body), "And plus one?") || strings.Contains(string(body), "Something new?") {
			t.Errorf("the chat's request does not carry the earlier turns of %s:\n%s", list[0].ID, body)
		}
		runs := showLog(t, env, list[0].ID)
		if len(runs) != 3 || runs[2].Question != "And minus one?" {
			t.Errorf("the conversation has %d runs, want 3 ending with the chat's question", len(runs))
		}
	})
	t.Run("an unknown --cid is an error", func(t *testing.T) {
		got := run(t, invocation{args: append(ask, "--cid", "nope", "hi"), env: env})
		if got.code != 1 || !strings.Contains(got.stderr, `conversation "nope": not in the log`) {
			t.Errorf("want exit 1 and the ID\n%s", got)
		}
	})
	t.Run("-c with --no-log is a usage error", func(t *testing.T) {
		got := run(t, invocation{args: append(ask, "-c", "--no-log", "hi"), env: env})
		if got.code != 2 {
			t.Errorf("want exit 2\n%s", got)
		}
	})
	t.Run("-c with an empty log starts a conversation", func(t *testing.T) {
		_, env := dataHome(t)
		got := mustRun(t, invocation{args: append(ask, "-c", "What is 17 * 23 + 4?"), env: env})
		if !strings.Contains(got.stderr, "starting one") || len(listLog(t, env)) != 1 {
			t.Errorf("want a note and a new conversation\n%s", got)
		}
	})
}

func TestConcurrentRunsAreAllLogged(t *testing.T) {
	t.Parallel()
	_, env := dataHome(t)
	const n = 4
	var wg sync.WaitGroup
	outcomes := make([]outcome, n)
	for i := range n {
		s := ollama(t, "calculator.json") // one each: a shared script would mix the runs' replies
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = run(t, invocation{args: []string{"ask", "-q", "--base-url", s.URL, fmt.Sprintf("Run %d: what is 17 * 23 + 4?", i)}, env: env})
		}()
	}
	wg.Wait()
	for i, o := range outcomes {
		if o.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, o.code, o)
		}
	}
	list := listLog(t, env)
	if len(list) != n {
		t.Fatalf("%d conversations logged, want %d", len(list), n)
	}
	for _, c := range list {
		runs := showLog(t, env, c.ID)
		if c.Status != "answered" || len(runs) != 1 || len(runs[0].Events) != 5 {
			t.Errorf("conversation %s: %s, %d runs (the first with %d events), want answered with one run of 5 events", c.ID, c.Status, len(runs), len(runs[0].Events))
		}
	}
}

func TestNoLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		env    []string
		config string
	}{
		{"--no-log", []string{"--no-log"}, nil, ""},
		{"REACT_AGENT_NO_LOG", nil, []string{"REACT_AGENT_NO_LOG=true"}, ""},
		{"no-log in the config file", nil, nil, "no-log: true\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" leaves no file behind", func(t *testing.T) {
			dir, env := dataHome(t)
			args := append(append([]string{"ask", "-q"}, demo...), tt.args...)
			if tt.config != "" {
				config := filepath.Join(t.TempDir(), "config.yaml")
				os.WriteFile(config, []byte(tt.config), 0o644)
				args = append(args, "--config", config)
			}
			mustRun(t, invocation{args: append(args, "What is 17 * 23 + 4?"), env: append(env, tt.env...)})
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("the data directory holds %v", entries)
			}
		})
	}
	t.Run("--log-db chooses the file", func(t *testing.T) {
		dir, env := dataHome(t)
		db := filepath.Join(t.TempDir(), "elsewhere.db")
		mustRun(t, invocation{args: append(append([]string{"ask", "-q", "--log-db", db}, demo...), "What is 17 * 23 + 4?"), env: env})
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("the data directory holds %v", entries)
		}
		if n := len(listLog(t, env, "--log-db", db)); n != 1 {
			t.Errorf("%d conversations in %s, want 1", n, db)
		}
	})
}

// TestLogsKeepNoSecretsInArguments runs a model that calls a tool with
// secrets in its arguments, in the shapes the log once let through: a
// token after & in a URL (which JSON writes \u0026), a signature, and
// the secrets of a command line in the question.
func TestLogsKeepNoSecretsInArguments(t *testing.T) {
	t.Parallel()
	dir, env := dataHome(t)
	s := modeltest.NewOpenAI([]string{
		`Thought: fetch it` + "\n" + `Action: http_request` + "\n" +
			`Action Input: {"url": "https://api.example.invalid/v1?a=1&token=qTok3nAmp&sig=qSigAmp77&X-Amz-Signature=fe5f80f77d5fa3be"}`,
		"Final Answer: done",
	})
	defer s.Close()
	secrets := []string{"qTok3nAmp", "qSigAmp77", "fe5f80f77d5fa3be", "curlPass42", "xAuthTok3n", "wJalrXUtnFEMIK7MDENG", "mysqlPw11", "two words", "jsonTok3n"}
	question := `Why does curl -u admin:curlPass42 -H 'X-Auth-Token: xAuthTok3n' fail, with AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG and mysql -u root -pmysqlPw11 shop? ` +
		`The config says password: "a two words c" and {"token": "jsonTok3n"}.`
	mustRun(t, invocation{args: []string{"ask", "-q", "--provider", "openai", "--base-url", s.URL + "/v1", question}, env: env})
	files, _ := filepath.Glob(filepath.Join(dir, "react-agent", "logs.db*"))
	if len(files) == 0 {
		t.Fatal("no log written")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, secret := range secrets {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s holds %q", filepath.Base(f), secret)
			}
		}
	}
	r := showLog(t, env)[0]
	if len(r.Events) < 2 || r.Events[1].Args["url"] != "https://api.example.invalid/v1?a=1&token=REDACTED&sig=REDACTED&X-Amz-Signature=REDACTED" {
		t.Errorf("the action's arguments are logged as %+v", r.Events)
	}
}

// TestLogsSearchFindsAnyWord searches for the words people type, which
// FTS5 would read as syntax or split into phrases.
func TestLogsSearchFindsAnyWord(t *testing.T) {
	t.Parallel()
	_, env := dataHome(t)
	mustRun(t, invocation{args: append(append([]string{"ask", "-q"}, demo...),
		`What is 17 * 23 + 4? Is qwen2.5 better than gpt-4o at 2+2 and 19*29? Send an e-mail, don't fetch http://x "quoted"`), env: env})
	mustRun(t, invocation{args: append(append([]string{"ask", "-q"}, demo...), "What is 17 * 23 + 4? Something else"), env: env})
	for _, q := range []string{"qwen2.5", "gpt-4o", "2+2", "e-mail", "don't", "19*29", "http://x", `"quoted"`, `quoted"`, "AND", "(19*29)"} {
		got := run(t, invocation{args: []string{"logs", "--json", "-q", q}, env: env})
		var list []logSummary
		json.Unmarshal([]byte(got.stdout), &list)
		if got.code != 0 || len(list) != 1 || !strings.Contains(list[0].Question, "Is qwen2.5") {
			t.Errorf("logs -q %s: want the one conversation\n%s", q, got)
		}
	}
	got := run(t, invocation{args: []string{"logs", "-q", "?"}, env: env})
	if got.code != 2 || !strings.Contains(got.stderr, "no word or number") {
		t.Errorf("logs -q ?: want exit 2 and what is wrong\n%s", got)
	}
}

// TestContinueKeepsTheConversationsModel continues a conversation held
// with another provider, model and server than the defaults, as the
// issue reported: the follow-up went to Ollama's default model.
func TestContinueKeepsTheConversationsModel(t *testing.T) {
	t.Parallel()
	dir, env := dataHome(t)
	const key = "sk-continue-secret-0123456789"
	s := modeltest.NewOpenAI(replies(t, "calculator.json"), modeltest.Repeat(), modeltest.APIKey(key))
	defer s.Close()
	env = append(env, "OPENAI_API_KEY="+key)
	mustRun(t, invocation{args: []string{"ask", "-q", "--provider", "openai", "--base-url", s.URL + "/v1", "--model", "gpt-fake", "What is 17 * 23 + 4?"}, env: env})
	modelOf := func(n int) any { return s.Request(n)["model"] }

	got := mustRun(t, invocation{args: []string{"ask", "-q", "-c", "And plus one?"}, env: env})
	if s.Calls() != 4 || modelOf(2) != "gpt-fake" {
		t.Fatalf("-c did not go on with gpt-fake on the conversation's server: %d calls, model %v\n%s", s.Calls(), modelOf(2), got)
	}
	body, _ := json.Marshal(s.Request(2))
	if !strings.Contains(string(body), "17 * 23 + 4 = 395") {
		t.Errorf("the continued run's request lacks the earlier answer:\n%s", body)
	}
	list := listLog(t, env)
	if len(list) != 1 || list[0].Runs != 2 || list[0].Model != "gpt-fake" {
		t.Fatalf("logs lists %+v, want one conversation of two runs on gpt-fake", list)
	}
	id := list[0].ID

	t.Run("the environment and the config file do not replace the conversation's model", func(t *testing.T) {
		config := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(config, []byte("provider: ollama\nmodel: from-config\nbase-url: http://127.0.0.1:9\n"), 0o644)
		calls := s.Calls()
		mustRun(t, invocation{args: []string{"ask", "-q", "--config", config, "--cid", id[:6], "And plus two?"},
			env: append(env, "REACT_AGENT_MODEL=from-env")})
		if s.Calls() != calls+2 || modelOf(calls) != "gpt-fake" {
			t.Fatalf("the run went elsewhere: model %v", modelOf(calls))
		}
	})
	t.Run("a model on the command line wins", func(t *testing.T) {
		calls := s.Calls()
		mustRun(t, invocation{args: []string{"chat", "-q", "--cid", id, "-m", "gpt-other"}, stdin: "And plus three?\n", env: env})
		if modelOf(calls) != "gpt-other" {
			t.Fatalf("model %v, want gpt-other on the conversation's server", modelOf(calls))
		}
		if runs := showLog(t, env, id); runs[len(runs)-1].Model != "gpt-other" {
			t.Errorf("the run is logged on %q", runs[len(runs)-1].Model)
		}
	})
	t.Run("another provider on the command line starts from its own model and server", func(t *testing.T) {
		o := ollama(t, "calculator.json")
		mustRun(t, invocation{args: []string{"ask", "-q", "--cid", id, "--provider", "ollama", "--base-url", o.URL, "And plus four?"}, env: env})
		body, _ := json.Marshal(o.Request(0))
		if o.Request(0)["model"] != "qwen2.5:7b" || !strings.Contains(string(body), "And plus one?") {
			t.Errorf("want Ollama's default model with the conversation's turns:\n%s", body)
		}
	})
	t.Run("the key is never logged", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(dir, "react-agent", "logs.db*"))
		for _, f := range files {
			if data, _ := os.ReadFile(f); strings.Contains(string(data), key) {
				t.Errorf("%s holds the API key", filepath.Base(f))
			}
		}
	})
}

// TestLogsKeepNoMCPSecrets gives MCP servers a header and an environment
// variable that hold secrets: the log keeps neither, wherever they come
// up, and keeps the values that are no secret.
func TestLogsKeepNoMCPSecrets(t *testing.T) {
	t.Parallel()
	servers := filepath.Join(mcptest.ReferenceServers(t), "server-everything", "dist", "index.js")
	const header, env = "mcpHeaderTok3n", "ghEnvTok3n1234"
	server := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	mcpsdk.AddTool(server, &mcpsdk.Tool{Name: "ping", Description: "Answers pong."},
		func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "pong"}}}, nil, nil
		})
	handler := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Team-Key") != header {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	config := writeConfig(t, "servers.json", fmt.Sprintf(`{"mcpServers": {
		"remote": {"url": %q, "headers": {"X-Team-Key": %q}},
		"everything": {"command": "node", "args": [%q], "env": {"GITHUB_TOKEN": %q, "NOTES_DIR": "plain-notes-dir-kept"}}}}`,
		srv.URL, header, servers, env))
	dir, home := dataHome(t)
	mustRun(t, invocation{args: append(append([]string{"ask", "-q", "--mcp-config", config}, demo...),
		"What is 17 * 23 + 4? Not "+header+" nor "+env+" but plain-notes-dir-kept"), env: home})
	files, _ := filepath.Glob(filepath.Join(dir, "react-agent", "logs.db*"))
	var all []byte
	for _, f := range files {
		data, _ := os.ReadFile(f)
		all = append(all, data...)
	}
	for _, secret := range []string{header, env} {
		if strings.Contains(string(all), secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
	if !strings.Contains(string(all), "plain-notes-dir-kept") {
		t.Error("the log lost a value that is no secret, or the scan proves nothing")
	}
}

// TestLogsListsAllWithZero logs twelve runs: logs lists ten, -n 0 lists
// all of them as llm does, and logs list is logs.
func TestLogsListsAllWithZero(t *testing.T) {
	t.Parallel()
	_, env := dataHome(t)
	for range 12 {
		mustRun(t, invocation{args: []string{"-q", "--provider", "replay", "--replay", root + "/testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"}, env: env})
	}
	count := func(args ...string) int {
		got := mustRun(t, invocation{args: append([]string{"logs", "--json"}, args...), env: env})
		var list []logSummary
		if err := json.Unmarshal([]byte(got.stdout), &list); err != nil {
			t.Fatalf("logs %v --json is not a JSON list: %v\n%s", args, err, got)
		}
		return len(list)
	}
	if n := count(); n != 10 {
		t.Errorf("logs lists %d, want the latest 10", n)
	}
	if n := count("-n", "0"); n != 12 {
		t.Errorf("logs -n 0 lists %d, want all 12", n)
	}
	if n := count("list", "-n", "3"); n != 3 {
		t.Errorf("logs list -n 3 lists %d, want 3", n)
	}
}

// TestTheLogSaysWhatItNeeds searches the log for nothing it holds,
// deletes without an ID, completes IDs, and prints the latest answer
// alone.
func TestTheLogSaysWhatItNeeds(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "logs.db")
	env := []string{"REACT_AGENT_LOG_DB=" + db}
	if got := run(t, invocation{args: append(append([]string{"-q"}, demo...), "What is 17 * 23 + 4?"), env: env}); got.code != 0 {
		t.Fatalf("the run failed\n%s", got)
	}
	got := run(t, invocation{args: []string{"logs", "-q", "tokyo"}, env: env})
	if got.code != 0 || got.stdout != "" || !strings.Contains(got.stderr, `no conversation in the log matches -q "tokyo"`) {
		t.Errorf("logs -q with no match: want it said on stderr\n%s", got)
	}
	got = run(t, invocation{args: []string{"logs", "delete"}, env: env})
	if got.code != exitUsage || !strings.Contains(got.stderr, "logs delete needs the ID of the conversation to delete") {
		t.Errorf("logs delete without an ID: want what it needs\n%s", got)
	}
	list := run(t, invocation{args: []string{"logs", "--json"}, env: env})
	var convs []struct{ ID string }
	if err := json.Unmarshal([]byte(list.stdout), &convs); err != nil || len(convs) != 1 {
		t.Fatalf("logs --json: %v\n%s", err, list)
	}
	for _, sub := range []string{"show", "delete"} {
		got = run(t, invocation{args: []string{"__complete", "logs", sub, ""}, env: env})
		if !strings.HasPrefix(got.stdout, convs[0].ID+"\tWhat is 17 * 23 + 4?\n") {
			t.Errorf("logs %s <Tab> does not offer the ID\n%s", sub, got)
		}
	}
	for _, args := range [][]string{{"logs", "-r"}, {"logs", "show", "--answer", convs[0].ID[:4]}} {
		if got = run(t, invocation{args: args, env: env}); got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" {
			t.Errorf("%s: want the answer alone\n%s", strings.Join(args, " "), got)
		}
	}
}

// TestTheLatestAnswerOfAFailedRunSaysItFailed: logs -r after a run that
// failed says so, and how to see it; after a later run failed in a
// conversation that had an answer, the answer comes with a word that it
// is not the latest run's.
func TestTheLatestAnswerOfAFailedRunSaysItFailed(t *testing.T) {
	t.Parallel()
	env := []string{"REACT_AGENT_LOG_DB=" + filepath.Join(t.TempDir(), "logs.db")}
	run(t, invocation{args: []string{"-q", "--provider", "ollama", "--base-url", "http://127.0.0.1:9", "hi there"}, env: env})
	got := run(t, invocation{args: []string{"logs", "-r"}, env: env})
	if got.code != 1 || got.stdout != "" || !strings.Contains(got.stderr, " failed: ollama: ") || !strings.Contains(got.stderr, "; react-agent logs show ") {
		t.Errorf("want that the latest run failed, why, and how to see it\n%s", got)
	}
	run(t, invocation{args: append(append([]string{"-q"}, demo...), "What is 17 * 23 + 4?"), env: env})
	run(t, invocation{args: append(append([]string{"-q", "-c"}, demo...), "And then?"), env: env})
	got = run(t, invocation{args: []string{"logs", "-r"}, env: env})
	if got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" || !strings.Contains(got.stderr, " failed: replay: ") || !strings.Contains(got.stderr, "the answer before it follows") {
		t.Errorf("want the answer before the failed run, and a word that it is not the latest run's\n%s", got)
	}
}

// TestTheListOfConversationsFitsTheTerminal: logs at a terminal of 80
// columns cuts a long question to fit it; in a pipe, it keeps more.
func TestTheListOfConversationsFitsTheTerminal(t *testing.T) {
	t.Parallel()
	env := []string{"REACT_AGENT_LOG_DB=" + filepath.Join(t.TempDir(), "logs.db")}
	question := "What is 17 * 23 + 4, and could you please say it in many words, slowly?"
	run(t, invocation{args: append(append([]string{"-q"}, demo...), question), env: env})
	got := run(t, invocation{args: []string{"logs"}, env: env, terminal: true, width: 80})
	for _, line := range strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n >= 80 {
			t.Errorf("a line of %d at 80 columns:\n%s", n, got.stdout)
		}
	}
	if piped := run(t, invocation{args: []string{"logs"}, env: env}); len(piped.stdout) <= len(got.stdout) {
		t.Errorf("in a pipe, the list keeps no more than at 80 columns:\n%s", piped.stdout)
	}
}

// TestALogNamesNoPlaceholderModel runs a question against a llama-server
// that does not answer, with no model named: the log shows the provider
// alone, as no model was asked for, not llama-server's placeholder
// "default"; with a model named, that model.
func TestALogNamesNoPlaceholderModel(t *testing.T) {
	t.Parallel()
	_, env := dataHome(t)
	for _, flags := range [][]string{nil, {"-m", "toy"}} {
		in := invocation{args: append(append([]string{"-q", "--provider", "llamacpp", "--base-url", "http://127.0.0.1:9"}, flags...), "What is 2+2?"), env: env}
		if got := in.run(t); got.code != exitFailure {
			t.Fatalf("the run did not fail\n%s", got)
		}
	}
	list := listLog(t, env)
	if len(list) != 2 || list[0].Model != "toy" || list[1].Model != "" || list[1].Provider != "llamacpp" {
		t.Errorf("logs lists %+v", list)
	}
	if got := mustRun(t, invocation{args: []string{"logs"}, env: env}); strings.Contains(got.stdout, "default") {
		t.Errorf("the list shows a placeholder model:\n%s", got.stdout)
	}
}

// TestLogsDeleteAsksAboutTheStartOfAnID deletes conversations by the
// start of their IDs, which a slip would make another's: on a terminal
// the person is asked, showing the conversation; without one, the
// deletion is refused unless --yes; the whole ID deletes unasked.
func TestLogsDeleteAsksAboutTheStartOfAnID(t *testing.T) {
	t.Parallel()
	_, env := dataHome(t)
	for range 4 {
		mustRun(t, invocation{args: append(append([]string{"ask", "-q"}, demo...), "What is 17 * 23 + 4?"), env: env})
	}
	var ids []string
	for _, s := range listLog(t, env) {
		ids = append(ids, s.ID)
	}
	exists := func(id string) bool {
		for _, s := range listLog(t, env) {
			if s.ID == id {
				return true
			}
		}
		return false
	}
	tests := []struct {
		name     string
		which    int  // the conversation to delete, in the list
		prefix   bool // the start of its ID, not the whole
		flags    []string
		terminal bool
		stdin    string
		code     int
		says     string
		deleted  bool
	}{
		{"the start of an ID without a terminal is refused", 0, true, nil, false, "", exitUsage,
			"is the start of conversation %s, \"What is 17 * 23 + 4?\" (1 run); with no terminal to ask on, pass the whole ID, or --yes to delete it", false},
		{"the start of an ID on a terminal is asked about, and kept on no", 1, true, nil, true, "n\n", exitFailure,
			"Delete conversation %s, \"What is 17 * 23 + 4?\" (1 run)? [y/N] react-agent: conversation %[1]s is kept", false},
		{"the start of an ID on a terminal is deleted on yes", 1, true, nil, true, "y\n", 0, "deleted conversation %s", true},
		{"the start of an ID with --yes is deleted unasked", 2, true, []string{"--yes"}, false, "", 0, "deleted conversation %s", true},
		{"the whole ID is deleted unasked", 3, false, nil, false, "", 0, "deleted conversation %s", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := ids[tt.which]
			arg := id
			if tt.prefix {
				arg = id[:6]
			}
			in := invocation{args: append([]string{"logs", "delete", arg}, tt.flags...), env: env, terminal: tt.terminal, stdin: tt.stdin, width: 80}
			got := in.run(t)
			says := fmt.Sprintf(tt.says, id)
			if got.code != tt.code || !strings.Contains(got.stderr, says) || exists(id) == tt.deleted {
				t.Errorf("want exit %d, %q, deleted %v\n%s", tt.code, says, tt.deleted, got)
			}
		})
	}
}
