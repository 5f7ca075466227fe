package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools/escape"
)

// addModelFlags adds the flags that say which model server to talk to
// and, with sampling, which model and how it samples.
func addModelFlags(fs *pflag.FlagSet, m *model.Config, sampling bool) {
	grouped(fs, "Model flags", func() {
		ollama, _ := model.Lookup("ollama")
		fs.StringVar(&m.Provider, "provider", ollama.Name, "model provider: "+strings.Join(model.Names(), ", "))
		if sampling {
			fs.StringVarP(&m.Model, "model", "m", "", fmt.Sprintf("model name (default: the provider's default model, which models default NAME sets; else %s on ollama, the provider's own elsewhere)", ollama.DefaultModel))
		}
		fs.StringVar(&m.BaseURL, "base-url", "", fmt.Sprintf("server URL (default: %s or %s for ollama, OPENAI_BASE_URL for openai); without --provider, the server is asked which it is",
			ollama.URLEnv, ollama.Address))
		fs.StringVar(&m.APIKey, "api-key", "", "API key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY, for the provider chosen; a server found at --base-url gets none); a local server needs none")
		if sampling {
			fs.Var(atLeast(&m.NumCtx, 0, 1, model.DefaultNumCtx), "num-ctx", numCtxUsage)
			fs.IntVar(&m.MaxTokens, "max-tokens", model.DefaultMaxTokens, "tokens one reply may hold, sent on every call (-1: the server's own bound); a reply cut at it is never an answer")
			fs.Var(temperature(&m.Temperature), "temperature", "sampling temperature, from 0 to 2")
			fs.VarP(&modelOptions{m: m}, "option", "o", "a model option sent as it is with every call, `KEY=VALUE` or KEY VALUE, such as -o repeat_penalty 1.1 (repeatable; a JSON number, boolean, list or object is sent as one)")
		}
		fs.Int64Var(&m.MaxReplyBytes, "max-reply", model.DefaultMaxReplyBytes, "bytes one reply of the model server may hold; a larger one is an error")
		fs.DurationVar(&m.IdleTimeout, "idle-timeout", model.DefaultIdleTimeout, "time the model server may send nothing, before or within a reply")
	})
}

// checkProvider returns a usage error when name, the provider setting of
// fs, is no provider; it names the setting where the name came from.
func checkProvider(fs *pflag.FlagSet, name string) error {
	if _, ok := model.Lookup(name); !ok {
		return usagef("%s: %s", asGiven(fs, "provider"), unknown("provider", name, model.Names()))
	}
	return nil
}

// numCtxUsage is the help of --num-ctx.
var numCtxUsage = fmt.Sprintf("context window asked of Ollama, in tokens, and the most it grows to (default: %d, grown once when a prompt needs more, up to what the model takes)",
	model.DefaultNumCtx)

// withEnv returns cfg read in e's environment, from which model.New
// takes what cfg leaves empty: the server's URL and the API key from the
// provider's own variables (OLLAMA_HOST, OPENAI_API_KEY, …; a key only
// for a provider chosen, not found), and the proxy.
func (e *env) withEnv(cfg model.Config) model.Config {
	if cfg.Getenv == nil {
		cfg.Getenv = e.getenv
	}
	return cfg
}

// modelsFlags are the flags of models.
type modelsFlags struct {
	model model.Config
	json  bool
	force bool
}

// addModelsFlags adds the flags of models to fs.
func addModelsFlags(fs *pflag.FlagSet) *modelsFlags {
	f := &modelsFlags{}
	addModelFlags(fs, &f.model, false)
	grouped(fs, "Output flags", func() {
		fs.BoolVar(&f.json, "json", false, `print a JSON list, [{"name": …}], rather than a name a line`)
	})
	addConfigFlag(fs)
	addForce(fs, &f.force)
	return f
}

// modelsCommand is `react-agent models`: the models the provider's server
// serves, one a line.
func modelsCommand() *command {
	return &command{
		name: "models", args: "[flags]", does: "list the models the provider serves",
		synopsis: "models [flags]\n       react-agent models default [NAME]",
		examples: `  react-agent models
  react-agent models --base-url http://127.0.0.1:8080   (any kind of server)
  react-agent models --json
  react-agent models default llama3.1:8b   (kept in the config file)
  react-agent models default llama3.1:8b --force   (the server is down)

The model ask and chat use unless --model says otherwise is marked
(default); "models default NAME" makes NAME that model of the provider in
force, once its server said it serves NAME: each provider has its own.
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addModelsFlags(fs)
			return func(c *call) error {
				if len(c.args) == 1 && c.args[0] == "list" {
					c.args = nil // as in llm, and as logs list is logs
				}
				return runModels(c, f)
			}
		},
		check: func(args []string) error {
			switch {
			case len(args) == 0, len(args) == 1 && args[0] == "list", args[0] == "default" && len(args) <= 2:
				return nil
			case args[0] == "default":
				return usagef("models default takes one model's name, as in: react-agent models default qwen2.5:7b")
			}
			return usagef("models takes no argument, list, or default [NAME]; got %q%s", args, didYouMean(args[0], []string{"list", "default"}))
		},
		writesSettings: func(args []string) bool { return len(args) == 2 },
		signals:        signalsCancel,
		complete: func(e *env, args []string) ([]candidate, bool) {
			if len(args) == 0 {
				return []candidate{{"default", "show the default model, or choose it"}}, false
			}
			return nil, false
		},
	}
}

// checkModelName refuses a name no server gives a model: empty, longer
// than 256 bytes, or holding spaces, control or invisible characters,
// which would go into the config file and on every request, or a part of
// a URL ("://", "?", "#", a "." or ".." between slashes), which a server
// that puts the name in its path would read as one.
func checkModelName(name string) error {
	ok := name != "" && len(name) <= 256 && utf8.ValidString(name) && escape.Visible(name) == name &&
		!strings.ContainsFunc(name, unicode.IsSpace) && !strings.ContainsAny(name, "?#") && !strings.Contains(name, "://") &&
		!slices.ContainsFunc(strings.Split(name, "/"), func(part string) bool { return part == "." || part == ".." })
	if !ok {
		return usagef("%q is not a model's name: a name is one word of printable characters, like qwen2.5:7b (react-agent models lists them)", name)
	}
	return nil
}

// runModels lists the models, or shows or sets the default one.
func runModels(c *call, f *modelsFlags) error {
	ctx, stdout, stderr := c.ctx, c.stdout, c.stderr
	fs, m, cf := c.fs, &f.model, c.config
	if len(c.args) == 2 {
		// The config file is written, not read: the settings ask would
		// take say which provider the default is for.
		var af *agentFlags
		fs, af, cf = c.askSettings(c.fs)
		m = &af.model
	}
	if err := checkProvider(fs, m.Provider); err != nil {
		return err
	}
	if err := c.findProvider(ctx, fs, m); err != nil {
		return err
	}
	m.DefaultModel = cf.defaultModel
	prov, _ := model.Lookup(m.Provider)
	if len(c.args) == 2 {
		return c.setDefaultModel(cf.path, *m, c.args[1], f.force)
	}
	def := c.defaultModel(*m)
	if len(c.args) == 1 {
		fmt.Fprintln(stdout, c.forTerminal(stdout, def))
		return nil
	}
	infos, err := model.Models(ctx, c.withEnv(*m))
	if err != nil {
		return interrupted(ctx, err)
	}
	if f.json {
		type entry struct {
			model.Info
			Default bool `json:"default,omitempty"`
		}
		list := []entry{}
		for _, info := range infos {
			list = append(list, entry{info, prov.SameModel(info.Name, def)})
		}
		return c.writeJSON(stdout, list)
	}
	if len(infos) == 0 {
		fmt.Fprintln(stderr, "react-agent: the server serves no model yet")
	}
	var rows [][3]string
	for _, info := range infos {
		size, date := "", ""
		if info.Size > 0 {
			size = humanSize(info.Size)
		}
		if !info.Modified.IsZero() {
			date = info.Modified.Local().Format("2006-01-02")
		}
		mark := ""
		if prov.SameModel(info.Name, def) {
			mark = "(default)"
		}
		rows = append(rows, [3]string{c.forTerminal(stdout, info.Name), strings.TrimSpace(size + "  " + date), mark})
	}
	for _, line := range columns(rows, 40) {
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// setDefaultModel makes name the default model of m's provider in the
// config file at path, once the provider's server said it serves it; a
// name it does not serve is refused, with the name meant, and the default
// stays as it was. With force, or where the server cannot say (it lists
// no models, or serves whatever it is asked for), the name is kept
// without asking.
func (c *call) setDefaultModel(path string, m model.Config, name string, force bool) error {
	stderr := c.stderr
	if err := checkModelName(name); err != nil {
		return err
	}
	if path == "" {
		path = c.configPath(c.fs)
	}
	if !force {
		if err := c.checkServed(c.ctx, m, name, "--force"); err != nil {
			msg := fmt.Sprintf("%s; the default model of %s stays %s", err, m.Provider, escape.Visible(c.defaultModel(m)))
			if isUsage(err) {
				return usagef("%s", msg)
			}
			return errors.New(msg)
		}
	}
	moved, err := writeDefaultModel(path, m.Provider, name, false)
	if err != nil {
		return err
	}
	if moved != "" {
		fmt.Fprintf(stderr, "react-agent: %s\n", c.forTerminal(stderr, moved))
	}
	fmt.Fprintf(stderr, "the default model of %s is %s from now on (%s: in %s)\n", m.Provider, c.forTerminal(stderr, name), defaultModelKey, path)
	return nil
}

// checkServed asks m's server whether it serves the model called name,
// as the ollama CLI does before it uses one, and returns nil when it does,
// or when the server cannot say: a provider that lists no models, or
// llama-server, which serves the one it loaded whatever it is asked for.
// A name it does not serve is a usage error with the name meant; a
// server that cannot be asked is an error that says to start it, or to
// pass force, a flag, to go on without asking (when force is not "").
func (e *env) checkServed(ctx context.Context, m model.Config, name, force string) error {
	prov, _ := model.Lookup(m.Provider)
	switch prov.Name {
	case "llamacpp", "anthropic", "replay":
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cfg := e.withEnv(m)
	where := prov.Name
	if r, err := model.Resolve(cfg); err == nil && r.URL != "" {
		where += " at " + model.Redact(r.URL)
	}
	names, err := model.List(ctx, cfg)
	if err != nil {
		// The model's error is not wrapped: its advice is for a run.
		why := networkCause(err)
		if why == "" {
			why = model.Brief(err)
		}
		msg := fmt.Sprintf("cannot ask %s whether it serves %s (%s)", where, escape.Visible(name), why)
		if force != "" {
			msg += fmt.Sprintf("; start the server, or pass %s to go on without asking", force)
		}
		return errors.New(msg)
	}
	if slices.ContainsFunc(names, func(n string) bool { return prov.SameModel(n, name) }) {
		return nil
	}
	msg := fmt.Sprintf("%s does not serve %s", where, escape.Visible(name))
	switch near := nearest(name, modelChoices(prov, names)); {
	case near != "":
		msg += fmt.Sprintf("; did you mean %s?", escape.Visible(near))
	case len(names) == 0:
		msg += "; it serves no model yet"
	case len(names) > 10:
		msg += fmt.Sprintf("; it serves %s and %d more (react-agent models lists them)", escape.Visible(strings.Join(names[:10], ", ")), len(names)-10)
	default:
		msg += fmt.Sprintf("; it serves %s", escape.Visible(list(names)))
	}
	if prov.Name == "ollama" {
		msg += fmt.Sprintf(" (to install %s: ollama pull %s)", escape.Visible(name), escape.Visible(name))
	}
	return usagef("%s", msg)
}

// addForce adds --force to fs, for the commands that set the default
// model.
func addForce(fs *pflag.FlagSet, force *bool) {
	grouped(fs, "Settings flags", func() {
		fs.BoolVar(force, "force", false, "with default NAME (settings: set model NAME), keep the name without asking the server whether it serves it, as for a server that is down")
	})
}

// modelChoices returns the names of the models a server serves, as a
// name may be written for them: on Ollama, "qwen2.5" for
// "qwen2.5:latest".
func modelChoices(p model.Provider, names []string) []string {
	var choices []string
	for _, n := range names {
		if short, ok := strings.CutSuffix(n, ":latest"); ok && p.SameModel(short, n) {
			n = short
		}
		choices = append(choices, n)
	}
	return choices
}

// defaultModel returns the model that ask and chat use on m's provider
// unless --model says otherwise: REACT_AGENT_MODEL's, the provider's
// default in the config file, or the provider's own.
func (e *env) defaultModel(m model.Config) string {
	r, _ := model.Resolve(e.withEnv(model.Config{Provider: m.Provider, Model: e.getenv(envName("model")), DefaultModel: m.DefaultModel}))
	return r.Model
}

// askSettings returns the flags of ask, as ask would take them with
// those of fs given on the command line (the model's, and --config),
// the environment and the config file, and the config file. A mistake
// in the settings is left to the command that reads them to say: a
// command that writes the config file works though the file has one.
func (e *env) askSettings(fs *pflag.FlagSet) (*pflag.FlagSet, *agentFlags, configFile) {
	afs := pflag.NewFlagSet("ask", pflag.ContinueOnError)
	f := addAgentFlags(afs)
	for _, name := range []string{"provider", "model", "base-url", "api-key"} {
		if fl := fs.Lookup(name); fl != nil && fl.Changed {
			afs.Set(name, fl.Value.String())
		}
	}
	afs.Set("config", e.configPath(fs))
	cf, _ := e.applySettings(afs)
	if cf.path == "" {
		cf.path = e.configPath(fs)
	}
	return afs, f, cf
}

// findProvider makes m's provider that of the server at m's address, as
// what the server answers tells (see model.Identify), when an address
// was given and no provider chosen: on the command line, in the
// environment or the config file, or by a continued conversation. The
// server found gets a key only from --api-key (or REACT_AGENT_API_KEY,
// or the config file's api-key), never from the provider's variable
// (OPENAI_API_KEY), which holds a key for the servers the user chose.
// A server that answers as none of those known, where nothing answers,
// or that sends the questions to another server, is an error that says
// what to do; one whose answers break off is left to the default
// provider, whose call says so.
func (e *env) findProvider(ctx context.Context, fs *pflag.FlagSet, m *model.Config) error {
	if fs.Changed("provider") || m.BaseURL == "" || m.Provider == "replay" {
		return nil
	}
	found, err := model.Identify(ctx, e.withEnv(*m))
	switch {
	case errors.Is(err, model.ErrUnknownServer), errors.Is(err, model.ErrNoServer), errors.Is(err, model.ErrRedirected):
		return err
	case err != nil:
		return nil
	}
	fs.Set("provider", found.Provider)
	fs.SetAnnotation("provider", sourceAnnotation, []string{foundAt + hideURLSecrets(m.BaseURL)})
	m.Provider, m.Server, m.Found = found.Provider, found.Server, found.Found
	return nil
}

// foundAt starts the source of a provider that the server's answers told.
const foundAt = "found at "

// theOneServed is the source of a model that no setting named, and that is
// the one model the server serves.
const theOneServed = "the one model the server serves"

// oneServed returns the model the server m names serves when no setting
// names one (not --model, its variable, the config file's default-model,
// nor a conversation continued) and the provider's own default is not
// among what it serves: its one model, when it serves one alone, as
// `ollama run` would need to be told nothing more, and as llama-server
// serves the one it loaded whatever it is asked for. It returns "" when a
// model was named, the server serves several or none, or cannot be asked,
// leaving the run to say why. A hosted API, at its usual address, is not
// asked.
func (e *env) oneServed(ctx context.Context, m model.Config) string {
	r, err := model.Resolve(e.withEnv(m))
	if err != nil || r.ModelFrom != model.FromDefault || r.Model != r.Provider.DefaultModel ||
		r.Provider.Name == "replay" || r.URLFrom == model.FromDefault && r.Provider.Name != "ollama" && r.Provider.Name != "llamacpp" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	names, err := model.List(ctx, e.withEnv(m))
	if err != nil || len(names) != 1 || r.Provider.SameModel(names[0], r.Model) || checkModelName(names[0]) != nil {
		return "" // a name no one could type is not taken from a server either
	}
	return names[0]
}

// humanSize writes a size in bytes as people read it: 4.7 GB, 512 MB.
func humanSize(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
