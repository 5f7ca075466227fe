package cli

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// The keys and passwords of the user's setup, followed to everywhere they
// can reach: each request and redirect, the screen, JSON, errors, and the
// command line that a tool's process reads in /proc.

// keysSent returns the requests among arrived that carried one of keys,
// as a bearer token or in a URL's user information (basic auth).
func keysSent(arrived []modeltest.Arrival, keys ...string) []string {
	var sent []string
	for _, a := range arrived {
		auth := a.Header.Get("Authorization")
		if basic, ok := strings.CutPrefix(auth, "Basic "); ok {
			if b, err := base64.StdEncoding.DecodeString(basic); err == nil {
				auth = string(b)
			}
		}
		for _, k := range keys {
			if k != "" && strings.Contains(auth, k) {
				sent = append(sent, fmt.Sprintf("%s %s with %q", a.Method, a.Path, k))
			}
		}
	}
	return sent
}

// evalSet writes a question set of one question, and returns its path.
func evalSet(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "set.jsonl")
	if err := os.WriteFile(path, []byte(`{"id": "sum", "question": "What is 2 + 2?", "expect": "4"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAServerFoundGetsNoKeyMeantForAnother sets OPENAI_API_KEY and points
// react-agent at a server by --base-url alone: a vLLM, found by its
// /v1/models, and an OpenAI-compatible server whose /v1/models asks for a
// key. Once, both got the key of OPENAI_API_KEY on their next requests,
// from ask, models, eval and TAB completion of -m alike. Now they get
// none; a key given for the server (--api-key, REACT_AGENT_API_KEY) they
// get, and so does a server whose provider the user chose; and a server
// that asks for a key is told of how to give it one.
func TestAServerFoundGetsNoKeyMeantForAnother(t *testing.T) {
	const envKey = "k3y-of-openai-in-the-environment"
	const given = "k3y-given-for-this-server"
	env := []string{"OPENAI_API_KEY=" + envKey}
	uses := map[string]func(url string) []string{
		"ask": func(url string) []string {
			return []string{"ask", "-q", "--no-log", "--base-url", url, "-m", "m", "What is 2 + 2?"}
		},
		"models":     func(url string) []string { return []string{"models", "--base-url", url} },
		"completion": func(url string) []string { return []string{"__complete", "ask", "--base-url", url, "-m", ""} },
		"eval":       func(url string) []string { return []string{"eval", "--models", "m@" + url, evalSet(t)} },
	}
	for _, server := range []struct {
		name  string
		start func() *modeltest.Server
	}{
		{"vLLM", func() *modeltest.Server {
			return modeltest.NewVLLM([]string{"Thought: done\nFinal Answer: 4"}, modeltest.Repeat(), modeltest.Model("m"))
		}},
		{"a server that asks for a key", func() *modeltest.Server {
			return modeltest.NewOpenAI([]string{"Thought: done\nFinal Answer: 4"}, modeltest.Repeat(), modeltest.Model("m"), modeltest.APIKey(given))
		}},
	} {
		for use, args := range uses {
			t.Run(server.name+", "+use, func(t *testing.T) {
				s := server.start()
				defer s.Close()
				got := run(t, invocation{args: args(s.URL), env: env})
				if sent := keysSent(s.Arrived(), envKey); len(sent) > 0 {
					t.Errorf("the key of OPENAI_API_KEY reached a server found: %q\n%s", sent, got)
				}
				if len(s.Arrived()) == 0 {
					t.Errorf("nothing reached the server\n%s", got)
				}
				if server.name == "a server that asks for a key" && use == "ask" &&
					!strings.Contains(got.stderr, "pass --api-key (or set REACT_AGENT_API_KEY), or --provider openai to send OPENAI_API_KEY") {
					t.Errorf("a server that asks for a key: want it said how to give it one\n%s", got)
				}
			})
		}
		t.Run(server.name+", a key given for it", func(t *testing.T) {
			for _, how := range [][]string{{"--api-key", given}, {"REACT_AGENT_API_KEY=" + given}} {
				s := server.start()
				defer s.Close()
				in := invocation{args: append(uses["ask"](s.URL), how...), env: env}
				if strings.HasPrefix(how[0], "REACT_AGENT") {
					in = invocation{args: uses["ask"](s.URL), env: append(slices.Clone(env), how...)}
				}
				got := run(t, in)
				if got.code != 0 || len(keysSent(s.Arrived(), given)) == 0 || len(keysSent(s.Arrived(), envKey)) > 0 {
					t.Errorf("%s: want the key given sent, and no other\n%s", how[0], got)
				}
			}
		})
	}
	t.Run("a provider chosen gets its variable's key", func(t *testing.T) {
		s := modeltest.NewVLLM([]string{"Thought: done\nFinal Answer: 4"}, modeltest.Model("m"))
		defer s.Close()
		got := run(t, invocation{args: []string{"ask", "-q", "--no-log", "--provider", "vllm", "--base-url", s.URL, "-m", "m", "What is 2 + 2?"}, env: env})
		if got.code != 0 || len(keysSent(s.Arrived(), envKey)) == 0 {
			t.Errorf("want the key of OPENAI_API_KEY sent to the provider chosen\n%s", got)
		}
	})
}

// TestAPasswordInEvalsModelIsTheServers gives eval a model whose server's
// URL holds a password with "@" and ":" in it. Once, the model was split
// at the last "@", inside the password: the whole became the model's name,
// sent with the key to the provider's default address, and the table,
// --json and the errors printed the password. Now the request goes to
// the server of the URL, with its user and password, and the table, the
// failures, --json and an error show user:***@host.
func TestAPasswordInEvalsModelIsTheServers(t *testing.T) {
	const password = "hunter2@x:y"
	s := modeltest.NewOpenAI([]string{"Thought: done\nFinal Answer: 5"}, modeltest.Repeat())
	defer s.Close()
	host := strings.TrimPrefix(s.URL, "http://")
	given := "openai:m@http://bob:" + password + "@" + host + "/v1"
	shown := "openai:m@http://bob:***@" + host + "/v1"
	set := evalSet(t)
	for _, args := range [][]string{
		{"eval", "--failures", "--models", given, set},
		{"eval", "--json", "--models", given, set},
		{"eval", "--models", "openai:m@http://bob:" + password + "@127.0.0.1:9/v1", set},
	} {
		// Where a model's URL is not found, its provider's default
		// address is asked: loopback here, not OpenAI.
		got := run(t, invocation{args: args, env: []string{"OPENAI_BASE_URL=http://127.0.0.1:9/v1"}})
		what := strings.Join(args[:len(args)-1], " ")
		if strings.Contains(got.stdout+got.stderr, "hunter2") {
			t.Errorf("%s: the password is shown\n%s", what, got)
		}
		if !strings.Contains(got.stdout+got.stderr, "bob:***@") {
			t.Errorf("%s: the server is not shown as bob:***@host\n%s", what, got)
		}
		if slices.Contains(args, given) && !strings.Contains(got.stdout, shown) {
			t.Errorf("%s: the model is not shown as %s\n%s", what, shown, got)
		}
	}
	if s.Calls() != 2 || len(keysSent(s.Arrived(), "bob:"+password)) != len(s.Arrived()) {
		t.Errorf("the server got %d questions, not 2, or not each with the URL's user and password: %v", s.Calls(), s.Arrived())
	}
}

// TestPasswordsInURLsAreHiddenFromToolProcesses has the model run a
// shell command that reads the command line of react-agent in
// /proc/$PPID/cmdline and sends what it found back reversed, which
// redaction cannot recognise: once, the passwords of --base-url,
// --search-url and eval's --models were there to read, where --api-key
// was overwritten. Now the model's next request holds none of them.
func TestPasswordsInURLsAreHiddenFromToolProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("reading a parent's arguments this way needs /proc")
	}
	look := `tr '\0' '\n' </proc/$PPID/cmdline | grep -o 'pw-[a-z]*' | sort -u | rev`
	passwords := []string{"pw-base", "pw-search", "pw-models"}
	for _, use := range []string{"ask", "eval"} {
		t.Run(use, func(t *testing.T) {
			s := modeltest.NewOllama([]string{
				"Thought: I will look for passwords.\nAction: shell\nAction Input: " + jsonString(t, map[string]string{"command": look}),
				"Thought: Done.\nFinal Answer: 4",
			}, modeltest.Repeat())
			t.Cleanup(s.Close)
			host := strings.TrimPrefix(s.URL, "http://")
			args := []string{"ask", "-q", "--no-log", "--allow-shell", "--yes", "--base-url", "http://me:pw-base@" + host,
				"--search-engine", "searxng", "--search-url=http://me:pw-search@127.0.0.1:9", "Find the passwords"}
			if use == "eval" {
				args = []string{"eval", "--allow-shell", "--yes", "--models", "ollama:m@http://me:pw-models@" + host, evalSet(t)}
			}
			got := run(t, invocation{args: args})
			if s.Calls() != 2 {
				t.Fatalf("the model was called %d times, not 2\n%s", s.Calls(), got)
			}
			sent := jsonString(t, s.Request(1))
			for _, pw := range passwords {
				reversed := []rune(pw)
				slices.Reverse(reversed)
				if strings.Contains(sent, string(reversed)) {
					t.Errorf("%s reached the model through /proc:\n%s", pw, sent)
				}
			}
		})
	}
}

// TestAModelCallIsNotRedirectedWithItsKey answers a model call with a 307
// to another port of the same host, and with a redirect within the
// server that leads there in a second step: Go's client follows both with
// the key (it compares host names only), and the server there got it.
// Now it gets nothing, and the error says where the call was sent and
// what to do.
func TestAModelCallIsNotRedirectedWithItsKey(t *testing.T) {
	const key = "k3y-for-the-first-server-only"
	there := modeltest.NewOpenAI([]string{"Thought: done\nFinal Answer: 4"}, modeltest.Repeat())
	defer there.Close()
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/hop"); ok {
			http.Redirect(w, r, "/away"+rest, http.StatusTemporaryRedirect) // within the server, first
			return
		}
		http.Redirect(w, r, there.URL+strings.TrimPrefix(r.URL.Path, "/away"), http.StatusTemporaryRedirect)
	}))
	defer away.Close()
	for _, c := range []struct {
		name string
		args []string
		env  []string
	}{
		{"with --api-key", []string{"--provider", "openai", "--base-url", away.URL + "/away/v1", "--api-key", key}, nil},
		{"with OPENAI_API_KEY, in two steps", []string{"--provider", "openai", "--base-url", away.URL + "/hop/v1"}, []string{"OPENAI_API_KEY=" + key}},
		{"with a password in the URL", []string{"--provider", "openai", "--base-url", "http://me:" + key + "@" + strings.TrimPrefix(away.URL, "http://") + "/away/v1"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := run(t, invocation{args: append(append([]string{"ask", "-q", "--no-log", "-m", "m"}, c.args...), "What is 2 + 2?"), env: c.env})
			if sent := keysSent(there.Arrived(), key); len(sent) > 0 {
				t.Errorf("the key went with the redirect: %q", sent)
			}
			want := "redirected the call to " + there.URL + "/v1/chat/completions, which is not followed"
			if got.code != 1 || !strings.Contains(got.stderr, want) || !strings.Contains(got.stderr, "check --base-url") || strings.Contains(got.stderr, key) {
				t.Errorf("want an error that says %q and what to do, without the key\n%s", want, got)
			}
		})
	}
}

// unsolicited is a server of the OpenAI API in front of s that, after the
// first reply, sends on the same connection what nobody asked for: a
// response that echoes the key it was sent and writes escape sequences.
// Go's client logs that through the standard logger, quoting 4 KiB of it.
func unsolicited(t *testing.T, s *modeltest.Server) *httptest.Server {
	var answered atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequest(r.Method, s.URL+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if r.URL.Path != "/v1/chat/completions" || answered.Swap(true) {
			maps.Copy(w.Header(), resp.Header)
			w.WriteHeader(resp.StatusCode)
			w.Write(body)
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nX-Echo: %s\r\n\r\n\x1b]0;pwned\x07\x1b[31mred", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		buf.Flush()
		bufio.NewReader(conn).ReadByte() // until the client hangs up
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestALibraryLogShowsNoServerBytes has a server send a response nobody
// asked for, echoing the key and escape sequences, after its first reply:
// Go's HTTP client logs "Unsolicited response received on idle HTTP
// channel starting with …" through the standard logger, which once went
// to stderr as it was, key included, under -q and --json too. Now it is
// shown only with -v, with the key redacted.
func TestALibraryLogShowsNoServerBytes(t *testing.T) {
	const key = "k3y-echoed-by-a-hostile-server"
	for _, flags := range [][]string{{"-q"}, {"--json"}, {}, {"-v"}} {
		t.Run(strings.Join(append([]string{"ask"}, flags...), " "), func(t *testing.T) {
			s := modeltest.NewOpenAI([]string{
				"Thought: I will add.\nAction: calculator\nAction Input: {\"expression\": \"2 + 2\"}",
				"Thought: done\nFinal Answer: 4",
			})
			defer s.Close()
			srv := unsolicited(t, s)
			args := append(append([]string{"ask", "--no-log", "--provider", "openai", "--base-url", srv.URL + "/v1", "--api-key", key, "-m", "m"}, flags...), "What is 2 + 2?")
			got := run(t, invocation{args: args})
			if got.code != 0 || s.Calls() != 2 {
				t.Fatalf("want the answer after two calls, got %d\n%s", s.Calls(), got)
			}
			if strings.Contains(got.stderr, key) || strings.Contains(got.stderr, "\x1b]0;") {
				t.Errorf("stderr shows what the server sent, raw or with the key:\n%q", got.stderr)
			}
			verbose := len(flags) == 1 && flags[0] == "-v"
			if noted := strings.Contains(got.stderr, "Unsolicited response"); noted != verbose {
				t.Errorf("the library's note is shown: %v, want %v\n%q", noted, verbose, got.stderr)
			}
			if verbose && !strings.Contains(got.stderr, "react-agent: a library's log: Unsolicited response received on idle HTTP channel starting with") {
				t.Errorf("the note does not read as one of a library's log:\n%q", got.stderr)
			}
		})
	}
}
