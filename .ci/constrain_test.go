package cli

import (
	evalpkg "github.com/react-agent/react-agent/agent/eval"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestEvalComparesConstrainedAndTextOffline evaluates a scripted model on
// a fake llama-server with the text protocol and the constrained one,
// recording a cassette a run: the constrained runs sent the grammar,
// their cassettes keep it, and the evaluation replays offline with the
// same numbers.
func TestEvalComparesConstrainedAndTextOffline(t *testing.T) {
	text := evalScripts(t)["neat"][:12] // the text protocol's replies to the six questions
	srv := modeltest.NewLlamaCpp(text, modeltest.Repeat())
	defer srv.Close()
	dir := t.TempDir()
	args := func(models string, more ...string) []string {
		return append([]string{"eval", "--models", models, "--protocol", "text,constrained", "testdata/eval/arithmetic.jsonl"}, more...)
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
	plain := modeltest.NewOpenAI(replies(t, "two_steps.json"), modeltest.Model("m"))
	defer plain.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a word that is no mode", []string{"--constrain", "always", "What?"}, "--constrain must be auto, on or off"},
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
