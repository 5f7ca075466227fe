package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/redact"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools/escape"
	"github.com/react-agent/react-agent/tools/mcp"
)

// logFlags are the flags of the run log, shared by ask, chat and logs.
type logFlags struct {
	db     string
	off    bool
	resume bool
	cid    string
}

// addLogFlags adds the log flags to fs; with runs, those of ask and chat.
func addLogFlags(fs *pflag.FlagSet, runs bool) *logFlags {
	l := &logFlags{}
	fs.StringVar(&l.db, "log-db", "", "the log database (default: react-agent/logs.db in the user's data directory; see \"react-agent logs path\")")
	if runs {
		fs.BoolVarP(&l.off, "no-log", "n", false, "do not log this run")
		fs.BoolVarP(&l.resume, "continue", "c", false, "continue the latest conversation in the log")
		fs.StringVar(&l.cid, "cid", "", "continue the conversation with this ID (or the start of it; see \"react-agent logs\")")
	}
	return l
}

// logPath returns the path of the log database that l names, absolute.
func (e *env) logPath(l *logFlags) (string, error) {
	if l.db != "" {
		return filepath.Abs(l.db)
	}
	return e.defaultLog()
}

// runLog records the runs of ask and chat in the log: a logs.Session,
// with the earlier turns of a continued conversation as the agent takes
// them. A nil runLog, as with --no-log, records nothing.
type runLog struct {
	*logs.Session
	turns []agent.Turn
}

// openRunLog opens the log unless it is off, and goes on with the
// conversation that --continue or --cid names, whose provider, model and
// server become those of the run unless the command line says otherwise
// (see adoptConversation). A log that cannot be opened is reported on
// stderr, and the run goes on unlogged, unless it was to continue.
func (e *env) openRunLog(ctx context.Context, fs *pflag.FlagSet, f *agentFlags, servers []mcp.Server) (*runLog, error) {
	stderr := e.stderr
	l := f.log
	resume := l.resume || l.cid != ""
	if l.off {
		if resume {
			return nil, usagef("--continue and --cid read the log, which --no-log (or no-log in the config file) turns off")
		}
		return nil, nil
	}
	path, err := e.logPath(l)
	var sess *logs.Session
	if err == nil {
		sess, err = logs.OpenSession(ctx, path, logs.WithSecrets(e.logSecrets(f, servers)...))
	}
	if err != nil {
		if resume {
			return nil, err
		}
		fmt.Fprintf(stderr, "react-agent: not logging this run: %s\n", escape.Visible(advise(err)))
		return nil, nil
	}
	rl := &runLog{Session: sess}
	if !resume {
		return rl, nil
	}
	switch err := sess.Continue(ctx, l.cid); {
	case errors.Is(err, logs.ErrNotFound) && l.cid == "":
		fmt.Fprintln(stderr, "react-agent: no conversation in the log yet; starting one")
	case err != nil:
		sess.Close()
		return nil, err
	default:
		if changed := e.adoptConversation(fs, f, sess); len(changed) > 0 && !f.quiet {
			fmt.Fprintf(stderr, "react-agent: going on with conversation %s as it was held, but for %s, as the command line says\n",
				sess.ID(), escape.Visible(strings.Join(changed, ", ")))
		}
		for _, t := range sess.Turns() {
			rl.turns = append(rl.turns, agent.Turn{Question: t.Question, Answer: t.Answer})
		}
	}
	return rl, nil
}

// adoptConversation gives the run how the conversation it continues was
// held, where the command line does not say: its provider, model and
// server, its protocol, its prompt and the prompt's language, and the
// tools chosen with -T. As in llm, the flags of this command line win;
// the conversation's own settings win over the environment and the
// config file, which are standing defaults rather than a choice for this
// conversation. A provider named on the command line other than the
// conversation's starts afresh, with its own model and server. The API
// key is never logged: it comes from the flag, the environment or the
// config file, as for any run; when the conversation's provider replaces
// the one the environment or the config file named, their base URL and
// key, meant for that one, are dropped, so that the provider's own
// variables (OPENAI_API_KEY, …) apply, unless the log says the provider
// was found by asking the server: then, as for a server found, only a
// key given for it goes (see findProvider). It returns what the command
// line changed of how the conversation was held, as flags: "--prompt
// full (it had compact)".
func (e *env) adoptConversation(fs *pflag.FlagSet, f *agentFlags, sess *logs.Session) (changed []string) {
	last, ok := sess.Continued()
	if !ok || last.Provider == "" || f.cassette.replay != "" { // --replay says where answers come from
		return nil
	}
	onCommandLine := func(name string) bool {
		fl := fs.Lookup(name)
		return fl.Changed && len(fl.Annotations[sourceAnnotation]) == 0
	}
	set := func(name, value string) {
		fs.Set(name, value)
		fs.SetAnnotation(name, sourceAnnotation, []string{"conversation " + sess.ID()})
	}
	// keep gives the setting called name the conversation's value, or
	// notes that the command line changed it.
	keep := func(name, value string) {
		switch now := fs.Lookup(name).Value.String(); {
		case value == "":
		case !onCommandLine(name):
			set(name, value)
		case now != value:
			changed = append(changed, fmt.Sprintf("--%s %s (it had %s)", name, now, value))
		}
	}
	keep("protocol", last.Protocol)
	keep("lang", last.Lang)
	switch {
	case onCommandLine("prompt-file") || onCommandLine("prompt") && last.PromptFile != "":
		if last.PromptFile != "" && f.promptFile != last.PromptFile {
			changed = append(changed, fmt.Sprintf("--prompt-file (it had %s)", last.PromptFile))
		} else if last.Prompt != "" && last.PromptFile == "" {
			changed = append(changed, fmt.Sprintf("--prompt-file (it had --prompt %s)", last.Prompt))
		}
	case last.PromptFile != "":
		set("prompt-file", last.PromptFile)
	default:
		keep("prompt", last.Prompt)
	}
	if tl := fs.Lookup("tool"); len(last.Tools) > 0 {
		switch had := strings.Join(last.Tools, ","); {
		case !onCommandLine("tool"):
			tl.Value.(pflag.SliceValue).Replace(last.Tools)
			fs.SetAnnotation("tool", sourceAnnotation, []string{"conversation " + sess.ID()})
		case tl.Value.String() != had:
			changed = append(changed, fmt.Sprintf("-T %s (it had %s)", tl.Value.String(), had))
		}
	}
	if last.Provider != f.model.Provider {
		if onCommandLine("provider") {
			return append(changed, fmt.Sprintf("--provider %s (it had %s)", f.model.Provider, last.Provider))
		}
		set("provider", last.Provider)
		for _, name := range []string{"base-url", "api-key"} {
			if !onCommandLine(name) {
				set(name, "")
			}
		}
	}
	switch {
	case last.Model == "":
	case !onCommandLine("model"):
		set("model", last.Model)
	case f.model.Model != last.Model:
		changed = append(changed, fmt.Sprintf("--model %s (it had %s)", f.model.Model, last.Model))
	}
	switch {
	case last.BaseURL == "" || sess.SameServer(e.baseURL(f)):
	case !onCommandLine("base-url"):
		set("base-url", last.BaseURL)
	default:
		changed = append(changed, fmt.Sprintf("--base-url %s (it had %s)", hideURLSecrets(f.model.BaseURL), last.BaseURL))
	}
	if from := fs.Lookup("provider").Annotations[sourceAnnotation]; len(from) > 0 && from[0] == "conversation "+sess.ID() {
		f.model.Found = last.ProviderFound
	}
	return changed
}

// baseURL is the server's URL as the flags and the provider's variable
// (OLLAMA_HOST, …) give it, as model.Resolve reads it; empty for the
// provider's usual address.
func (e *env) baseURL(f *agentFlags) string {
	r, err := model.Resolve(e.withEnv(f.model))
	switch {
	case err != nil:
		return f.model.BaseURL
	case r.URLFrom == model.FromDefault:
		return ""
	}
	return r.URL
}

// runMeta is what the log keeps of the model of a run.
func (e *env) runMeta(f *agentFlags) logs.Run {
	r, _ := model.Resolve(e.withEnv(f.model))
	name := f.model.Model
	if name == "" && (r.Provider.Name != "llamacpp" || r.Model != r.Provider.DefaultModel) {
		// llama-server's default is no model's name: it serves the one
		// it loaded, which the run's end logs, once the server said.
		name = r.Model
	}
	promptFile := f.promptFile
	if promptFile != "" {
		if abs, err := filepath.Abs(promptFile); err == nil {
			promptFile = abs // for a conversation continued from elsewhere
		}
	}
	return logs.Run{Provider: f.model.Provider, ProviderFound: f.model.Found, Model: name, BaseURL: e.baseURL(f), Protocol: f.protocol,
		Prompt: f.prompt, PromptFile: promptFile, Lang: f.lang, Tools: f.chosen.names}
}

// logSecrets are the strings the log must not keep: the API key in use,
// the keys of every provider's variable, the passwords of the model's and
// the search engine's URLs, and the headers of MCP servers and their
// environment variables that name a secret.
func (e *env) logSecrets(f *agentFlags, servers []mcp.Server) []string {
	secrets := []string{f.model.APIKey}
	for _, u := range []string{f.model.BaseURL, f.tools().SearchURL} {
		for _, span := range urlPasswords(u) {
			secrets = append(secrets, u[span[0]:span[1]])
		}
	}
	for _, p := range model.Providers() {
		if p.KeyEnv != "" {
			secrets = append(secrets, e.getenv(p.KeyEnv))
		}
	}
	for _, srv := range servers {
		secrets = append(secrets, srv.Secrets()...)
		for k, v := range srv.Env {
			if kv := k + "=" + v; redact.Text(kv) != kv { // GITHUB_TOKEN=…, not ROOT=…
				secrets = append(secrets, v)
			}
		}
	}
	return secrets
}

// run records the run that ask makes of question.
// given is the text piped or attached to the question.
func (l *runLog) run(question, given string, ask func() (*agent.Result, error)) (*agent.Result, error) {
	if l == nil {
		return ask()
	}
	l.Begin(context.Background(), question, given)
	res, err := ask()
	o := logs.Outcome{}
	if res != nil {
		u := res.Usage
		o = logs.Outcome{Answer: res.Answer, StopReason: string(res.StopReason), Duration: res.Duration,
			Usage: logs.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens},
			Model: res.Model} // what the server says ran, rather than the name asked for
		if res.FellBack {
			o.Prompt = prompt.CompactStyle // the full one did not fit the model's context window
		}
	}
	if err != nil {
		o.Error = err.Error()
	}
	l.End(context.Background(), o)
	return res, err
}

// in returns ctx carrying the ID of the log's conversation, which the
// spans of the runs made with it name; ctx as it is without the log.
func (l *runLog) in(ctx context.Context) context.Context {
	if l == nil {
		return ctx
	}
	return agent.InConversation(ctx, l.ID())
}

// chatTurns is how many turns of a conversation a chat remembers.
const chatTurns = 20

// newChat returns a chat, with the earlier turns of a continued
// conversation.
func (l *runLog) newChat(a *agent.Agent) *agent.Chat {
	chat := agent.NewChat(a, chatTurns)
	if l != nil {
		chat.Resume(l.turns)
	}
	return chat
}

// restart makes the runs that follow a new conversation.
func (l *runLog) restart() {
	if l != nil {
		l.Restart()
	}
}

// closeNote is how long closing the log waits before it says that it is
// waiting: only another process holding the log makes it wait longer.
const closeNote = time.Second

// close closes the log, and reports the writes that failed. While another
// process holds the log, closing waits for it (up to
// logs.DefaultCloseWait), saying so after closeNote; a Ctrl-C then (ctx
// ends) stops the wait and leaves the rest of the record unwritten. When
// ctx has already ended, as it has after a Ctrl-C stopped the run, the
// second Ctrl-C ends the program at once (see env.interruptible).
func (l *runLog) close(ctx context.Context, stderr io.Writer) {
	if l == nil {
		return
	}
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	stop := ctx.Done()
	if ctx.Err() != nil {
		stop = nil
	}
	note := time.NewTimer(closeNote)
	defer note.Stop()
	for {
		select {
		case err := <-closed:
			if err != nil {
				fmt.Fprintf(stderr, "react-agent: the run log is incomplete: %v\n", err)
			}
			return
		case <-note.C:
			fmt.Fprintf(stderr, "react-agent: waiting for the run log, which another process holds, to take this run's record (up to %s; Ctrl-C stops waiting)\n",
				logs.DefaultCloseWait)
		case <-stop:
			fmt.Fprintln(stderr, "react-agent: the run log is incomplete: interrupted while another process held it")
			return
		}
	}
}
