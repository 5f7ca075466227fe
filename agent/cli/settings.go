package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/redact"
	"github.com/react-agent/react-agent/tools/escape"
)

// settingsCommand is `react-agent settings`: the settings of ask and chat
// after the flags, the environment and the config file, each with where
// its value came from.
func settingsCommand() *command {
	return &command{
		name: "settings", args: "[flags]", does: "show each setting, its value and where it came from",
		synopsis: "settings [flags]\n       react-agent settings set NAME VALUE | unset NAME",
		examples: `  react-agent settings
  REACT_AGENT_MODEL=llama3.2 react-agent settings --config ./config.yaml
  react-agent settings set model qwen2.5:7b   (kept in the config file)
  react-agent settings unset model

Each setting is a flag's name, read from the flag, then from its
REACT_AGENT_* variable (REACT_AGENT_MAX_ITERATIONS for --max-iterations),
then from the config file; "settings set" writes it to the config file.
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addAgentFlags(fs)
			var force bool
			addForce(fs, &force)
			return func(c *call) error { return runSettings(c, f, force) }
		},
		check: func(args []string) error {
			switch {
			case len(args) == 0:
			case args[0] == "set" && len(args) == 3, args[0] == "unset" && len(args) == 2:
			case args[0] == "set":
				return usagef("settings set takes a setting's name and its value, as in: react-agent settings set model qwen2.5:7b")
			case args[0] == "unset":
				return usagef("settings unset takes a setting's name, as in: react-agent settings unset model")
			default:
				return usagef("settings takes no arguments, or set NAME VALUE, or unset NAME; got %q", args)
			}
			return nil
		},
		writesSettings: func(args []string) bool { return len(args) > 0 },
		complete: func(_ *env, args []string) ([]candidate, bool) {
			switch {
			case len(args) == 0:
				return []candidate{{"set", "keep a setting in the config file"}, {"unset", "take a setting out of the config file"}}, false
			case len(args) == 1 && (args[0] == "set" || args[0] == "unset"):
				var all []candidate
				for _, name := range allSettings() {
					all = append(all, candidate{name, ""})
				}
				return all, false
			}
			return nil, false
		},
	}
}

// runSettings prints the settings, or sets or unsets one in the config
// file.
func runSettings(c *call, f *agentFlags, force bool) error {
	fs, stdout, stderr := c.fs, c.stdout, c.stderr
	if len(c.args) > 0 {
		return c.writeSettings(c.args[0] == "unset", force, c.args[1:]...)
	}
	if f.cassette.replay != "" && !fs.Changed("provider") {
		f.model.Provider = "replay" // as ask reads it
	}
	if err := c.adoptLoggedConversation(f); err != nil {
		return err
	}
	if err := c.findProvider(c.ctx, fs, &f.model); err != nil && !errors.Is(err, model.ErrNoServer) {
		return err // where nothing answers, the settings are still those a run would take
	}
	f.model.DefaultModel = c.config.defaultModel
	if one := c.oneServed(c.ctx, f.model); one != "" {
		fs.Set("model", one)
		fs.SetAnnotation("model", sourceAnnotation, []string{theOneServed})
	}
	resolved, rerr := model.Resolve(c.withEnv(f.model))
	prov := resolved.Provider
	served := c.serverSide(f.model, resolved, rerr)
	var rows [][3]string
	for _, name := range settingNames(fs) {
		fl := fs.Lookup(name)
		value, source := fl.Value.String(), "default"
		switch from := fl.Annotations[sourceAnnotation]; {
		case len(from) > 0:
			source = from[0]
		case fl.Changed:
			source = "command line"
		}
		// What an empty or automatic value comes to, and from where.
		switch {
		case name == "base-url" && rerr == nil && resolved.URL != "":
			// The address as the server is asked: "host:port" with its
			// scheme, an OpenAI-compatible one with /v1.
			switch value = resolved.URL; resolved.URLFrom {
			case "":
			case model.FromDefault:
				source = "default of " + prov.Name
			default:
				source = resolved.URLFrom
			}
		case source != "default":
		case name == "model" && served.modelFrom != "":
			value, source = served.model, served.modelFrom
		case name == "num-ctx" && served.windowFrom != "":
			value, source = served.window, served.windowFrom
		case name == "model" && rerr == nil && c.config.defaultModel(prov.Name) != "":
			value, source = resolved.Model, c.config.path
		case name == "model" && rerr == nil:
			value, source = resolved.Model, "default of "+prov.Name
		case name == "api-key" && resolved.KeyFrom != model.FromDefault && resolved.KeyFrom != "":
			source = resolved.KeyFrom
		case name == "api-key" && f.model.Found && prov.KeyEnv != "" && c.getenv(prov.KeyEnv) != "":
			// The key waits for a server the user chooses.
			value, source = "(none)", fmt.Sprintf("not %s: a server found gets it only with --provider %s", prov.KeyEnv, prov.Name)
		case name == "num-ctx" && value == "0":
			value, source = strconv.Itoa(model.DefaultNumCtx), "default: grows as a prompt needs"
		case name == "stream" && !f.noStream:
			value, source = strconv.FormatBool(c.terminal(stderr)), "default: on at a terminal"
		case name == "stop":
			var quoted []string
			for _, s := range agent.DefaultStopSequences() {
				quoted = append(quoted, strconv.Quote(s))
			}
			value = "[" + strings.Join(quoted, " ") + "]"
		case name == "log-db":
			if path, err := c.defaultLog(); err == nil {
				value = path
			}
		case name == "tool":
			source = "default: " + describeChoice(nil)
		}
		switch {
		case name == "api-key" && value == "(none)":
		case name == "api-key" && (value != "" || source != "default"):
			value = "(set)"
		case name == "api-key":
			value = "(none)"
		case name == "base-url", name == "search-url":
			value = hideURLSecrets(value)
		}
		value = strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(c.forTerminal(stdout, value))
		rows = append(rows, [3]string{name, value, "(" + source + ")"})
	}
	for _, line := range columns(rows, 30) {
		fmt.Fprintln(stdout, line)
	}
	if rerr != nil {
		fmt.Fprintf(stderr, "react-agent: %s\n", escape.Visible(advise(rerr)))
	}
	return nil
}

// writeSettings is settings set NAME VALUE, and settings unset NAME with
// unset: it writes the setting to the config file, or takes it out. The
// model is the default model of the provider ask would use.
func (c *call) writeSettings(unset, force bool, args ...string) error {
	stderr := c.stderr
	name, value := args[0], ""
	if !unset {
		value = args[1]
		if err := checkSetting(name, value); err != nil {
			return err
		}
	}
	if name == "model" {
		_, f, cf := c.askSettings(c.fs)
		f.model.DefaultModel = cf.defaultModel
		if !unset {
			return c.setDefaultModel(cf.path, f.model, value, force)
		}
		if _, err := writeDefaultModel(cf.path, f.model.Provider, "", true); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "the default model of %s is out of %s\n", f.model.Provider, cf.path)
		return nil
	}
	path := c.configPath(c.fs)
	if err := writeSetting(path, name, value, unset); err != nil {
		return err
	}
	if unset {
		fmt.Fprintf(stderr, "%s is out of %s\n", name, path)
	} else {
		fmt.Fprintf(stderr, "%s is %s from now on (in %s)\n", name, c.forTerminal(stderr, value), path)
	}
	return nil
}

// serverSet is what a server sets itself of the settings, for settings
// to show: the model llama-server loaded, and the context window of a
// server whose window the client does not ask for.
type serverSet struct {
	model, modelFrom   string
	window, windowFrom string
}

// serverSide returns what the server of m, resolved as r (rerr its
// error), sets itself, asking it for a second at most: llama-server serves
// the one model it loaded, and every server but Ollama sets its context
// window (llama-server's -c), which --num-ctx does not change. Ollama's
// model and window are the client's to ask for: nothing is said of them.
func (e *env) serverSide(m model.Config, r model.Resolved, rerr error) serverSet {
	var s serverSet
	if rerr != nil || r.Provider.Name == "ollama" || r.Provider.Name == "replay" {
		return s
	}
	s.window, s.windowFrom = "", "set by the server, not --num-ctx"
	if r.Provider.Name == "llamacpp" && r.ModelFrom == model.FromDefault && r.Model == r.Provider.DefaultModel {
		s.model, s.modelFrom = "", "the one llama-server loaded; it does not answer now"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	cfg := e.withEnv(m)
	if r.URLFrom == model.FromDefault && r.Provider.Name != "llamacpp" {
		return s // a hosted API says nothing of its window
	}
	if mod, err := model.New(ctx, cfg); err == nil {
		if n := model.WindowOf(ctx, mod).Tokens; n > 0 {
			s.window, s.windowFrom = strconv.Itoa(n), "the server's"
			if r.Provider.Name == "llamacpp" {
				s.windowFrom = "llama-server's -c"
			}
		}
	}
	return s
}

// columns lays rows out in aligned columns two spaces apart, and returns
// the lines. A column is as wide as its widest cell, up to most columns:
// a wider cell pushes the rest of its row on, so that one long value does
// not widen the whole table.
func columns(rows [][3]string, most int) []string {
	var widths [2]int
	for _, r := range rows {
		for k := range widths {
			if n := utf8.RuneCountInString(r[k]); n <= most {
				widths[k] = max(widths[k], n)
			}
		}
	}
	var lines []string
	for _, r := range rows {
		line := ""
		for k, cell := range r[:2] {
			line += cell + strings.Repeat(" ", max(widths[k]-utf8.RuneCountInString(cell), 0)+2)
		}
		lines = append(lines, strings.TrimRight(line+r[2], " "))
	}
	return lines

}

// adoptLoggedConversation gives the settings of --continue and --cid the
// provider, model and server of the conversation they name, as ask and
// chat take them, reading the log without writing to it. A log that is
// not there has no conversation to continue.
func (c *call) adoptLoggedConversation(f *agentFlags) error {
	l := f.log
	if !l.resume && l.cid == "" {
		return nil
	}
	if l.off {
		return usagef("--continue and --cid read the log, which --no-log (or no-log in the config file) turns off")
	}
	path, err := c.logPath(l)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if l.cid != "" {
			return fmt.Errorf("conversation %s: %w: the log %s holds no runs yet", l.cid, logs.ErrNotFound, path)
		}
		return nil
	}
	sess, err := logs.OpenSession(c.ctx, path)
	if err != nil {
		return err
	}
	defer sess.Close()
	switch err := sess.Continue(c.ctx, l.cid); {
	case errors.Is(err, logs.ErrNotFound) && l.cid == "":
		return nil
	case err != nil:
		return err
	}
	c.adoptConversation(c.fs, f, sess)
	return nil
}

// hideURLSecrets returns a server's URL with its password, and a key in
// its query, hidden, as the API key is.
func hideURLSecrets(raw string) string {
	return redact.Text(redact.URL(raw))
}
