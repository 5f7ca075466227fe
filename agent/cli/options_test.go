package cli

import (
	"strings"
	"testing"
)

// TestOptionsTheAgentWritesAreRefused passes -o with the keys the agent
// writes itself, on the command line and in the environment: once, -o
// stream false ended in "the stream stopped without its end", -o messages
// replaced the question, and -o format dropped the schema of a bound
// step. Each is a usage error naming what to use.
func TestOptionsTheAgentWritesAreRefused(t *testing.T) {
	tests := []struct{ option, want string }{
		{"stream=false", "--stream and --no-stream"},
		{`messages=[{"role":"user","content":"hi"}]`, "the question, --system and --prompt-file"},
		{"prompt=hi", "the question, --system and --prompt-file"},
		{"model=x", "pass --model"},
		{"grammar=root ::= \"x\"", "--constrain"},
		{`format="json"`, "--constrain"},
		{`response_format={"type":"json_object"}`, "--constrain"},
		{"tools=[]", "--protocol"},
		{"stop=[]", "pass --stop, or --no-stop"},
		{"num_ctx=2048", "pass --num-ctx"},
		{"max_tokens=200", "pass --max-tokens"},
		{"num_predict=200", "pass --max-tokens"},
		{"n_predict=7", "pass --max-tokens"},
		{"max_completion_tokens=64", "pass --max-tokens"},
		{"Stream=false", "--stream and --no-stream"},
	}
	for _, tt := range tests {
		key, _, _ := strings.Cut(tt.option, "=")
		t.Run(key, func(t *testing.T) {
			runs := map[string]invocation{
				"the command line": args(append(append([]string{"-q", "-o", tt.option}, demo...), "hi")...),
				"the environment":  {args: append(append([]string{"-q"}, demo...), "hi"), env: []string{"REACT_AGENT_OPTION=" + tt.option}},
			}
			for how, r := range runs {
				got := r.run(t)
				if got.code != exitUsage || !strings.Contains(got.stderr, "-o "+key+": the agent writes") || !strings.Contains(got.stderr, tt.want) {
					t.Errorf("through %s: want a usage error naming %q\n%s", how, tt.want, got)
				}
			}
		})
	}
	if got := args(append(append([]string{"-q", "-o", "repeat_penalty", "1.1"}, demo...), "What is 17 * 23 + 4?")...).run(t); got.code != 0 {
		t.Errorf("an option the agent does not write is refused\n%s", got)
	}
}

// TestAnOptionWithoutItsKeyIsAUsageError: -o followed by a flag left the
// option's key out; once, -o -q 'question' took -q for the key and the
// question for its value, and said there was no question.
func TestAnOptionWithoutItsKeyIsAUsageError(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-o", "-q", "What is 2+2?"}, "-o needs a KEY and its VALUE before -q"},
		{[]string{"--option", "--quiet", "What is 2+2?"}, "--option needs a KEY and its VALUE before --quiet"},
		{[]string{"-q", "-o", "-v"}, "-o needs a KEY and its VALUE before -v"},
	}
	for _, tt := range tests {
		if got := args(tt.args...).run(t); got.code != exitUsage || !strings.Contains(got.stderr, tt.want) {
			t.Errorf("%q: want a usage error that says %q\n%s", tt.args, tt.want, got)
		}
	}
}
