package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/redact"
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
		e.adoptConversation(fs, f, sess)
		for _, t := range sess.Turns() {
			rl.turns = append(rl.turns, agent.Turn{Question: t.Question, Answer: t.Answer})
		}
	}
	return rl, nil
}

// adoptConversation gives the run the provider, model and server of the
// conversation it continues, where the command line names none. As in llm, the
// flags of this command line win; the conversation's own settings win
// over the environment and the config file, which are standing defaults
// rather than a choice for this conversation. A provider named on the
// command line other than the conversation's starts afresh, with its own
// model and server. The API key is never logged: it comes from the flag,
// the environment or the config file, as for any run; when the
// conversation's provider replaces the one the environment or the config
// file named, their base URL and key, meant for that one, are dropped,
// so that the provider's own variables (OPENAI_API_KEY, …) apply, unless
// the log says the provider was found by asking the server: then, as
// for a server found, only a key given for it goes (see findProvider).
func (e *env) adoptConversation(fs *pflag.FlagSet, f *agentFlags, sess *logs.Session) {
	last, ok := sess.Continued()
	if !ok || last.Provider == "" || f.model.Replay != "" { // --replay says where answers come from
		return
	}
	onCommandLine := func(name string) bool {
		fl := fs.Lookup(name)
		return fl.Changed && len(fl.Annotations[sourceAnnotation]) == 0
	}
	set := func(name, value string) {
		fs.Set(name, value)
		fs.SetAnnotation(name, sourceAnnotation, []string{"conversation " + sess.ID()})
	}
	if last.Provider != f.model.Provider {
		if onCommandLine("provider") {
			return
		}
		set("provider", last.Provider)
		for _, name := range []string{"base-url", "api-key"} {
			if !onCommandLine(name) {
				set(name, "")
			}
		}
	}
	if !onCommandLine("model") && last.Model != "" {
		set("model", last.Model)
	}
	if !onCommandLine("base-url") && last.BaseURL != "" && !sess.SameServer(e.baseURL(f)) {
		set("base-url", last.BaseURL)
	}
	if from := fs.Lookup("provider").Annotations[sourceAnnotation]; len(from) > 0 && from[0] == "conversation "+sess.ID() {
		f.model.Found = last.ProviderFound
	}
}

// baseURL is the server's URL as the flags and the provider's variable
// (OLLAMA_HOST, …) give it, as model.Resolve reads it; empty for the
// provider's usual address.
func (e *env) baseURL(f *agentFlags) string {
	r, err := model.Resolve(f.model, e.getenv)
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
	r, _ := model.Resolve(f.model, e.getenv)
	name := f.model.Model
	if name == "" {
		name = r.Model
	}
	return logs.Run{Provider: f.model.Provider, ProviderFound: f.model.Found, Model: name, BaseURL: e.baseURL(f), Protocol: f.protocol}
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
	}
	if err != nil {
		o.Error = err.Error()
	}
	l.End(context.Background(), o)
	return res, err
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
