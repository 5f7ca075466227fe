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
