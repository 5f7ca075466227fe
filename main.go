// Command react-agent answers questions with a ReAct agent (Reason + Act)
// that speaks the classic Thought / Action / Action Input / Observation /
// Final Answer protocol, on models served by Ollama, any OpenAI-compatible
// server, llamafile or hosted APIs.
//
// Run "react-agent help" for its commands, and "react-agent help COMMAND"
// for a command's flags. The command line itself is the package
// github.com/react-agent/react-agent/agent/cli.
package main

import (
	"os"

	"github.com/react-agent/react-agent/agent/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
