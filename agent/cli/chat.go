package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/peterh/liner"
	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools/escape"
)

// chatCommand is `react-agent chat`: questions from stdin, one a line,
// answered with the conversation so far in memory.
func chatCommand() *command {
	return &command{
		name: "chat", args: "[flags]", does: "a conversation with memory, one question a line",
		synopsis: "chat [flags]   (one question a line)",
		examples: `  react-agent chat
  react-agent chat --provider openai --base-url http://127.0.0.1:8080
  printf 'What is 2+2?\nAnd times 10?\n' | react-agent chat -q

In a session:
` + slashHelp() + `
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
	s, err := newSession(context.Background(), c, f)
	if err != nil {
		return err
	}
	defer s.closeChat(c.sigs)
	chat := s.log.newChat(s.agent)
	interactive := c.terminal(c.stdin)
	if interactive {
		s.greet()
	}
	read, closeReader, confirming := c.questionReader(interactive)
	defer closeReader()
	s.confirming = confirming
	return s.converse(&chat, read, c.sigs, interactive)
}

// closeChat closes the session at the end of a chat: a Ctrl-C meanwhile
// stops a wait on the log.
func (s *session) closeChat(sigs <-chan os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	s.close(ctx)
}

// greet names the chat's model and the commands, and the conversation a
// chat goes on with.
func (s *session) greet() {
	stderr := s.stderr
	fmt.Fprintf(stderr, "Chatting with %s.\n/help lists the commands; /exit or Ctrl-D ends the session.\n", s.describeModel(context.Background()))
	if s.log == nil {
		return
	}
	if last, ok := s.log.Continued(); ok {
		fmt.Fprintf(stderr, "Going on with conversation %s; its last question: %s\n", s.log.ID(), s.forTerminal(stderr, firstLine(last.Question)))
	}
}

// questionReader returns the function that reads the chat's next
// question, nil at the end of input, what closes the reader, and what a
// confirmation calls before it asks, and the function it returns after
// (nil: nothing to do). A person at a terminal gets line editing and
// history (arrow keys, Ctrl-R) and lines continued with a backslash, and
// what they type while an answer is written waits, unseen, for the next
// prompt; elsewhere the questions are read a line at a time, and a prompt
// is shown when stdin is a terminal.
func (c *call) questionReader(interactive bool) (read func() (*string, error), closeFn func(), confirming func() (done func())) {
	stdin, stderr, sigs := c.stdin, c.stderr, c.sigs
	if f, ok := stdin.(*os.File); !ok || !interactive || f != os.Stdin {
		lines := newLineReader(stdin, maxChatLine)
		return func() (*string, error) {
			if interactive {
				fmt.Fprint(stderr, "> ")
			}
			return nextLine(lines, sigs)
		}, func() {}, nil
	}
	// The editor puts the terminal in raw mode, where Enter sends a
	// carriage return and nothing typed is shown; it is in that mode
	// only while a question is typed, and in the person's own mode while
	// an answer is written and a confirmation asked.
	// While an answer is written, the echo is off: what is typed then
	// is not drawn over the trace's spinner, and the next prompt shows
	// it, ready to edit.
	own, ownErr := liner.TerminalMode()
	quiet, loud, flush := quietTerminal(os.Stdin)
	edit := liner.NewLiner()
	raw, rawErr := liner.TerminalMode()
	editing := func(on bool) {
		switch {
		case on && rawErr == nil:
			raw.ApplyMode()
		case !on && ownErr == nil:
			own.ApplyMode()
			quiet()
		}
	}
	editing(false)
	confirming = func() func() {
		flush() // what was typed ahead answers no confirmation
		loud()
		return quiet
	}
	// Ctrl-C clears the line being typed, as in a shell, and says how to
	// leave: Ctrl-D or /exit ends the session.
	edit.SetCtrlCAborts(true)
	return func() (*string, error) {
			type result struct {
				line *string
				err  error
			}
			done := make(chan result, 1)
			go func() {
				editing(true)
				line, err := editLine(edit, stderr)
				editing(false)
				done <- result{line, err}
			}()
			select {
			case r := <-done:
				return r.line, r.err
			case <-sigs: // Ctrl-C before the terminal was put in raw mode
				return nil, errInterrupted
			}
		}, func() {
			edit.Close()
			if ownErr == nil {
				own.ApplyMode() // the echo on, as it was
			}
		}, confirming
}

// converse answers the questions read returns, and runs the chat's
// commands, until the end of input or /exit; a signal on sigs (Ctrl-C)
// stops an answer. A script's chat fails when a question does; a person
// at the terminal (interactive) has seen each failure already.
func (s *session) converse(chat **agent.Chat, read func() (*string, error), sigs <-chan os.Signal, interactive bool) error {
	stderr := s.stderr
	var failed error
	for {
		line, err := read()
		switch {
		case errors.Is(err, errInterrupted):
			fmt.Fprintln(stderr)
			return exitError(exitInterrupted)
		case errors.Is(err, errLineTooLong):
			fmt.Fprintf(stderr, "react-agent chat: %v\n", err)
			continue
		case err != nil:
			return fmt.Errorf("chat: reading stdin: %w", err)
		case line == nil:
			if interactive {
				fmt.Fprintln(stderr)
			}
			return failed
		}
		q := strings.TrimSpace(*line)
		name, arg, isCommand := slashCommand(q)
		switch {
		case q == "":
		case strings.EqualFold(q, "exit") || strings.EqualFold(q, "quit"):
			return failed
		case isCommand:
			if s.runSlash(chat, name, arg) {
				return failed
			}
		default:
			if err := s.askInChat(*chat, q, sigs); err != nil && !interactive {
				failed = err
			}
		}
	}
}

// runSlash runs the chat's command called name with arg, and reports
// whether it ends the session. Its errors are said on stderr: the
// session goes on.
func (s *session) runSlash(chat **agent.Chat, name, arg string) (quit bool) {
	stderr := s.stderr
	sc := lookupSlash(name)
	if sc == nil {
		if near := nearest(name, slashNames()); near != "" {
			fmt.Fprintf(stderr, "unknown command /%s; did you mean /%s? (/help lists the commands)\n", s.forTerminal(stderr, name), near)
		} else {
			fmt.Fprintf(stderr, "unknown command /%s; /help lists the commands\n", s.forTerminal(stderr, name))
		}
		return false
	}
	quit, err := sc.run(s, chat, arg)
	switch {
	case err != nil && isUsage(err):
		fmt.Fprintf(stderr, "/%s %s\n", name, s.forTerminal(stderr, err.Error()))
	case err != nil:
		fmt.Fprintf(stderr, "react-agent: %s\n", escape.Visible(explain(err, situation{chat: true}).String()))
	}
	return quit
}

// slashCommand reads a line that is a chat's command: a slash and a word
// ("/model", "/set"), then perhaps the command's argument. A line whose
// first word holds another slash ("/etc/hosts is what?") is a question.
func slashCommand(line string) (name, arg string, ok bool) {
	word, arg, _ := strings.Cut(line, " ")
	name, ok = strings.CutPrefix(word, "/")
	if !ok || name == "" || strings.ContainsAny(name, "/.\t") {
		return "", "", false
	}
	return strings.ToLower(name), strings.TrimSpace(arg), true
}

// slash is a command of a chat session.
type slash struct {
	name    string
	aliases []string // the same command in other tools' words
	// help is the command's lines in the list: its forms, and what each
	// does.
	help [][2]string
	// run runs the command with what follows its name; quit ends the
	// session.
	run func(s *session, chat **agent.Chat, arg string) (quit bool, err error)
}

// slashes are the commands of a chat session. Those people type in
// Ollama's sessions (/bye, /clear, /set parameter) work here too.
func slashes() []slash {
	noArg := func(run func(s *session, chat **agent.Chat) error) func(*session, **agent.Chat, string) (bool, error) {
		return func(s *session, chat **agent.Chat, arg string) (bool, error) {
			if arg != "" {
				return false, usagef("takes nothing after it, got %q", arg)
			}
			return false, run(s, chat)
		}
	}
	return []slash{
		{name: "help", aliases: []string{"?"}, help: [][2]string{{"/help", "this list (also /?)"}},
			run: noArg(func(s *session, _ **agent.Chat) error {
				_, err := fmt.Fprint(s.stderr, slashHelp())
				return err
			})},
		{name: "tools", help: [][2]string{{"/tools", "list the tools"}},
			run: noArg(func(s *session, _ **agent.Chat) error {
				return writeTools(s.stderr, s.reg, s.helpWidth(s.stderr)) // stdout is for answers
			})},
		{name: "model", help: [][2]string{{"/model [NAME]", "show the model, or change it and go on"}}, run: chatModel},
		{name: "set", help: [][2]string{{"/set parameter KEY VALUE", "send a model option, as -o KEY VALUE"},
			{"/set system TEXT", "add TEXT to the system prompt, as --system"}}, run: chatSet},
		{name: "reset", aliases: []string{"clear"}, help: [][2]string{{"/reset", "forget the conversation (also /clear)"}},
			run: noArg(func(s *session, chat **agent.Chat) error {
				(*chat).Reset()
				s.log.restart()
				_, err := fmt.Fprintln(s.stderr, "(the conversation is forgotten)")
				return err
			})},
		{name: "exit", aliases: []string{"quit", "bye"}, help: [][2]string{{"/exit", "end the session (also /quit, /bye, exit, Ctrl-D)"}},
			run: func(*session, **agent.Chat, string) (bool, error) { return true, nil }},
	}
}

// lookupSlash returns the chat command called name, or one of its
// aliases, or nil.
func lookupSlash(name string) *slash {
	for _, sc := range slashes() {
		if sc.name == name || slices.Contains(sc.aliases, name) {
			return &sc
		}
	}
	return nil
}

// slashNames returns the names of the chat's commands and their aliases.
func slashNames() []string {
	var names []string
	for _, sc := range slashes() {
		names = append(append(names, sc.name), sc.aliases...)
	}
	return names
}

// slashHelp lists the commands of a chat session.
func slashHelp() string {
	var b strings.Builder
	for _, sc := range slashes() {
		for _, line := range sc.help {
			fmt.Fprintf(&b, "%-25s %s\n", line[0], line[1])
		}
	}
	return b.String()
}

// chatModel is /model [NAME].
func chatModel(s *session, chat **agent.Chat, arg string) (bool, error) {
	ctx := context.Background()
	if arg == "" {
		_, err := fmt.Fprintf(s.stderr, "(chatting with %s)\n", s.describeModel(ctx))
		return false, err
	}
	if strings.ContainsAny(arg, " \t") {
		return false, usagef("takes one model name, as in /model qwen2.5:7b; got %q", arg)
	}
	if err := checkModelName(arg); err != nil {
		return false, err
	}
	switch err := s.checkServed(ctx, s.flags.model, arg, ""); {
	case isUsage(err):
		return false, &usageError{fmt.Errorf("%s: %w; the chat goes on with %s", arg, err, s.describeModel(ctx))}
	case err != nil:
		// A server down now may be up for the next question: the
		// name is taken, and what was not asked is said.
		fmt.Fprintf(s.stderr, "(%s; the name is taken all the same)\n", s.forTerminal(s.stderr, err.Error()))
	}
	was := s.flags.model.Model
	s.flags.model.Model = arg
	if err := s.switchAgent(ctx, chat); err != nil {
		s.flags.model.Model = was
		return false, err
	}
	_, err := fmt.Fprintf(s.stderr, "(now chatting with %s; the conversation goes on)\n", s.describeModel(ctx))
	return false, err
}

// chatSet is /set parameter KEY VALUE, as Ollama's, and /set system TEXT.
func chatSet(s *session, chat **agent.Chat, arg string) (bool, error) {
	what, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	switch what {
	case "parameter":
		key, value, _ := strings.Cut(rest, " ")
		value = strings.TrimSpace(value)
		if key == "" || value == "" {
			return false, usagef("parameter takes a key and its value, as in /set parameter temperature 0.2")
		}
		if flag, ok := foldLookup(optionFlags, key); ok {
			// A parameter with a setting of its own, such as the
			// temperature, changes that setting, as -o would not.
			if err := setFlag(s.fs, flag, value); err != nil {
				return false, &usageError{err}
			}
		} else {
			opts := &modelOptions{m: &s.flags.model}
			if err := opts.Set(key + "=" + value); err != nil {
				return false, &usageError{err}
			}
		}
		if err := s.switchAgent(context.Background(), chat); err != nil {
			return false, err
		}
		_, err := fmt.Fprintf(s.stderr, "(%s is %s from now on)\n", s.forTerminal(s.stderr, key), s.forTerminal(s.stderr, value))
		return false, err
	case "system":
		s.flags.system = rest
		if err := s.switchAgent(context.Background(), chat); err != nil {
			return false, err
		}
		if rest == "" {
			_, err := fmt.Fprintln(s.stderr, "(the system prompt has no extra context from now on)")
			return false, err
		}
		_, err := fmt.Fprintln(s.stderr, "(the system prompt has this extra context from now on)")
		return false, err
	}
	return false, usagef("takes parameter KEY VALUE or system TEXT, as in /set parameter temperature 0.2")
}

// switchAgent rebuilds the session's agent from its flags, keeping the
// conversation.
func (s *session) switchAgent(ctx context.Context, chat **agent.Chat) error {
	if err := s.rebuild(ctx); err != nil {
		return err
	}
	next := agent.NewChat(s.agent, chatTurns)
	next.Resume((*chat).History())
	*chat = next
	return nil
}

// describeModel names the session's model and where it is served, as
// the banner of a chat and /model say it ("Chatting with …"), or says
// that none was named.
func (s *session) describeModel(ctx context.Context) string {
	named := s.flags.model.Model
	r, err := model.Resolve(s.withEnv(s.flags.model))
	switch {
	case err != nil && named == "":
		return "the default model"
	case err != nil:
		return s.forTerminal(s.stderr, named)
	case r.Provider.Name == "replay":
		return s.forTerminal(s.stderr, "the model recorded in "+s.flags.cassette.replay)
	}
	where := r.Provider.Name
	if r.URL != "" {
		where += " at " + model.Redact(r.URL)
	}
	if named == "" && (r.Model == "" || r.Model == "default") {
		// llama-server's: it serves the one model it loaded.
		return s.forTerminal(s.stderr, "the model that "+where+" serves, as none was named")
	}
	where = r.Model + " on " + where
	return s.forTerminal(s.stderr, where)
}

// isUsage reports whether err is a usage error.
func isUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// editLine reads one question at the terminal with line editing and
// history. A line ending in a backslash goes on on the next line, so that
// a question may span several. Ctrl-C clears the line, and says how to
// end the session; Ctrl-D (on an empty line) returns a nil question.
func editLine(edit *liner.State, stderr io.Writer) (*string, error) {
	var parts []string
	prompt := "> "
	for {
		line, err := edit.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			fmt.Fprintln(stderr, "(Ctrl-D or /exit ends the session)")
			parts, prompt = nil, "> "
			continue
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
func nextLine(lines *lineReader, sigs <-chan os.Signal) (*string, error) {
	type result struct {
		line string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		line, err := lines.next()
		done <- result{line, err}
	}()
	select {
	case <-sigs:
		return nil, errInterrupted
	case r := <-done:
		switch {
		case r.err == io.EOF:
			return nil, nil
		case r.err != nil:
			return nil, r.err
		}
		return &r.line, nil
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
	return s.report(s.log.run(question, "", func() (*agent.Result, error) { return chat.Ask(s.log.in(ctx), question) }))
}

// forTerminal returns text from outside as it may be shown on w: with its
// control characters made visible when w is a terminal, and unchanged in
