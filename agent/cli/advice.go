package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/event"
	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/agent/redact"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/mcp"
)

// explanation is what the command line says of an error, for people:
// what happened, in one clause that says each cause once, and what to do
// about it, with the flags (or a chat's commands) that do it. The
// libraries' errors name no flags, and those a model reads are written
// for the model: the command line words them from their fields.
type explanation struct{ what, do string }

// String joins what happened and what to do: "what; do", or, after
// lines quoted from elsewhere (a server's stderr), do on a line of its
// own, not read as the last of them.
func (x explanation) String() string {
	switch {
	case x.do == "":
		return x.what
	case strings.Contains(x.what, "\n"):
		return x.what + "\n" + x.do
	}
	return x.what + "; " + x.do
}

// situation is what the command line knows of the run an error ended,
// which changes the advice.
type situation struct {
	// chat means a chat's run: its commands change what flags would
	// (/model).
	chat bool
	// first means the error came at the run's first model call, whose
	// prompt holds no observation to shorten (--max-observation).
	first bool
}

// advise returns what happened and what to do of err, for people.
func advise(err error) string { return explain(err, situation{}).String() }

// explain says what happened and what to do of err, as the situation of
// its run changes it.
func explain(err error, in situation) explanation {
	var (
		limit      *agent.LimitError
		repeated   *agent.RepeatedParseError
		question   *agent.QuestionTooLongError
		long       *agent.WaitTooLongError
		me         *model.Error
		diverged   *cassette.DivergedError
		unreached  *tools.UnreachableError
		blocked    *tools.BlockedError
		mcpStart   *mcp.StartError
		mcpConfig  *mcp.ConfigError
		joined     interface{ Unwrap() []error }
		msg        = tidy("", err.Error())
		startsOnly = errors.As(err, &joined) && allStartErrors(joined.Unwrap())
	)
	switch {
	case errors.As(err, &limit):
		return explainLimit(limit, in)
	case errors.As(err, &repeated) && errors.Is(err, agent.ErrTokenLimit):
		return explanation{fmt.Sprintf("the model's replies were cut off at the token limit of a reply %s in a row", times(repeated.Times)),
			"raise --max-tokens (or the server's own bound on a reply), or ask for a shorter answer"}
	case errors.As(err, &repeated):
		// The parser's message is the model's, with the format spelled
		// out; the trace (or -v) shows it.
		return explanation{fmt.Sprintf("the model replied in a form the agent cannot read %s in a row", times(repeated.Times)),
			"try another model, --lang zh for a model that answers in Chinese, or a lower --temperature"}
	case errors.Is(err, agent.ErrToolsRefused) && errors.As(err, &me):
		what := "the server does not support tool calling for this model"
		if me.Model != "" {
			what = fmt.Sprintf("the server does not support tool calling for the model %q", me.Model)
		}
		return explanation{withProvider(me.Provider, what), "pass --protocol text (or auto), or use a model whose server supports tool calling"}
	case errors.Is(err, model.ErrCannotConstrain):
		return explanation{model.ErrCannotConstrain.Error(), constrainAdvice}
	case errors.As(err, &question):
		return explainQuestion(question)
	case errors.As(err, &long):
		asked := long.Wait.String()
		if long.Wait >= model.MaxRetryAfter {
			asked = "a year or more"
		}
		return explanation{fmt.Sprintf("%s, and asked to be called again in %s, longer than the %s a run waits", modelWhat(long.Err), asked, long.Most),
			"try again once that time is past"}
	case errors.As(err, &diverged):
		do := "record the run again with --record FILE against a model"
		return explanation{withProvider("replay", diverged.Error()), do}
	case errors.Is(err, model.ErrNoServer) && errors.As(err, &me):
		what, do := nothingAnswered(me)
		return explanation{what, do + ", or check --base-url"}
	case errors.As(err, &me):
		return explainModel(me, in)
	case startsOnly:
		return explainStarts(joined.Unwrap())
	case errors.As(err, &mcpStart):
		return explainStarts([]error{mcpStart})
	case errors.As(err, &mcpConfig) && errors.Is(err, mcp.ErrNoServers):
		return explanation{msg, "--mcp-config takes a file of MCP servers"}
	case errors.As(err, &mcpConfig):
		return explanation{msg, "fix the file given with --mcp-config (or the mcp section of --tools-config)"}
	case errors.Is(err, mcp.ErrServerStopped):
		return explanation{msg, "run the server's command in a terminal to see why it stops"}
	case errors.Is(err, model.ErrNoImages):
		return explanation{msg, "for llama-server, pass --provider openai with its address (http://127.0.0.1:8080/v1), whose models may see images"}
	case errors.Is(err, mcp.ErrReplyTooLarge):
		return explanation{msg, "the server sent more than react-agent reads from one reply; ask less of the tool, or check the server"}
	case errors.Is(err, logs.ErrDamaged):
		return explanation{msg, "move it aside (mv LOG LOG.damaged, with its -wal and -shm files) and the next run starts a new log; sqlite3 LOG .recover may save what it holds"}
	case errors.Is(err, logs.ErrNotALog):
		return explanation{msg, "--log-db (or REACT_AGENT_LOG_DB, or log-db in the config file) takes the path of a log, or of a file that does not exist yet; leave it out for the usual log, or pass --no-log"}
	case errors.As(err, &unreached):
		what, do := unreachableAdvice(unreached)
		return explanation{what, do}
	case errors.As(err, &blocked):
		return explanation{fmt.Sprintf("%s: %s %s: %s is not a public address, and this run reaches none but those", blocked.Tool, blocked.Method, blocked.URL, blocked.Host),
			"pass --allow-private-network to allow it"}
	case errors.Is(err, tools.ErrShellDisabled):
		// The tool's own message is written for the model.
		return explanation{"shell: " + tools.ErrShellDisabled.Error(), "pass --allow-shell to let the agent run shell commands"}
	case errors.Is(err, tools.ErrNoConfirmer):
		return explanation{msg, "pass --yes to allow tool commands without asking"}
	case errors.Is(err, tools.ErrTimeout):
		return explanation{msg, "raise --tool-timeout to allow more"}
	case errors.Is(err, tools.ErrSearchRefused):
		return explanation{msg, "or use --search-engine searxng"}
	}
	return explanation{msg, ""}
}

// times says how many times: "3 times".
func times(n int) string { return plural(n, "time", "times") }

// withProvider returns what, after the provider's name when there is one:
// "ollama: the server failed".
func withProvider(provider, what string) string {
	if provider == "" {
		return what
	}
	return provider + ": " + what
}

// or joins ways to do something: "a, or b".
func or(ways ...string) string {
	var kept []string
	for _, w := range ways {
		if w = strings.TrimPrefix(strings.TrimSpace(w), "or "); w != "" {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, ", or ")
}

// explainLimit says which limit a run reached without an answer, with
// its value, why asking for the answer gave none, and what to do: the
// flag that moves the limit, or, when the call that asked failed, what
// that call's error says.
func explainLimit(e *agent.LimitError, in situation) explanation {
	var after, do string
	switch e.Reason {
	case event.StopMaxIterations:
		after, do = "after "+plural(e.MaxIterations, "iteration", "iterations"), "raise --max-iterations to allow more"
	case event.StopTimeout:
		after, do = "at the run's time limit", "raise --timeout to allow more"
		if e.Timeout > 0 {
			after = "at the run's time limit of " + e.Timeout.String()
		}
	case event.StopRepeatedCall:
		after, do = "after it made the same tool call a third time", "try another model"
	default:
		after = "when the run stopped (" + string(e.Reason) + ")"
	}
	switch {
	case e.Reason == event.StopTimeout && (!e.Asked || errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, model.ErrTimeout)):
		return explanation{"the run reached its time limit" + strings.TrimPrefix(after, "at the run's time limit") + " before the model gave a final answer", do}
	case e.Err == nil && e.Reason == event.StopRepeatedCall:
		return explanation{"the model made the same tool call a third time, and gave no final answer when asked for one", do}
	case e.Err == nil:
		return explanation{"the model gave no final answer when asked for one " + after, do}
	case errors.Is(e.Err, agent.ErrTokenLimit):
		return explanation{"the final answer asked for " + after + " was cut off at the token limit of a reply",
			"raise --max-tokens (or the server's own bound on a reply)"}
	}
	x := explain(e.Err, in)
	x.what += ", when asked for a final answer " + strings.Replace(after, "after it made", "after the model made", 1)
	return x
}

// explainQuestion says that the question of q is longer than the model's
// context window holds, and what can help, the window's own way to be
// larger first: never a shorter prompt, or fewer tools, or shorter
// observations, which leave the question as long.
func explainQuestion(q *agent.QuestionTooLongError) explanation {
	w := q.Window
	what := fmt.Sprintf("the question is about %d tokens, more than the model's context window of %d tokens holds", q.Tokens, w.Max)
	if q.Err == nil {
		what += ", and was not sent"
	} else {
		what += ", as the server found"
	}
	ways := []string{"ask a shorter question"}
	switch {
	case w.Fix == model.SettingNumCtx && w.Detail != "":
		ways = append(ways, "raise --num-ctx ("+w.Detail+")")
	case w.Fix == model.SettingNumCtx:
		ways = append(ways, "raise --num-ctx")
	case w.Hint != "":
		ways = append(ways, w.Hint)
	}
	return explanation{what, or(append(ways, "use a model with a larger context window")...)}
}

// modelWhat says what happened of a model error e, from its fields: what
// the client could not reach and why, what an error status means with the
// server's own words beside it, or the client's own words of what it
// found wrong; each once.
func modelWhat(e *model.Error) string {
	what := tidy("", e.Err.Error())
	said := e.Said
	if said == "" && e.StatusCode > 0 {
		said = fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	switch cause := networkCause(e); {
	case cause != "" && e.Detail != "":
		// Without the client's request line: "cannot reach Ollama at
		// URL (connection refused)".
		what = fmt.Sprintf("%s (%s)", e.Detail, cause)
	case errors.Is(e, model.ErrWrongServer), errors.Is(e, model.ErrIdle), errors.Is(e, model.ErrReplyTooLarge):
		// The client's words say it; Detail says it again.
	case errors.Is(e, model.ErrContextOverflow) && !errors.Is(e, model.ErrContextFull) && e.StatusCode == 0 && e.PromptTokens > e.ContextTokens && e.ContextTokens > 0:
		// Measured by the client: the sizes, not the sentinel's words
		// before them.
		what = fmt.Sprintf("the prompt is about %d tokens, more than the model's context window of %d", e.PromptTokens, e.ContextTokens)
		if e.Detail != "" {
			what += " (" + e.Detail + ")"
		}
	case errors.Is(e, model.ErrContextFull) && e.Detail != "":
		// Detail says what bounds the window, beside the sizes.
		what += " (" + e.Detail + ")"
	case e.Detail == "":
	case e.StatusCode == 0:
		what += "; " + e.Detail
	case errors.Is(e, model.ErrNoModel), errors.Is(e, model.ErrContextOverflow):
		// Detail says what the server's words say, with the sizes or the
		// models installed.
		what = e.Detail
	default:
		what = fmt.Sprintf("%s (%s)", e.Detail, said)
	}
	return withProvider(e.Provider, what)
}

// explainModel says what happened of a model error e (see modelWhat), and
// what to do: its Hint, with the flag that changes what its Fix names, or
// in a chat the command.
func explainModel(e *model.Error, in situation) explanation {
	p, _ := model.Lookup(e.Provider)
	what := modelWhat(e)
	choose := "--model"
	if in.chat {
		choose = "/model"
	}
	switch e.Fix {
	case model.SettingAPIKey:
		switch {
		case errors.Is(e, model.ErrFoundKey):
			do := "pass --api-key (or set REACT_AGENT_API_KEY)"
			if p.KeyEnv != "" {
				do += fmt.Sprintf(", or --provider %s to send %s", p.Name, p.KeyEnv)
			}
			return explanation{withProvider(e.Provider, model.ErrFoundKey.Error()), do}
		case errors.Is(e, model.ErrNoAPIKey) && e.URL != "":
			return explanation{withProvider(e.Provider, fmt.Sprintf("no API key for %s", e.URL)),
				fmt.Sprintf("set %s or pass --api-key, or for a local OpenAI-compatible server pass its --base-url", p.KeyEnv)}
		case errors.Is(e, model.ErrNoAPIKey):
			return explanation{withProvider(e.Provider, "no API key"), fmt.Sprintf("set %s or pass --api-key", p.KeyEnv)}
		}
		return explanation{what, or(e.Hint, "pass --api-key")}
	case model.SettingBaseURL:
		if p.URLEnv != "" && e.Provider == "ollama" {
			return explanation{what, or(e.Hint, fmt.Sprintf("point --base-url (or %s) at your server", p.URLEnv))}
		}
		return explanation{what, or(e.Hint, "check --base-url")}
	case model.SettingModel:
		switch {
		case errors.Is(e, model.ErrNoModel) || e.StatusCode == 404 && e.Provider == "ollama":
			if near := nearest(e.Model, modelChoices(p, e.Models)); near != "" && !p.SameModel(near, e.Model) {
				// A slip of the name: the model meant comes first, then
				// how to install the one named.
				what = withProvider(e.Provider, fmt.Sprintf("there is no model %q (installed: %s)", e.Model, strings.Join(e.Models, ", ")))
				do := fmt.Sprintf("did you mean %s? Choose it with %s %s", near, choose, near)
				if e.Provider == "ollama" {
					do += fmt.Sprintf(", or install %s with `ollama pull %s`", e.Model, e.Model)
				}
				return explanation{what, do}
			}
			return explanation{what, or(e.Hint, "choose another with "+choose)}
		case e.StatusCode == 404:
			return explanation{what, or(e.Hint, fmt.Sprintf("check the model's name (%s), and that --base-url ends in /v1 for OpenAI-compatible servers", choose))}
		}
		return explanation{what, or(e.Hint, fmt.Sprintf("check the model's name (%s) and the sampling options", choose))}
	case model.SettingProvider:
		switch {
		case errors.Is(e, model.ErrUnknownServer):
			return explanation{what, "pass --provider to say which server it is: " + list(model.Names())}
		case errors.Is(e, model.ErrWrongServer) && e.Fitting != "":
			return explanation{what, "pass --provider " + e.Fitting}
		}
		return explanation{what, or(e.Hint, "check --provider")}
	case model.SettingNumCtx:
		return explanation{what, windowAdvice(e, in)}
	case model.SettingTemperature:
		return explanation{what, "raise --temperature (0.7, say), leave out --constrain on, or try another model"}
	case model.SettingTimeout:
		return explanation{what, or(e.Hint, "raise --timeout")}
	case model.SettingMaxReplyBytes:
		return explanation{what, "raise --max-reply if the reply is meant to be that large"}
	case model.SettingIdleTimeout:
		return explanation{what, "raise --idle-timeout if the model is slow to start"}
	case model.SettingReplay:
		return explanation{what, "pass --replay FILE, a cassette written with --record"}
	case model.SettingRecord:
		return explanation{what, "record the run again with --record FILE against a model"}
	}
	if errors.Is(e, model.ErrContextOverflow) {
		// The model says what makes its window larger, if anything does:
		// said once, with the flags that do it.
		return explanation{what, windowAdvice(e, in)}
	}
	return explanation{what, e.Hint}
}

// windowAdvice says, with the flags that do it, what makes room for a
// prompt that nears or passes the context window, as the model error e
// knows it: a larger window where the client asks for it (--num-ctx), or
// the server's own words for it, or nothing; and a prompt that holds
// less, when it holds observations to shorten. Every warning and error of
// the window says it so.
func windowAdvice(e *model.Error, in situation) string {
	less := "lower --max-observation"
	if in.first {
		less = "" // no observation yet
	}
	switch {
	case e.Fix == model.SettingNumCtx:
		return or("raise --num-ctx (if the model takes it)", less)
	case e.Hint != "":
		return or(e.Hint, less)
	}
	return less
}

// nothingAnswered says that nothing answered at the address where a
// server was to be found (model.ErrNoServer), and how to start each kind
// of server there.
func nothingAnswered(e *model.Error) (what, do string) {
	what = tidy("", model.Brief(e))
	if cause := networkCause(e); cause != "" {
		what = fmt.Sprintf("nothing answered at %s (%s)", e.URL, cause)
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		return what, ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
		port = cmp.Or(port, "80")
	}
	return what, fmt.Sprintf("start a model server there, such as Ollama (OLLAMA_HOST=%s ollama serve), llama.cpp (llama-server -m MODEL.gguf --port %s) or vLLM (vllm serve MODEL --port %s)",
		net.JoinHostPort(u.Hostname(), port), port, port)
}

// allStartErrors reports whether errs are all MCP servers that did not
// start.
func allStartErrors(errs []error) bool {
	var se *mcp.StartError
	for _, err := range errs {
		if !errors.As(err, &se) {
			return false
		}
	}
	return len(errs) > 0
}

// explainStarts says which MCP servers did not start and why, a line
// each, and what to do about the first.
func explainStarts(errs []error) explanation {
	var lines []string
	var first *mcp.StartError
	for _, err := range errs {
		var se *mcp.StartError
		errors.As(err, &se)
		if first == nil {
			first = se
		}
		line := tidy("", se.Error())
		if cause := networkCause(se); cause != "" && se.URL != "" {
			line = fmt.Sprintf("MCP server %q", se.Server)
			if se.File != "" {
				line += fmt.Sprintf(" (from %s)", se.File)
			}
			line += fmt.Sprintf(" did not start: nothing answered at %s (%s)", redact.URL(se.URL), cause)
		}
		lines = append(lines, line)
	}
	var do string
	switch {
	case first.URL == "" && errors.Is(first, context.DeadlineExceeded):
		do = "a server that is fetched when it starts (npx -y …) may need longer the first time: run its command once in a terminal, then try again"
	case first.URL != "":
		do = "check that the server is up at that address, and its url and headers in the file given with --mcp-config (or the mcp section of --tools-config)"
	default:
		do = "run its command in a terminal to see why, then fix it in the file given with --mcp-config (or the mcp section of --tools-config), or leave the server out"
	}
	return explanation{strings.Join(lines, "\n"), do}
}

// networkCause names in a few words why a server could not be reached,
// or returns "" when err is no network failure.
func networkCause(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host: " + dns.Name
	case errors.As(err, &dns):
		return "the host name could not be looked up"
	case errors.As(err, &op) && op.Timeout():
		return "the connection timed out"
	}
	return ""
}

// withHints passes each event on to fn, followed by a note for the
// person at the terminal where the observation of a tool call is written
// for the model: the shell tool is off, and only a flag turns it on; a
// server the tool calls could not be reached, and what to check.
func withHints(fn func(event.Event)) func(event.Event) {
	said, saidNet := false, false
	return func(e event.Event) {
		fn(e)
		if e.Kind == event.Observation && errors.Is(e.Err, tools.ErrShellDisabled) && !said {
			said = true
			fn(event.Event{Kind: event.Notice, Turn: e.Turn, Iteration: e.Iteration,
				Text: "the model asked for the shell, which is off: pass --allow-shell to let it run commands (each one asked first)"})
		}
		var unreachable *tools.UnreachableError
		if e.Kind == event.Observation && errors.As(e.Err, &unreachable) && !saidNet {
			saidNet = true
			msg, more := unreachableAdvice(unreachable)
			fn(event.Event{Kind: event.Notice, Turn: e.Turn, Iteration: e.Iteration, Text: msg + "; " + more})
		}
	}
}

// notices passes each event on to fn, but for the agent's notices (how
// the server binds the steps, say) and the calls made again at once for
// what another line says or nothing failed (a parameter or a constraint
// the server refused, a window that grew, a kept-alive connection the
// server closed), unless verbose: they tell how the run goes where
// nothing is amiss, a detail for -v. The JSON events and the log keep
// them. The notice that the run uses the compact prompt is shown: it is
// not the prompt the settings say.
func notices(verbose bool, fn func(event.Event)) func(event.Event) {
	return func(e event.Event) {
		if verbose || errors.Is(e.Err, agent.ErrFallbackTemplate) || e.Kind != event.Notice && !(e.Kind == event.Retry && quietRetry(e.RetryReason)) {
			fn(e)
		}
	}
}

// quietRetry reports whether a call made again for reason is a detail for
// -v: another line says what changed, or nothing failed.
func quietRetry(reason model.RetryReason) bool {
	switch reason {
	case model.RetryParameterDropped, model.RetryConstraintDropped, model.RetryWindowGrown, model.RetryStaleConnection,
		model.RetryStopsInReasoning:
		return true
	}
	return false
}

// advised passes each event on to fn with the message of an error or a
// warning advised for people: in a chat, naming its commands.
func advised(chat bool, fn func(event.Event)) func(event.Event) {
	return func(e event.Event) {
		// A retried call's warning stays brief: the advice comes once,
		// with the error that ends the run.
		if e.Kind == event.Error && e.Err != nil || e.Kind == event.Warning && errors.Is(e.Err, model.ErrContextOverflow) {
			e.Text = explain(e.Err, situation{chat: chat, first: e.Iteration <= 1}).String()
		}
		fn(e)
	}
}

// constrainAdvice says what to do when the server cannot bind steps to
// the tools: run without, or use a server that binds them.
const constrainAdvice = "pass --constrain auto or off to run without, or use a server that binds steps: " +
	"llama-server (--provider llamacpp), vLLM and SGLang (--provider vllm or sglang, or openai, which finds the three by their /v1/models), " +
	"and with --constrain on Ollama, LM Studio and OpenAI"
