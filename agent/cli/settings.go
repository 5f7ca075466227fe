package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/logs"
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools"
)

// settingsCommand is `react-agent settings`: the settings of ask and chat
// after the flags, the environment and the config file, each with where
// its value came from.
func settingsCommand() *command {
	return &command{
		name: "settings", args: "[flags]", does: "show each setting, its value and where it came from",
		synopsis: "settings [flags]",
		examples: `  react-agent settings
  REACT_AGENT_MODEL=llama3.2 react-agent settings --config ./config.yaml
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addAgentFlags(fs)
			return func(c *call) error { return runSettings(c, f) }
		},
		check: noArgs("settings"),
	}
}

// runSettings prints the settings.
func runSettings(c *call, f *agentFlags) error {
	fs, stdout, stderr := c.fs, c.stdout, c.stderr
	if f.model.Replay != "" && !fs.Changed("provider") {
		f.model.Provider = "replay" // as ask reads it
	}
	if err := c.continuedSettings(f); err != nil {
		return err
	}
	resolved, rerr := model.Resolve(context.Background(), c.withProviderEnv(f.model))
	prov, _ := model.Lookup(f.model.Provider)
	if rerr != nil {
		resolved.Model = prov.DefaultModel
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
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
		case source != "default":
		case name == "model":
			value, source = resolved.Model, "default of "+prov.Name
		case name == "base-url" && prov.URLEnv != "" && c.getenv(prov.URLEnv) != "":
			value, source = resolved.URL, prov.URLEnv
		case name == "base-url" && resolved.URL != "":
			value, source = resolved.URL, "default of "+prov.Name
		case name == "api-key" && prov.KeyEnv != "" && c.getenv(prov.KeyEnv) != "":
			source = prov.KeyEnv
		case name == "stream" && !f.noStream:
			value, source = strconv.FormatBool(c.terminal(stderr)), "default: on when stderr is a terminal"
		}
		switch {
		case name == "api-key" && (value != "" || source != "default"):
			value = "(set)"
		case name == "api-key":
			value = "(none)"
		case name == "base-url":
			value = hideURLSecrets(value)
		}
		fmt.Fprintf(w, "%s=%s\t(%s)\n", name, c.forTerminal(stdout, value), source)
	}
	if rerr != nil {
		fmt.Fprintf(stderr, "react-agent: %s\n", tools.Visible(advise(rerr)))
	}
	return nil
}

// continuedSettings gives the settings of --continue and --cid the
// provider, model and server of the conversation they name, as ask and
// chat take them, reading the log without writing to it. A log that is
// not there has no conversation to continue.
func (c *call) continuedSettings(f *agentFlags) error {
	l := f.log
	if !l.resume && l.cid == "" {
		return nil
	}
	if l.off {
		return usagef("--continue and --cid read the log, which --no-log (or no-log in the config file) turns off")
	}
	path, err := l.path()
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
	c.continueSettings(c.fs, f, sess)
	return nil
}

// hideURLSecrets returns a server's URL with its password, and a key in
// its query, hidden, as the API key is.
func hideURLSecrets(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			raw = u.Redacted()
		}
	}
	return model.RedactText(raw)
}
