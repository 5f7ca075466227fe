package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent"
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
		}
		switch {
		case name == "api-key" && (value != "" || source != "default"):
			value = "(set)"
		case name == "api-key":
			value = "(none)"
		}
		value = strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(c.forTerminal(stdout, value))
		rows = append(rows, [3]string{name, value, "(" + source + ")"})
	}
	writeColumns(stdout, rows, 30)
	if rerr != nil {
		fmt.Fprintf(stderr, "react-agent: %s\n", trace.Visible(advise(rerr)))
	}
	return nil
}

// writeColumns writes rows in aligned columns two spaces apart. A column
// is as wide as its widest cell, up to most columns: a wider cell pushes
// the rest of its row on, so that one long value does not widen the
// whole table.
func writeColumns(w io.Writer, rows [][3]string, most int) {
	var widths [2]int
	for _, r := range rows {
		for k := range widths {
			if n := utf8.RuneCountInString(r[k]); n <= most {
				widths[k] = max(widths[k], n)
			}
		}
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	for _, r := range rows {
		line := ""
		for k, cell := range r[:2] {
			line += cell + strings.Repeat(" ", max(widths[k]-utf8.RuneCountInString(cell), 0)+2)
		}
		fmt.Fprintln(bw, line+r[2])
	}
}
