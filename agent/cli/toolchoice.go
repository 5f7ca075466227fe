package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/tools"
)

// toolChoice is the value of -T/--tool: the tools a run offers, by name,
// repeatable or comma-separated, as llm's -T takes them; none offers every
// tool enabled. The names are checked against the tools once they are
// known (an MCP server's, once it started): see chooseTools.
type toolChoice struct{ names []string }

func (c *toolChoice) Set(s string) error {
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return errors.New("want a tool's name, or several comma-separated")
		}
		if !slices.Contains(c.names, name) {
			c.names = append(c.names, name)
		}
	}
	return nil
}

func (c *toolChoice) String() string { return strings.Join(c.names, ",") }
func (c *toolChoice) Type() string   { return "strings" }

// Append, Replace and GetSlice make -T a repeatable setting, a list in
// the config file.
func (c *toolChoice) Append(s string) error { return c.Set(s) }
func (c *toolChoice) GetSlice() []string    { return slices.Clone(c.names) }
func (c *toolChoice) Replace(names []string) error {
	c.names = nil
	for _, n := range names {
		if err := c.Set(n); err != nil {
			return err
		}
	}
	return nil
}

func (c *toolChoice) describe() string {
	return "a tool's name, or several comma-separated, like calculator,web_search (react-agent tools lists them)"
}

// completions are the names of the built-in tools; flagValues adds the
// plugins' of the tools file.
func (c *toolChoice) completions() []string { return tools.Catalog().ToolNames() }

// addToolChoice adds -T/--tool to fs, for the commands that offer tools:
// ask, chat, eval and tools.
func addToolChoice(fs *pflag.FlagSet, s *toolFlags) {
	grouped(fs, "Tool flags", func() {
		fs.VarP(&s.chosen, "tool", "T", "offer only this tool, by name: a built-in one, a plugin or an MCP server's (repeatable, or comma-separated; default: every tool enabled)")
	})
}

// chooseTools returns the registry of the tools of reg that names names,
// or reg itself when names is empty. A name is the tool's, in any case. A
// name that is no tool of reg is a usage error, with the name meant when
// it is a slip, and for the shell when it is off, the flag that turns it
// on; given names the setting as it was given (see asGiven).
func chooseTools(reg *tools.Registry, names []string, given string) (*tools.Registry, error) {
	if len(names) == 0 {
		return reg, nil
	}
	var chosen []tools.Tool
	for _, name := range names {
		t, ok := reg.Get(name)
		for _, other := range reg.List() {
			if !ok && strings.EqualFold(other.Name(), name) {
				t, ok = other, true
			}
		}
		switch {
		case ok && slices.Contains(chosen, t):
		case ok:
			chosen = append(chosen, t)
		case errors.Is(lookupErr(reg, name), tools.ErrShellDisabled):
			return nil, usagef("%s: the shell tool is off; pass --allow-shell as well to offer it (each command it runs is asked first, unless --yes)", given)
		default:
			return nil, usagef("%s: %s", given, unknown("tool", name, reg.ToolNames()))
		}
	}
	chose, err := tools.NewRegistry(chosen...)
	if err != nil {
		return nil, err
	}
	chose.SetLimits(reg.Limits())
	return chose, nil
}

// lookupErr is the error reg gives for a call of the tool called name,
// in any case: how to turn on a built-in tool that is off.
func lookupErr(reg *tools.Registry, name string) error {
	_, err := reg.Lookup(strings.ToLower(name))
	return err
}

// describeChoice says which tools a run offers, for the settings and the
// log: the names chosen, or that every tool enabled is offered.
func describeChoice(names []string) string {
	if len(names) == 0 {
		return "every tool enabled"
	}
	return strings.Join(names, ",")
}

// toolNamesOf returns the names of the tools the settings of args
// enable, for completion: the built-in ones, the shell among them, and
// the plugins of the tools file; not the MCP servers', which it would
// have to start.
func (e *env) toolNamesOf(args []string) []string {
	fs := pflag.NewFlagSet("ask", pflag.ContinueOnError)
	f, _ := addAskFlags(fs)
	fs.Parse(args) // what is wrong in a line being written is no matter here
	if _, err := e.applySettings(fs); err != nil {
		return tools.Catalog().ToolNames()
	}
	o := f.tools()
	o.AllowShell = true
	reg, err := tools.Builtins(o)
	if err != nil {
		return tools.Catalog().ToolNames()
	}
	return reg.ToolNames()
}
