package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
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
