package cli_test

import (
	"os"
	"strings"

	"github.com/react-agent/react-agent/agent/cli"
)

// Run executes a command line as main does, with the streams it is given:
// here parse, which reads a model's reply on stdin and prints its step.
func ExampleRun() {
	reply := "Thought: add them\nAction: calculator\nAction Input: 2+2"
	code := cli.Run([]string{"parse"}, strings.NewReader(reply), os.Stdout, os.Stderr)
	if code != 0 {
		os.Exit(code)
	}
	// Output:
	// {"kind":"action","thought":"add them","action":"calculator","args":{"expression":"2+2"}}
}
