package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/prompt"
)

// What the command line does about a model's context window that the
// prompt does not fit: the compact prompt in place of the full one when
// neither --prompt nor a setting chose, and else advice that names what
// makes the prompt smaller.

// fallbackOption returns the agent's option that makes a run go on with
// the compact prompt when the server finds the full one longer than its
// context window, or nil when the prompt was chosen: by --prompt, its
// variable, the config file or the conversation continued, by
// --prompt-file, or by a language the compact prompt is not written in.
func (s *session) fallbackOption() agent.Option {
	f := s.flags
	if s.fs.Changed("prompt") || f.promptFile != "" || f.prompt != prompt.Full || f.lang != "en" {
		return nil
	}
	compact, err := prompt.Builtin(prompt.CompactStyle, "en")
	if err != nil {
		return nil
	}
	return agent.WithFallbackTemplate(compact)
}

// fallenBack passes each event on to fn, with the notice that the run
// went on with the compact prompt written for people, and shown: it is
// not a detail for -v, since the prompt is not the one the settings say.
func (s *session) fallenBack(fn func(event.Event)) func(event.Event) {
	return func(e event.Event) {
		if e.Kind == event.Notice && errors.Is(e.Err, agent.ErrFallbackTemplate) {
			s.compacted = true
			e.Text = s.fallbackNote(e.Err)
		}
		fn(e)
	}
}

// fallbackNote says that the full prompt did not fit the model's context
// window, which err, the server's refusal, measures, and that the run
// goes on with the compact one.
func (s *session) fallbackNote(err error) string {
	prompt, fit, window := "the full prompt", "does not fit", ""
	if errors.Is(err, model.ErrContextFull) {
		fit = "left the reply no room in" // the prompt fitted, with too little room for a step
	}
	var me *model.Error
	if errors.As(err, &me) {
		if me.PromptTokens > 0 {
			prompt = fmt.Sprintf("the full prompt, %d tokens,", me.PromptTokens)
		}
		if me.ContextTokens > 0 {
			window = fmt.Sprintf(" of %d tokens", me.ContextTokens)
		}
	}
	said := fmt.Sprintf("%s %s the model's context window%s", prompt, fit, window)
	who := "this run"
	if s.chat {
		who = "this chat"
	}
	return said + ": " + who + " uses the compact prompt (--prompt chooses one)"
}

// windowAdvice passes each event on to fn, with the error of a prompt
// too long for the model's context window at the run's first call
// followed by what makes the prompt shorter (see shorterPrompt).
func (s *session) windowAdvice(fn func(event.Event)) func(event.Event) {
	return func(e event.Event) {
		if e.Kind == event.Error && e.Iteration <= 1 {
			if more := s.shorterPrompt(e.Err); more != "" {
				e.Text += "\n" + more
			}
		}
		fn(e)
	}
}

// shorterPrompt says what makes the prompt of the session shorter when
// err says that it does not fit the model's context window: the compact
// prompt, the text protocol for the native one, whose tool definitions
// are long, and fewer tools; or "" for another error, or when nothing is
// left to leave out.
func (s *session) shorterPrompt(err error) string {
	var question *agent.QuestionTooLongError
	if !errors.Is(err, model.ErrContextOverflow) || errors.As(err, &question) {
		return "" // a question too long alone is no shorter with less around it
	}
	f := s.flags
	var ways []string
	native := agent.Protocol(f.protocol) != agent.ProtocolText
	switch {
	case native:
		ways = append(ways, "pass --protocol text --prompt compact: the tools' definitions of --protocol "+f.protocol+" are long")
	case f.prompt != prompt.CompactStyle && f.promptFile == "" && f.lang == "en" && !s.compacted:
		ways = append(ways, "pass --prompt compact, less than half the full prompt")
	}
	if names := s.reg.ToolNames(); len(names) > 1 {
		ways = append(ways, fmt.Sprintf("offer fewer tools with -T, as in -T %s (this run offers %s)", names[0], list(names)))
	}
	if len(ways) == 0 {
		return ""
	}
	return "To make the prompt shorter, " + strings.Join(ways, "; or ") + "."
}
