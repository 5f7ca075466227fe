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
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/mcp"
)

// advise returns err's message with what to change on the command line,
// for people: the libraries' errors name no flags.
func advise(err error) string { return adviseStop(err, "", false) }

// adviseStop is advise for the error of a run that stopped for stop; in a
// chat, it names the chat's command that changes what its flag would
// (/model).
func adviseStop(err error, stop event.StopReason, chat bool) string {
	msg := tidy("", err.Error())
	var me *model.Error
	var unreachable *tools.UnreachableError
	var long *agent.WaitTooLongError
	var mcpStart *mcp.StartError
	var mcpConfig *mcp.ConfigError
	var more string
	switch {
	case errors.Is(err, agent.ErrTokenLimit):
		more = "raise --max-tokens (or the server's own bound on a reply), or ask for a shorter answer"
	case errors.Is(err, agent.ErrToolsRefused):
		more = "pass --protocol text (or auto), or use a model whose server supports tool calling"
	case errors.Is(err, agent.ErrNoAnswer) && errors.Is(err, context.DeadlineExceeded):
		msg, more = "the time limit of the run ran out before the model gave an answer", "raise --timeout to allow more"
	case errors.Is(err, model.ErrCannotConstrain):
		more = constrainAdvice
	case errors.Is(err, model.ErrContextOverflow) && errors.As(err, &me):
		// The model says what makes its window larger, if anything does:
		// said once, with the flags that do it.
		msg, more = tidy("", model.Brief(me)), windowAdvice(me)
	case errors.As(err, &long):
		msg, more = tidy("", err.Error()), "try again once that time is past"
	case errors.Is(err, model.ErrNoServer) && errors.As(err, &me):
		msg, more = nothingAnswered(me), "or check --base-url, or pass --provider to say which server it is"
	case errors.As(err, &me):
		msg, more = modelAdvice(me, msg, chat)
	case errors.As(err, &mcpStart) && mcpStart.URL == "" && errors.Is(err, context.DeadlineExceeded):
		more = "a server that is fetched when it starts (npx -y …) may need longer the first time: run its command once in a terminal, then try again"
	case errors.As(err, &mcpStart) && mcpStart.URL != "":
		more = "check that the server is up at that address, and its url and headers in the file given with --mcp-config (or the mcp section of --tools-config)"
	case errors.As(err, &mcpStart):
		more = "run its command in a terminal to see why, then fix it in the file given with --mcp-config (or the mcp section of --tools-config), or leave the server out"
	case errors.As(err, &mcpConfig) && errors.Is(err, mcp.ErrNoServers):
		more = "--mcp-config takes a file of MCP servers"
	case errors.As(err, &mcpConfig):
		more = "fix the file given with --mcp-config (or the mcp section of --tools-config)"
	case errors.Is(err, mcp.ErrServerStopped):
		more = "run the server's command in a terminal to see why it stops"
	case errors.Is(err, model.ErrNoImages):
		more = "for llama-server, pass --provider openai with its address (http://127.0.0.1:8080/v1), whose models may see images"
	case errors.Is(err, mcp.ErrReplyTooLarge):
		more = "the server sent more than react-agent reads from one reply; ask less of the tool, or check the server"
	case errors.Is(err, logs.ErrDamaged):
		more = "move it aside (mv LOG LOG.damaged, with its -wal and -shm files) and the next run starts a new log; sqlite3 LOG .recover may save what it holds"
	case errors.Is(err, logs.ErrNotALog):
		more = "--log-db (or REACT_AGENT_LOG_DB, or log-db in the config file) takes the path of a log, or of a file that does not exist yet; leave it out for the usual log, or pass --no-log"
	case errors.As(err, &unreachable):
		msg, more = unreachableAdvice(unreachable)
	case errors.Is(err, tools.ErrShellDisabled):
		// The tool's own message is written for the model.
		msg, more = "shell: "+tools.ErrShellDisabled.Error(), "pass --allow-shell to let the agent run shell commands"
	case errors.Is(err, tools.ErrNoConfirmer):
		more = "pass --yes to allow tool commands without asking"
	case errors.Is(err, tools.ErrTimeout):
		more = "raise --tool-timeout to allow more"
	case errors.Is(err, tools.ErrBlockedAddress):
		more = "pass --allow-private-network to allow them"
	case errors.Is(err, tools.ErrSearchRefused):
		more = "or use --search-engine searxng"
	case errors.Is(err, agent.ErrRepeatedParseError):
		// The parser's message is the model's, with the format spelled
		// out; the trace (or -v) shows it.
		msg = agent.ErrRepeatedParseError.Error()
		var repeated *agent.RepeatedParseError
		if errors.As(err, &repeated) {
			msg += fmt.Sprintf(", %d times in a row", repeated.Times)
		}
		more = "the model does not follow the reply format: try another model, --lang zh for a model that answers in Chinese, or a lower --temperature"
	case stop == event.StopRepeatedCall:
		more = "the model kept making the same call: try another model"
	case stop == event.StopMaxIterations:
		more = "raise --max-iterations to allow more"
	case stop == event.StopTimeout:
		more = "raise --timeout to allow more"
	}
	switch {
	case more == "":
		return msg
	case strings.Contains(msg, "\n"):
		// After lines quoted from elsewhere (a server's stderr), on a
		// line of its own: not read as the last of them.
		return msg + "\n" + more
	}
	return msg + "; " + more
}

// modelAdvice rewrites the message of a model error for people, and says
// which flag changes what its Fix names, or in a chat which command.
func modelAdvice(e *model.Error, msg string, chat bool) (string, string) {
	p, _ := model.Lookup(e.Provider)
	if cause := networkCause(e); cause != "" && e.Detail != "" {
		// What could not be reached and why, without the client's
		// request line: "cannot reach Ollama at URL (connection refused)".
		msg = fmt.Sprintf("%s: %s (%s)", e.Provider, e.Detail, cause)
		if e.Hint != "" {
			msg += ": " + e.Hint
		}
	}
	switch e.Fix {
	case model.SettingAPIKey:
		if errors.Is(e, model.ErrFoundKey) {
			more := "pass --api-key (or set REACT_AGENT_API_KEY)"
			if p.KeyEnv != "" {
				more += fmt.Sprintf(", or --provider %s to send %s", p.Name, p.KeyEnv)
			}
			return msg, more
		}
		if errors.Is(e, model.ErrNoAPIKey) {
			msg = fmt.Sprintf("%s: no API key: set %s or pass --api-key", e.Provider, p.KeyEnv)
			if e.URL != "" {
				return msg, fmt.Sprintf("for a local OpenAI-compatible server, pass its --base-url (%s is not local)", e.URL)
			}
			return msg, ""
		}
		return msg, "or pass --api-key"
	case model.SettingBaseURL:
		if p.URLEnv != "" && e.Provider == "ollama" {
			return msg, fmt.Sprintf("or point --base-url (or %s) at your server", p.URLEnv)
		}
		return msg, "check --base-url"
	case model.SettingModel:
		choose := "--model"
		if chat {
			choose = "/model"
		}
		switch {
		case errors.Is(e, model.ErrNoModel) || e.StatusCode == 404 && e.Provider == "ollama":
			if near := nearest(e.Model, modelChoices(p, e.Models)); near != "" && !p.SameModel(near, e.Model) {
				// A slip of the name: the model meant comes first, then
				// how to install the one named.
				msg = fmt.Sprintf("%s: there is no model %q (installed: %s)", e.Provider, e.Model, strings.Join(e.Models, ", "))
				more := fmt.Sprintf("did you mean %s? Choose it with %s %s", near, choose, near)
				if e.Provider == "ollama" {
					more += fmt.Sprintf(", or install %s with `ollama pull %s`", e.Model, e.Model)
				}
				return msg, more
			}
			return msg, "or choose another with " + choose
		case e.StatusCode == 404:
			return msg, fmt.Sprintf("check the model's name (%s), and that --base-url ends in /v1 for OpenAI-compatible servers", choose)
		}
		return msg, fmt.Sprintf("check the model's name (%s) and the sampling options", choose)
	case model.SettingProvider:
		switch {
		case errors.Is(e, model.ErrUnknownServer):
			return msg, "pass --provider to say which server it is: " + list(model.Names())
		case errors.Is(e, model.ErrWrongServer) && e.Fitting != "":
			return tidy("", model.Brief(e)), "pass --provider " + e.Fitting
		}
		return msg, "check --provider"
	case model.SettingNumCtx:
		return tidy("", model.Brief(e)), windowAdvice(e)
	case model.SettingTemperature:
		return msg, "raise --temperature (0.7, say), leave out --constrain on, or try another model"
	case model.SettingTimeout:
		return msg, "raise --timeout"
	case model.SettingMaxReplyBytes:
		return msg, "raise --max-reply if the reply is meant to be that large"
	case model.SettingIdleTimeout:
		return msg, "raise --idle-timeout if the model is slow to start"
	case model.SettingReplay:
		return msg, "pass --replay FILE, a cassette written with --record"
	case model.SettingRecord:
		return msg, "record the run again with --record FILE against a model"
	}
	return msg, ""
}

// windowAdvice says, with the flags that do it, what makes room for a
// prompt that nears or passes the context window, as the model error e
// knows it: a larger window where the client asks for it (--num-ctx), or
// the server's own words for it, or nothing; and always a prompt that
// holds less. Every warning and error of the window says it so.
func windowAdvice(e *model.Error) string {
	const less = "lower --max-observation"
	switch {
	case e.Fix == model.SettingNumCtx:
		return "raise --num-ctx (if the model takes it), or " + less
	case e.Hint != "":
		return e.Hint + ", or " + less
	}
	return less
}

// nothingAnswered says that nothing answered at the address where a
// server was to be found (model.ErrNoServer), and how to start each kind
// of server there.
func nothingAnswered(e *model.Error) string {
	msg := tidy("", model.Brief(e))
	if cause := networkCause(e); cause != "" {
		msg = fmt.Sprintf("nothing answered at %s (%s)", e.URL, cause)
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		return msg
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
		port = cmp.Or(port, "80")
	}
	return fmt.Sprintf("%s: start a model server there, such as Ollama (OLLAMA_HOST=%s ollama serve), llama.cpp (llama-server -m MODEL.gguf --port %s) or vLLM (vllm serve MODEL --port %s)",
		msg, net.JoinHostPort(u.Hostname(), port), port, port)
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
			e.Text = adviseStop(e.Err, e.StopReason, chat)
		}
		fn(e)
	}
}

// constrainAdvice says which servers bind steps to the tools.
const constrainAdvice = "steps are bound by --provider llamacpp (llama-server), --provider vllm or sglang " +
	"(or --provider openai, which finds llama-server, vLLM and SGLang by their /v1/models), and with --constrain on also by Ollama, " +
	"LM Studio and OpenAI; pass --constrain auto or off to run without"
