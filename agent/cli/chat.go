package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/peterh/liner"
	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/tools"
)

const chatHelp = `/tools  list the tools
/reset  forget the conversation
/exit   end the session (or exit, quit, Ctrl-D)
/help   this list
`

// chatCommand is `react-agent chat`: questions from stdin, one a line,
// answered with the conversation so far in memory.
func chatCommand() *command {
	return &command{
		name: "chat", args: "[flags]", does: "a conversation with memory; /tools, /reset, /exit",
		synopsis: "chat [flags]   (one question a line; /tools, /reset, /exit)",
		examples: `  react-agent chat
  react-agent chat --provider openai --base-url http://127.0.0.1:8080
  printf 'What is 2+2?\nAnd times 10?\n' | react-agent chat -q

In a session:
` + chatHelp + `
Ctrl-C stops the answer being written; at the prompt it clears the line.
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addAgentFlags(fs)
			return func(c *call) error { return runChat(c, f) }
		},
		check: func(args []string) error {
			if len(args) > 0 {
				return usagef("chat reads its questions from stdin and takes no arguments; use ask for one question")
			}
			return nil
		},
		// Ctrl-C stops an answer, not the session: it is caught from the
		// start, so that one pressed while the MCP servers start ends the
		// session in order, closing them.
		signals: signalsRelay,
	}
}

// runChat runs a chat.
func runChat(c *call, f *agentFlags) error {
	stdin, stderr, sigs := c.stdin, c.stderr, c.sigs
	s, err := newSession(context.Background(), c, f)
	if err != nil {
		return err
	}
	defer s.close()

	chat := s.log.newChat(s.agent)
	interactive := c.terminal(stdin)
	if interactive {
		fmt.Fprintln(stderr, "Ask a question. /help lists the commands; /exit or Ctrl-D ends the session.")
	}
	var read func() (*string, error)
	if f, ok := stdin.(*os.File); ok && interactive && f == os.Stdin {
		// A person at a terminal: line editing, history (arrow keys,
		// Ctrl-R) and lines continued with a backslash.
		edit := liner.NewLiner()
		defer edit.Close()
		// Ctrl-C clears the line being typed, as in a shell; Ctrl-D or
		// /exit ends the session.
		edit.SetCtrlCAborts(false)
		read = func() (*string, error) {
			type result struct {
				line *string
				err  error
			}
			done := make(chan result, 1)
			go func() {
				line, err := editLine(edit)
				done <- result{line, err}
			}()
			select {
			case r := <-done:
				return r.line, r.err
			case <-sigs: // Ctrl-C before the terminal was put in raw mode
				return nil, errInterrupted
			}
		}
	} else {
		lines := bufio.NewScanner(stdin)
		lines.Buffer(nil, 1<<20)
		read = func() (*string, error) {
			if interactive {
				fmt.Fprint(stderr, "> ")
			}
			return nextLine(lines, sigs)
		}
	}
	var failed error
	for {
		line, err := read()
		if errors.Is(err, errInterrupted) {
			fmt.Fprintln(stderr)
			return exitError(exitInterrupted)
		}
		if err != nil {
			return fmt.Errorf("chat: reading stdin: %w", err)
		}
		if line == nil {
			if interactive {
				fmt.Fprintln(stderr)
			}
			return failed
		}
		switch q := strings.TrimSpace(*line); {
		case q == "":
		case q == "/exit" || q == "/quit" || strings.EqualFold(q, "exit") || strings.EqualFold(q, "quit"):
			return failed
		case q == "/reset":
			chat.Reset()
			s.log.restart()
			fmt.Fprintln(stderr, "(the conversation is forgotten)")
		case q == "/tools":
			if err := tools.FormatList(stderr, s.reg); err != nil { // stdout is for answers
				return err
			}
		case q == "/help":
			fmt.Fprint(stderr, chatHelp)
		case strings.HasPrefix(q, "/") && !strings.Contains(q, " "):
			fmt.Fprintf(stderr, "unknown command %s; the commands are:\n%s", q, chatHelp)
		default:
			// A script's chat fails when a question does; a person at
			// the terminal has seen each failure already.
			if err := s.askInChat(chat, q, sigs); err != nil && !interactive {
				failed = err
			}
		}
	}
}

// editLine reads one question at the terminal with line editing and
// history. A line ending in a backslash goes on on the next line, so that
// a question may span several. Ctrl-C returns errInterrupted, Ctrl-D (on
// an empty line) a nil question.
func editLine(edit *liner.State) (*string, error) {
	var parts []string
	prompt := "> "
	for {
		line, err := edit.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			return nil, errInterrupted
		case errors.Is(err, io.EOF):
			return nil, nil
		case err != nil:
			return nil, err
		}
		if more, ok := strings.CutSuffix(line, "\\"); ok {
			parts, prompt = append(parts, more), ". "
			continue
		}
		q := strings.Join(append(parts, line), "\n")
		if strings.TrimSpace(q) != "" {
			// The history holds lines: a question of several comes
			// back as one, which the editor can show and edit.
			edit.AppendHistory(strings.Join(strings.Fields(q), " "))
		}
		return &q, nil
	}
}

// nextLine reads one line, or returns errInterrupted when a signal comes
// first. It returns a nil line at the end of input. Nothing is read ahead
// of the prompt, so a shell confirmation can read the terminal meanwhile.
func nextLine(sc *bufio.Scanner, sigs <-chan os.Signal) (*string, error) {
	done := make(chan bool, 1)
	go func() { done <- sc.Scan() }()
	select {
	case <-sigs:
		return nil, errInterrupted
	case ok := <-done:
		if !ok {
			return nil, sc.Err()
		}
		line := sc.Text()
		return &line, nil
	}
}

// askInChat answers one question of a chat; Ctrl-C cancels it and the
// session goes on.
func (s *session) askInChat(chat *agent.Chat, question string, sigs <-chan os.Signal) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	return s.report(s.log.run(question, "", func() (*agent.Result, error) { return chat.Ask(ctx, question) }))
}

// forTerminal returns text from outside as it may be shown on w: with its
// control characters made visible when w is a terminal, and unchanged in
