package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// pathState is a path's mode and, for a regular file, its content.
type pathState struct {
	mode    os.FileMode
	content string
}

func statePath(t *testing.T, path string) pathState {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := pathState{mode: fi.Mode()}
	if fi.Mode().IsRegular() {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		st.content = string(b)
	}
	return st
}

// TestLogDBLeavesWhatIsNotALogAsItWas gives the log's path, as --log-db,
// REACT_AGENT_LOG_DB and the config file give it, to things that are not
// logs: a text file of notes, a FIFO and (as root) a character device made
// like /dev/null. Once, --log-db /dev/null left /dev/null at mode 0600
// with a /dev/null-journal beside it, and a 0644 text file at 0600. Each
// is now left as it was, with nothing made beside it; ask runs unlogged
// and says why, logs fails and says why.
func TestLogDBLeavesWhatIsNotALogAsItWas(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	kinds := []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"a text file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("groceries: milk, eggs\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a file that is not an SQLite database"},
		{"a FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a named pipe (FIFO)"},
		{"a character device", func(t *testing.T, path string) {
			if os.Getuid() != 0 {
				t.Skip("making a device takes root")
			}
			if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's numbers
				t.Fatal(err)
			}
			os.Chmod(path, 0o666)
		}, "is a character device"},
	}
	for _, k := range kinds {
		for _, how := range []string{"--log-db", "REACT_AGENT_LOG_DB", "config"} {
			t.Run(k.name+" through "+how, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "notes.txt")
				k.make(t, path)
				before := statePath(t, path)
				_, env := dataHome(t)
				var flags []string
				switch how {
				case "--log-db":
					flags = []string{"--log-db", path}
				case "REACT_AGENT_LOG_DB":
					env = append(env, "REACT_AGENT_LOG_DB="+path)
				case "config":
					config := filepath.Join(t.TempDir(), "config.yaml")
					os.WriteFile(config, []byte(fmt.Sprintf("log-db: %q\n", path)), 0o600)
					flags = []string{"--config", config}
				}
				ask := run(t, invocation{args: append(append(append([]string{"ask", "-q"}, demoAbs(t)...), flags...), "What is 17 * 23 + 4?"), env: env})
				if ask.code != 0 || !strings.Contains(ask.stderr, "not logging this run") || !strings.Contains(ask.stderr, k.want) {
					t.Errorf("ask: want the answer, and a word that the run is not logged because the path %s\n%s", k.want, ask)
				}
				logs := run(t, invocation{args: append([]string{"logs"}, flags...), env: env})
				if logs.code == 0 || !strings.Contains(logs.stderr, k.want) {
					t.Errorf("logs: want a failure saying the path %s\n%s", k.want, logs)
				}
				if after := statePath(t, path); after != before {
					t.Errorf("the path went from %v to %v", before, after)
				}
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					if e.Name() != "notes.txt" {
						t.Errorf("%s was made beside the path", e.Name())
					}
				}
			})
		}
	}
}

// TestShellConfirmationShowsNoInvisibleCharacter has the model ask the
// shell for "cd safe<c>; touch MARK", with c each character that once
// hid in a confirmation: "cd safe<U+200B>; touch MARK" showed as
// "cd safe; touch MARK", and after y the cd failed and MARK landed in the
// working folder. On a terminal, nobody is asked to confirm it, the
// refusal names the character, nothing runs, and the screen shows no
// invisible character.
func TestShellConfirmationShowsNoInvisibleCharacter(t *testing.T) {
	for _, r := range []rune{'\u200B', '\u200E', '\u200F', '\u061C', '\u2060', '\u00AD', '\uFEFF', '\u180E', '\U000E0041', '\u2066'} {
		t.Run(fmt.Sprintf("%U", r), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "safe"), 0o755); err != nil {
				t.Fatal(err)
			}
			command := fmt.Sprintf(`cd safe%s; touch MARK`, string(r))
			s := modeltest.NewOllama([]string{
				"Thought: I will mark the folder.\nAction: shell\nAction Input: " + jsonString(t, map[string]string{"command": command}),
				"Thought: The shell refused it.\nFinal Answer: not marked",
			})
			t.Cleanup(s.Close)
			term := startTerminal(t, invocation{args: []string{"ask", "--allow-shell", "--base-url", s.URL, "Mark the folder"}, env: []string{"NO_COLOR=1"}, dir: dir})
			code := term.wait()
			screen := term.text()
			if code != 0 || strings.Contains(screen, "[y/N") {
				t.Errorf("exit %d; want no question asked:\n%q", code, screen)
			}
			if want := fmt.Sprintf(" character %U, which would not show as written", r); !strings.Contains(screen, want) {
				t.Errorf("the refusal does not say %q:\n%q", want, screen)
			}
			if strings.ContainsRune(screen, r) {
				t.Errorf("the terminal received %U:\n%q", r, screen)
			}
			for _, p := range []string{filepath.Join(dir, "MARK"), filepath.Join(dir, "safe", "MARK")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("the command ran: %s exists", p)
				}
			}
		})
	}
}

// jsonString is v in JSON.
func jsonString(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// asNobody makes cmd run as the user nobody when the tests run as root,
// whom no process of the user's can hide its /proc from, and returns the
// environment that gives it a home of its own; as another user it changes
// nothing. The binary's folder is opened to nobody.
func asNobody(t *testing.T, cmd *exec.Cmd) []string {
	t.Helper()
	if os.Getuid() != 0 {
		return nil
	}
	const nobody = 65534
	home, err := os.MkdirTemp("", "react-agent-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	for _, dir := range []string{home, filepath.Dir(binary)} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	cmd.Dir = home
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".data")}
}

// TestToolProcessesCannotReadTheKeys has the model run a shell command
// that looks for API keys everywhere a child of react-agent could: its own
// environment, and its parent's environment and arguments in /proc; it
// sends what it found back reversed, which redaction cannot recognise.
// Once, `echo $OPENAI_API_KEY | rev` gave the model every key. Now the
// model's next request holds none of them; with --pass-env, it holds
// the variable passed.
func TestToolProcessesCannotReadTheKeys(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("reading a parent's environment this way needs /proc")
	}
	keys := map[string]string{
		"OPENAI_API_KEY":      "sk-openai" + strings.Repeat("a", 24),
		"ANTHROPIC_API_KEY":   "sk-anthropic" + strings.Repeat("b", 24),
		"GOOGLE_API_KEY":      "sk-google" + strings.Repeat("c", 24),
		"REACT_AGENT_API_KEY": "sk-agentenv" + strings.Repeat("d", 24),
		"--api-key":           "sk-agentflag" + strings.Repeat("e", 24),
		"GITHUB_TOKEN":        "sk-github" + strings.Repeat("f", 24),
	}
	look := `{ env; tr '\0' '\n' </proc/$PPID/environ; tr '\0' '\n' </proc/$PPID/cmdline; } 2>/dev/null | grep -o 'sk-[a-z]*' | sort -u | rev`
	for _, pass := range []bool{false, true} {
		t.Run(fmt.Sprintf("with --pass-env %v", pass), func(t *testing.T) {
			s := modeltest.NewOllama([]string{
				"Thought: I will look for keys.\nAction: shell\nAction Input: " + jsonString(t, map[string]string{"command": look}),
				"Thought: Done.\nFinal Answer: looked",
			})
			t.Cleanup(s.Close)
			args := []string{"ask", "-q", "-n", "--allow-shell", "--yes", "--base-url", s.URL, "--api-key", keys["--api-key"]}
			if pass {
				args = append(args, "--pass-env", "GITHUB_TOKEN")
			}
			in := invocation{args: append(args, "Find the keys")}
			for k, v := range keys {
				if !strings.HasPrefix(k, "-") {
					in.env = append(in.env, k+"="+v)
				}
			}
			cmd := command(t, in)
			cmd.Env = append(cmd.Env, asNobody(t, cmd)...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
			}
			if s.Calls() != 2 {
				t.Fatalf("the model was called %d times, not 2\n%s", s.Calls(), stderr.String())
			}
			sent := jsonString(t, s.Request(1))
			for k, v := range keys {
				reversed := []rune(v)
				slices.Reverse(reversed)
				found := strings.Contains(sent, string(reversed))
				if want := pass && k == "GITHUB_TOKEN"; found != want {
					t.Errorf("%s reached the model: %v, want %v", k, found, want)
				}
			}
		})
	}
}

// runWithin runs the binary and fails t when it is still running after
// limit, which it then kills.
func runWithin(t *testing.T, in invocation, limit time.Duration) outcome {
	t.Helper()
	s := start(t, in)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		s.cmd.Process.Kill()
		<-done
		t.Fatalf("react-agent %s: still running after %s\n%s", strings.Join(in.args, " "), limit, s.outcome())
	}
	return s.outcome()
}

// TestFilesGivenAreReadWithABound gives the files of --replay,
// --prompt-file and eval's question set as what was once read without
// end (--replay /dev/zero reached 19 GB in 9 minutes) or waited on
// forever (a FIFO), and as a file larger than its bound: each run ends at
// once with an error that says what the path is, or names the bound.
func TestFilesGivenAreReadWithABound(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large")
	if err := os.WriteFile(large, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(large, 1<<30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	question := "What is 17 * 23 + 4?"
	uses := []struct {
		name  string
		args  func(path string) []string
		bound string
	}{
		{"--replay", func(p string) []string { return []string{"ask", "-n", "--replay", p, question} }, "256 MiB"},
		{"--prompt-file", func(p string) []string {
			return append(append([]string{"ask", "-n"}, demoAbs(t)...), "--prompt-file", p, question)
		}, "1 MiB"},
		{"eval", func(p string) []string {
			return []string{"eval", "--replay", filepath.Join(abs(t, root), "testdata/eval/replay"), "--models", "ollama:neat", p}
		}, "16 MiB"},
	}
	for _, u := range uses {
		for _, path := range []struct{ path, want string }{
			{"/dev/zero", "/dev/zero is a character device, not a file"},
			{fifo, fifo + " is a named pipe (FIFO), not a file"},
			{large, large + " is larger than " + u.bound},
		} {
			t.Run(u.name+" "+filepath.Base(path.path), func(t *testing.T) {
				got := runWithin(t, invocation{args: u.args(path.path)}, 10*time.Second)
				if got.code == 0 || !strings.Contains(got.stderr, path.want) {
					t.Errorf("want a failure saying %q\n%s", path.want, got)
				}
			})
		}
	}
}

// abs is path made absolute.
func abs(t *testing.T, path string) string {
	t.Helper()
	a, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestJSONOnATerminalShowsNoHostileCharacter has a model answer with a
// CSI in C1 (U+009B), a right-to-left override and a DEL, and runs ask
// --json, logs --json, logs show --json and parse on a terminal: once they
// wrote the characters raw, as Go's JSON encoder leaves them. The
// terminal now receives none of them, and the JSON it shows decodes to
// the answer as the model wrote it.
func TestJSONOnATerminalShowsNoHostileCharacter(t *testing.T) {
	const hostile = "\u009b31mred\u202eevil\u007f"
	reply := "Thought: x\nFinal Answer: " + hostile
	s := modeltest.NewOllama([]string{reply})
	t.Cleanup(s.Close)
	_, env := dataHome(t)
	env = append(env, "NO_COLOR=1")
	for _, args := range [][]string{
		{"ask", "--json", "--base-url", s.URL, "Say it"},
		{"logs", "--json"},
		{"logs", "show", "--json"},
		{"parse"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			term := startTerminal(t, invocation{args: args, env: env, stdin: reply}, args[0] == "parse")
			if code := term.wait(); code != 0 {
				t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
			}
			screen := term.text()
			for _, r := range "\u009b\u202e\u007f" {
				if strings.ContainsRune(screen, r) {
					t.Errorf("the terminal received %U:\n%q", r, screen)
				}
			}
			if want := `\u009b31mred\u202eevil\u007f`; !strings.Contains(screen, want) {
				t.Errorf("the terminal does not show %s:\n%q", want, screen)
			}
		})
	}
}

// mutualSchema has two definitions, each an alternative of the other, the
// first reached under a property and the second under a property of the
// first: the check of loops once remembered each definition for the whole
// walk, and followed neither again where the loop was open.
const mutualSchema = `{"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}}, "required": ["x"],
	"$defs": {"A": {"anyOf": [{"type": "object", "properties": {"q": {"$ref": "#/$defs/C"}}}, {"$ref": "#/$defs/C"}]},
	"C": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}}}`

// TestASchemaLoopKeepsTheConstraint gives a tool the schema of a loop that
// writes nothing, mutualSchema, and has each real server bind the steps:
// llama-server by the grammar of the text protocol, llama-server's
// OpenAI API and Ollama by the schema of the JSON object protocol, each of
// which llama.cpp turns into a grammar. Once llama-server logged "left
// recursion detected", sampled with no grammar and answered 200 while the
// trace said the step was bound, and Ollama got the loop intact. Now no
// server refuses what it is sent, and every step fits the tool.
func TestASchemaLoopKeepsTheConstraint(t *testing.T) {
	// tildeSchema loops through a definition called a~1b, which a JSON
	// pointer reads as a/b and llama.cpp as a~1b.
	const tildeSchema = `{"type": "object", "properties": {"x": {"$ref": "#/$defs/a~1b"}},
		"$defs": {"a~1b": {"anyOf": [{"$ref": "#/$defs/a~1b"}, {"type": "string"}]}}}`
	mcp := mcpServer(t, `[{"name": "mutual", "description": "Store a value.", "inputSchema": `+mutualSchema+`},
		{"name": "tilde", "description": "Store another.", "inputSchema": `+tildeSchema+`}]`)
	// The values mutualSchema allows, without its loop.
	const values = `{"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}}, "required": ["x"],
		"$defs": {"A": {"anyOf": [{"type": "object", "properties": {"q": {"$ref": "#/$defs/A"}}}, {"type": "string"}]}}}`
	schemas := map[string]string{"mutual": values}
	refused := regexp.MustCompile(`.*(left recursion|error parsing grammar|failed to parse grammar|failed to initialize|invalid JSON schema).*`)
	const step = `{"thought": "store", "action": "mutual", "action_input": {"x": "s"}}`
	for _, c := range []struct {
		name  string
		srv   real
		model string
		flags func(srv *realserver.Server) []string
	}{
		{"llama-server, the text protocol's grammar", llamaServer, "Action: mutuall\nAction Input: {\"x\": \"s\"}", llamaServer.flags},
		{"llama-server's OpenAI API, the JSON object protocol's schema", llamaServer, step, func(srv *realserver.Server) []string {
			return []string{"--provider", "openai", "--base-url", srv.URL + "/v1", "--constrain", "on"}
		}},
		{"ollama, the JSON object protocol's schema as its format", ollamaServer, step, func(srv *realserver.Server) []string {
			return append(ollamaServer.flags(srv), "--constrain", "on")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := c.srv.start(t, spelled(c.model))
			got := run(t, invocation{args: append(append([]string{"--no-log"}, c.flags(srv)...),
				"--mcp-config", mcp, "--yes", "--json", "--max-iterations", "2", "Store one.")})
			if r := refused.FindString(srv.Log()); r != "" {
				t.Errorf("the server refused what it was sent, and went on without it: %s", r)
			}
			checkBound(t, got, schemas)
		})
	}
}

// twentySettings are twenty different settings, with a value each.
var twentySettings = [][2]string{
	{"model", "m1"}, {"num-ctx", "4096"}, {"max-tokens", "512"}, {"temperature", "0.5"}, {"max-reply", "1000000"},
	{"idle-timeout", "7s"}, {"max-iterations", "7"}, {"protocol", "text"}, {"constrain", "off"}, {"timeout", "2m0s"},
	{"lang", "zh"}, {"system", "Be brief."}, {"quiet", "true"}, {"usage", "true"}, {"allow-shell", "true"},
	{"allow-private-network", "true"}, {"search-engine", "duckduckgo"}, {"tool-timeout", "9s"}, {"max-observation", "4000"}, {"max-response", "100000"},
}

// TestConcurrentSettingsSetKeepEverySetting has twenty processes set
// twenty different settings in one config file at once. Once, each said
// it succeeded and the file kept 11, 5 or 10 of them: each read the file,
// changed it and renamed its copy over it, the last rename winning. Now
// the file keeps all twenty, in three rounds.
func TestConcurrentSettingsSetKeepEverySetting(t *testing.T) {
	for round := range 3 {
		config := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(config, []byte("# my settings\nprovider: ollama\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var runs []*started
		for _, kv := range twentySettings {
			// --force: no server is asked whether it serves the model.
			runs = append(runs, start(t, invocation{args: []string{"settings", "set", "--force", "--config", config, kv[0], kv[1]}}))
		}
		for i, s := range runs {
			s.cmd.Wait()
			if got := s.outcome(); got.code != 0 {
				t.Fatalf("round %d: settings set %s: %s", round, twentySettings[i][0], got)
			}
		}
		got := mustRun(t, invocation{args: []string{"settings", "--config", config}})
		for _, kv := range twentySettings {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(kv[0]) + `\s+` + regexp.QuoteMeta(kv[1]) + `\s+\(` + regexp.QuoteMeta(config) + `\)`).MatchString(got.stdout) {
				t.Errorf("round %d: the file lost %s %s", round, kv[0], kv[1])
			}
		}
		if data, _ := os.ReadFile(config); !strings.HasPrefix(string(data), "# my settings\nprovider: ollama\n") {
			t.Errorf("round %d: the file lost what it held:\n%s", round, data)
		}
		entries, _ := os.ReadDir(filepath.Dir(config))
		if len(entries) != 1 {
			t.Errorf("round %d: files were left beside the config: %v", round, entries)
		}
	}
}

// TestConfirmationShowsNoLookalike has the model ask the shell for a
// command that passes for another on the screen: curl of apple.com with a
// Cyrillic а, and a harmless echo struck through by 50 stacked combining
// marks. Once each was shown as it would look. On a terminal the
// question shows the letter and the marks as \u escapes, with a note;
// answered n, nothing runs.
func TestConfirmationShowsNoLookalike(t *testing.T) {
	for _, c := range []struct{ name, command, want string }{
		{"a Cyrillic letter in a Latin word", "echo https://\u0430pple.com/install.sh > MARK", `https://\u0430pple.com/install.sh`},
		{"fifty stacked marks", "echo safe" + strings.Repeat("\u0336", 50) + " > MARK", `echo safe\u0336\u0336\u0336`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := modeltest.NewOllama([]string{
				"Thought: I will run it.\nAction: shell\nAction Input: " + jsonString(t, map[string]string{"command": c.command}),
				"Thought: It was refused.\nFinal Answer: not run",
			})
			t.Cleanup(s.Close)
			term := startTerminal(t, invocation{args: []string{"ask", "-n", "--allow-shell", "--base-url", s.URL, "Run it"}, env: []string{"NO_COLOR=1"}, dir: dir})
			term.waitText("[y/N")
			term.typeLine("n")
			code := term.wait()
			screen := term.text()
			if code != 0 || !strings.Contains(screen, c.want) || !strings.Contains(screen, "would pass for what they are not") {
				t.Errorf("exit %d; want %s shown, with a note:\n%q", code, c.want, screen)
			}
			// The trace above shows the model's reply; the question is
			// what a person answers.
			if _, question, _ := strings.Cut(screen, "This shell command is to run"); strings.ContainsAny(question, "\u0430\u0336") {
				t.Errorf("the question shows the lookalike as it is:\n%q", question)
			}
			if _, err := os.Stat(filepath.Join(dir, "MARK")); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

// TestAReadOnlyLogIsRead logs a run, makes the log's folder read-only,
// and reads it with logs, logs show and logs -q: once each failed with
// "attempt to write a readonly database", as they opened it to write.
// (As root, whom no folder's mode stops, the runs are nobody's.) A log
// damaged on disk fails with an error that says what to do.
func TestAReadOnlyLogIsRead(t *testing.T) {
	withNobody := func(in invocation) outcome {
		cmd := command(t, in)
		cmd.Env = append(cmd.Env, asNobody(t, cmd)...)
		cmd.Env = append(cmd.Env, in.env...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		return outcome{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	}
	dir, err := os.MkdirTemp("", "react-agent-log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700); os.RemoveAll(dir) })
	if os.Getuid() == 0 {
		os.Chmod(dir, 0o755)
		os.Chown(dir, 65534, 65534)
	}
	db := filepath.Join(dir, "logs.db")
	if got := withNobody(invocation{args: append(append([]string{"ask", "-q", "--log-db", db}, demoAbs(t)...), "What is 17 * 23 + 4?")}); got.code != 0 {
		t.Fatalf("the run to log failed: %s", got)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"logs"}, {"logs", "show"}, {"logs", "-q", "17"}, {"logs", "-r"}, {"logs", "--json"}} {
		got := withNobody(invocation{args: append(args, "--log-db", db)})
		if got.code != 0 || !strings.Contains(got.stdout, "17 * 23") {
			t.Errorf("%s on a read-only log: want its runs\n%s", strings.Join(args, " "), got)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("reading the log left files beside it: %v", entries)
	}

	// A damaged log: its pages overwritten past the header.
	os.Chmod(dir, 0o755)
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < len(data); i++ {
		data[i] = 0xA5
	}
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"logs", "--log-db", db}})
	if got.code == 0 || !strings.Contains(got.stderr, "damaged") || !strings.Contains(got.stderr, "move it aside") {
		t.Errorf("a damaged log: want an error that says what to do\n%s", got)
	}
}

// TestAShellCommandDiesWithAKilledAgent has the model run a shell command
// that starts a background process and waits, then kills the agent with
// SIGKILL, which it cannot catch: once the whole tree kept running. Now
// the command and what it started are gone within seconds.
func TestAShellCommandDiesWithAKilledAgent(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("finding the processes needs /proc")
	}
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	command := fmt.Sprintf("sleep 300 & echo $! > %s; echo $$ >> %s; sleep 301", pids, pids)
	s := modeltest.NewOllama([]string{
		"Thought: I will wait.\nAction: shell\nAction Input: " + jsonString(t, map[string]string{"command": command}),
		"Thought: Done.\nFinal Answer: done",
	})
	t.Cleanup(s.Close)
	agent := start(t, invocation{args: []string{"ask", "-q", "-n", "--allow-shell", "--yes", "--tool-timeout", "10m", "--base-url", s.URL, "Wait"}})
	var tree []int
	waitFor(t, "the command to start its processes", func() bool {
		data, _ := os.ReadFile(pids)
		tree = nil
		for _, f := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(f)
			tree = append(tree, pid)
		}
		return len(tree) == 2
	})
	agent.cmd.Process.Signal(syscall.SIGKILL)
	agent.cmd.Wait()
	for _, pid := range tree {
		waitFor(t, fmt.Sprintf("process %d of the command to end", pid), func() bool { return !alive(pid) })
	}
}
