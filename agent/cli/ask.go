package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
)

// addAskFlags adds the flags of ask to fs: chat's, and the files to
// attach.
func addAskFlags(fs *pflag.FlagSet) (*agentFlags, *[]string) {
	var attach []string
	grouped(fs, "Input flags", func() {
		fs.StringArrayVarP(&attach, "attach", "a", nil, "a file the model gets with the question: a text, or an image (PNG, JPEG, WebP, GIF) for models that see (repeatable)")
	})
	return addAgentFlags(fs), &attach
}

// askCommand is `react-agent ask QUESTION`, and the bare form.
func askCommand() *command {
	return &command{
		name: "ask", args: "[flags] QUESTION", does: `answer a question ("ask" may be left out)`,
		synopsis: "[ask] [flags] QUESTION   (QUESTION \"-\" or none: from stdin)",
		examples: `  react-agent ask --replay testdata/agent/demo.jsonl "What is 17 * 23 + 4?"
  react-agent "What is the population of Tokyo divided by 1000?"
  react-agent --provider llamacpp "Who wrote Dune?"
  react-agent -T calculator "What is 2**10 / 4?"   (the calculator alone)
  react-agent --provider openai --base-url http://127.0.0.1:1234/v1 "Hi"
  echo "Who wrote Dune?" | react-agent ask -q
  react-agent --json "What is 2**10?" > events.jsonl

Exit status: 0 answered, 1 failed (model unreachable, …), 2 usage error,
3 no real final answer (a limit was reached; a forced answer is still
printed), 130 interrupted.
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f, attach := addAskFlags(fs)
			return func(c *call) error { return runAsk(c, f, *attach) }
		},
		signals: signalsCancel,
	}
}

// runAsk answers one question: the arguments, or stdin.
func runAsk(c *call, f *agentFlags, attach []string) error {
	ctx, stdin := c.ctx, c.stdin
	question := strings.TrimSpace(strings.Join(c.args, " "))
	budget := &attachBudget{left: maxAttached}
	var given []attachment
	switch {
	case question == "-" || (question == "" && !c.terminal(stdin)):
		a, err := readAttachment(ctx, stdin, "stdin", budget)
		if err != nil {
			return interrupted(ctx, err)
		}
		if a.mime != "" {
			return usagef("stdin holds an image (%s) and no question; write the question after the flags", a.mime)
		}
		question = strings.TrimSpace(a.text)
	case !c.terminal(stdin):
		// A question and piped text: the text is what to work on.
		a, err := readAttachment(ctx, stdin, "stdin", budget)
		if err != nil {
			return interrupted(ctx, err)
		}
		if a.mime != "" || strings.TrimSpace(a.text) != "" {
			given = append(given, a)
		}
	}
	if question == "" {
		return usagef("no question; write it after the flags, as in: react-agent \"What is 17 * 23?\", or pipe it to stdin")
	}
	files, err := attachFiles(ctx, attach, budget)
	if err != nil {
		return interrupted(ctx, err)
	}
	given = append(given, files...)
	var images []agent.Image
	for _, a := range given {
		if a.mime != "" {
			images = append(images, agent.Image{MIMEType: a.mime, Data: a.data})
		}
	}
	texts := withAttachments(given)
	s, err := newSession(ctx, c, f, agent.WithImages(images...))
	if err != nil {
		return err
	}
	defer s.close(ctx)
	if s.log == nil || len(s.log.turns) == 0 {
		// One question, not the next of a conversation: its events carry
		// no turn.
		return s.report(s.log.run(question, texts, func() (*agent.Result, error) { return s.agent.Run(s.log.in(ctx), question+texts) }))
	}
	chat := s.log.newChat(s.agent)
	return s.report(s.log.run(question, texts, func() (*agent.Result, error) { return chat.Ask(s.log.in(ctx), question+texts) }))
}
