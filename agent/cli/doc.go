// Package cli is react-agent's command line: its commands and flags, the
// settings read from the environment and a config file, the help, shell
// completion, and the advice that turns the libraries' typed errors into
// what to pass on the command line. The program's main hands it the
// process's arguments and streams:
//
//	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
//
// The commands are:
//
//	react-agent [ask] [flags] QUESTION   answer one question (QUESTION "-" or none: read it from stdin)
//	react-agent chat [flags]             a conversation with memory; /tools, /reset, /exit
//	react-agent logs [flags]             the conversations logged; logs show ID, logs delete ID, logs path
//	react-agent parse [flags]            parse a model reply from stdin, print the step as JSON
//	react-agent tools [flags]            list the enabled tools
//	react-agent tool [flags] NAME INPUT  call one tool directly
//	react-agent models [flags]           list the models the provider serves
//	react-agent eval [flags] SET.jsonl   compare models and protocols on a question set
//	react-agent settings [flags]         show each setting, its value and where it came from
//	react-agent completion bash|zsh|fish a script that completes commands and flags in your shell
//	react-agent --version
//
// One table of commands (see commands.go) drives dispatch, help and
// completion, and one setup serves every command: it parses the flags,
// refuses arguments the command does not take, applies the settings, and
// catches Ctrl-C for the commands that stop on it.
//
// The answer goes to stdout and the trace to stderr. Exit status: 0 with
// an answer, 1 on a runtime failure, 2 on a usage error, 3 when the run
// ended without a real final answer, 130 when interrupted.
//
// Settings come from flags, then REACT_AGENT_* environment variables and
// the provider's own (OLLAMA_HOST, OPENAI_API_KEY, …), then a YAML config
// file (--config, default react-agent/config.yaml under the user's config
// directory).
package cli
