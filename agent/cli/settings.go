package cli

import (
	"bufio"
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/trace"
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
		}
		fmt.Fprintf(w, "%s=%s\t(%s)\n", name, c.forTerminal(stdout, value), source)
	}
	if rerr != nil {
		fmt.Fprintf(stderr, "react-agent: %s\n", trace.Visible(advise(rerr)))
	}
	return nil
}
