package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/bounded"
	"github.com/react-agent/react-agent/tools/escape"
	"github.com/react-agent/react-agent/tools/mcp"
)

// toolFlags are the flags of the tools, shared by every command that runs
// or lists them: what the built-in tools may do, the MCP servers to add,
// and --yes.
type toolFlags struct {
	tools func() tools.Options
	// mcpConfigs are the files of MCP servers whose tools to add.
	mcpConfigs []string
	// yes runs shell, plugin and MCP commands without asking.
	yes bool
	// chosen are the tools -T names, which the run offers alone; none
	// offers every tool enabled.
	chosen toolChoice
}

// addToolFlags adds the tool flags and --config to fs.
func addToolFlags(fs *pflag.FlagSet) *toolFlags {
	s := &toolFlags{}
	grouped(fs, "Tool flags", func() {
		s.tools = addToolOptions(fs)
		fs.StringArrayVar(&s.mcpConfigs, "mcp-config", nil, `JSON or YAML file of MCP servers whose tools to add, as Claude Desktop writes it ({"mcpServers": {…}}) (repeatable)`)
		pathFlag(fs, "mcp-config")
	})
	addConfigFlag(fs)
	return s
}

// addYes adds --yes to fs, for the commands that run tools.
func addYes(fs *pflag.FlagSet, s *toolFlags) {
	grouped(fs, "Tool flags", func() {
		fs.BoolVar(&s.yes, "yes", false, "run shell, plugin and MCP tools without asking")
	})
}

// addToolOptions adds the flags of the built-in tools' options to fs and
// returns a function that reads them once fs is parsed.
func addToolOptions(fs *pflag.FlagSet) func() tools.Options {
	d := tools.DefaultOptions()
	o := &tools.Options{}
	fs.BoolVar(&o.AllowShell, "allow-shell", false, "enable the shell tool (each command is confirmed on the terminal unless --yes)")
	fs.BoolVar(&o.AllowPrivateNetwork, "allow-private-network", false, "let http_request reach loopback, private and link-local addresses")
	fs.BoolVar(&o.AllowHTTPWrite, "allow-http-write", false, "let http_request send methods other than GET and HEAD, a body, and Authorization or Cookie headers")
	fs.Var(oneOf(&o.SearchEngine, d.SearchEngine, "search engine", tools.EngineDuckDuckGo, tools.EngineSearXNG), "search-engine", `web_search backend: "duckduckgo" or "searxng"`)
	fs.StringVar(&o.SearchURL, "search-url", "", "web_search endpoint (required for searxng: your instance's address)")
	fs.DurationVar(&o.ToolTimeout, "tool-timeout", d.ToolTimeout, "time limit of one tool call")
	fs.IntVar(&o.MaxObservation, "max-observation", d.MaxObservation, "bytes of a tool's output the model sees; the rest is cut with a marker")
	fs.Int64Var(&o.MaxResponse, "max-response", d.MaxResponse, "bytes read at most from an HTTP response or a command's output")
	fs.StringVar(&o.ToolsConfig, "tools-config", "", "YAML or JSON file declaring plugin tools that run commands, and MCP servers in its mcp section")
	pathFlag(fs, "tools-config")
	fs.StringSliceVar(&o.PassEnv, "pass-env", nil, "a variable of the environment the shell and plugins get, such as GITHUB_TOKEN; without it they get PATH, HOME and the like, and no API key (repeatable, or comma-separated)")
	return func() tools.Options { return *o }
}

// builtins returns the registry of the built-in tools o enables; options
// no tool can work with are usage errors that name their flag.
func builtins(o tools.Options) (*tools.Registry, error) {
	reg, err := tools.Builtins(o)
	var oe *tools.OptionError
	var ce *tools.ConfigError
	if errors.As(err, &ce) {
		return nil, &usageError{err} // a mistake in the file, as in the command line
	}
	if errors.As(err, &oe) {
		flag := map[string]string{"SearchEngine": "search-engine", "SearchURL": "search-url", "ToolTimeout": "tool-timeout",
			"MaxObservation": "max-observation", "MaxResponse": "max-response", "PassEnv": "pass-env"}[oe.Option]
		return nil, usagef("--%s: %s", flag, oe.Problem)
	}
	return reg, err
}

// toolRegistry returns the registry of the tools the settings enable: the
// built-in ones, the plugins, and the tools of the MCP servers that the
// tools file and the --mcp-config files declare, which it starts. The
// servers run until closeFn is called, or until ctx ends.
func toolRegistry(ctx context.Context, s *toolFlags, given string, stderr io.Writer) (reg *tools.Registry, closeFn func(), err error) {
	if reg, err = builtins(s.tools()); err != nil {
		return nil, nil, err
	}
	servers, err := mcpServers(s)
	if err != nil {
		return nil, nil, err
	}
	if closeFn, err = startMCP(ctx, servers, s, reg, stderr); err != nil {
		return nil, nil, err
	}
	if reg, err = chooseTools(reg, s.chosen.names, given); err != nil {
		closeFn()
		return nil, nil, err
	}
	return reg, closeFn, nil
}

// mcpServers reads the MCP servers that the tools file and the
// --mcp-config files declare.
func mcpServers(s *toolFlags) ([]mcp.Server, error) {
	var servers []mcp.Server
	if path := s.tools().ToolsConfig; path != "" {
		list, err := mcp.LoadConfig(path)
		if err != nil && !errors.Is(err, mcp.ErrNoServers) {
			return nil, mcpConfigError(err)
		}
		servers = append(servers, list...)
	}
	for _, path := range s.mcpConfigs {
		list, err := mcp.LoadConfig(path)
		if err != nil {
			return nil, mcpConfigError(err)
		}
		servers = append(servers, list...)
	}
	return servers, nil
}

// mcpConfigError returns err, an error of a file of MCP servers, as a
// usage error, with what to do: a mistake in the file is one in the
// command line.
func mcpConfigError(err error) error {
	if ce := (*mcp.ConfigError)(nil); errors.As(err, &ce) {
		return &usageError{&reworded{advise(err), err}}
	}
	return err
}

// startMCP starts the MCP servers, adds their tools to reg, and says on
// stderr what it had to change (a tool renamed, a list cut). The servers
// run until closeFn is called, or until ctx ends.
func startMCP(ctx context.Context, servers []mcp.Server, s *toolFlags, reg *tools.Registry, stderr io.Writer) (closeFn func(), err error) {
	if len(servers) == 0 {
		return func() {}, nil
	}
	set, err := mcp.Start(ctx, servers, mcp.Options{Reserved: reg.ToolNames(), MaxError: s.tools().MaxObservation})
	if err != nil {
		return nil, err
	}
	for _, w := range set.Warnings() {
		fmt.Fprintf(stderr, "react-agent: %s\n", escape.Visible(w))
	}
	for _, t := range set.Tools() {
		if err := reg.Register(t); err != nil {
			set.Close()
			return nil, err
		}
	}
	return func() { set.Close() }, nil
}

// confirmTerminal returns where shell and plugin confirmations are asked:
// stdin and stderr when stdin is a terminal, else the controlling terminal
// (/dev/tty) when there is one. Without either, the confirmer refuses
// every call unless --yes.
func (e *env) confirmTerminal() (in *os.File, out io.Writer, closeFn func()) {
	if f, ok := e.stdin.(*os.File); ok && e.terminal(f) {
		return f, e.stderr, func() {}
	}
	if tty, err := e.openTTY(); err == nil {
		return tty, tty, func() { tty.Close() }
	}
	return nil, e.stderr, func() {}
}

// toolCommandFlags are the flags of tools and tool.
type toolCommandFlags struct {
	*toolFlags
	json bool
}

// addToolCommandFlags adds the flags of tools to fs, and with run those of
// tool, which runs one.
func addToolCommandFlags(fs *pflag.FlagSet, run bool) *toolCommandFlags {
	f := &toolCommandFlags{toolFlags: addToolFlags(fs)}
	if run {
		addYes(fs, f.toolFlags)
	} else {
		addToolChoice(fs, f.toolFlags)
	}
	what := "the tools"
	if run {
		what = "the observation"
	}
	grouped(fs, "Output flags", func() {
		fs.BoolVar(&f.json, "json", false, "print "+what+" as JSON")
	})
	return f
}

// toolsCommand is `react-agent tools`.
func toolsCommand() *command {
	return &command{
		name: "tools", args: "[flags]", does: "list the enabled tools",
		synopsis: "tools [flags]",
		examples: `  react-agent tools
  react-agent tools --allow-shell --tools-config plugins.yaml
  react-agent tools -T calculator,web_search   (the tools a run would offer)
  react-agent tools --json > tools.json   (name, description, input_schema)
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addToolCommandFlags(fs, false)
			return func(c *call) error { return runTools(c, f) }
		},
		check:   noArgs("tools"),
		signals: signalsCancel,
	}
}

// runTools lists the tools.
func runTools(c *call, f *toolCommandFlags) error {
	ctx, stdout := c.ctx, c.stdout
	reg, closeTools, err := toolRegistry(ctx, f.toolFlags, asGiven(c.fs, "tool"), c.stderr)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer closeTools()
	if f.json {
		type entry struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Server      string          `json:"server,omitempty"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		list := []entry{}
		for _, t := range reg.List() {
			e := entry{Name: t.Name(), Description: t.Description(), InputSchema: tools.InputSchema(t)}
			if s, ok := t.(tools.Served); ok {
				e.Server = s.Server()
			}
			list = append(list, e)
		}
		return c.writeJSON(stdout, list)
	}
	return writeTools(stdout, reg, c.helpWidth(stdout))
}

// toolCommand is `react-agent tool NAME [INPUT]`.
func toolCommand() *command {
	return &command{
		name: "tool", args: "[flags] NAME [INPUT]", does: "call one tool directly",
		synopsis: "tool [flags] NAME [INPUT]\n\nINPUT is a JSON object, or raw text for the tool's primary argument; a tool\nwithout arguments needs none. Without INPUT, or with \"-\", it is read from stdin\nwhen stdin is not a terminal.",
		examples: `  react-agent tool calculator "2**10 / 4"
  react-agent tool Calculator '{"expression": "3+4"}'
  echo '3*3' | react-agent tool calculator
  react-agent tool --allow-shell shell "ls -la"
  react-agent tool --mcp-config testdata/mcp/servers.json \
      list_allowed_directories
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addToolCommandFlags(fs, true)
			return func(c *call) error { return runTool(c, f) }
		},
		check: func(args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("tool takes a tool name and its input, as in: react-agent tool calculator '2+2' (got %d arguments; quote an input of several words)", len(args))
			}
			return nil
		},
		signals: signalsCancel,
		complete: func(_ *env, args []string) ([]candidate, bool) {
			if len(args) > 0 {
				return nil, false
			}
			var all []candidate
			for _, t := range tools.Catalog().List() {
				all = append(all, candidate{t.Name(), firstLine(t.Description())})
			}
			return all, false
		},
	}
}

// runTool makes one call of one tool, with INPUT read as the parser reads
// an Action Input.
func runTool(c *call, f *toolCommandFlags) error {
	ctx, stdout := c.ctx, c.stdout
	reg, closeTools, err := toolRegistry(ctx, f.toolFlags, "", c.stderr)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer closeTools()
	name, input := c.fs.Arg(0), c.fs.Arg(1)
	given := len(c.args) == 2
	if input == "-" || !given && !c.terminal(c.stdin) {
		// The input piped, as in: echo '3*3' | react-agent tool calculator.
		// Ctrl-C stops a read that waits on a pipe never closed.
		if f, ok := c.stdin.(*os.File); ok {
			stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
			defer stop()
		}
		data, err := bounded.ReadAll(c.stdin, "standard input", maxToolInput)
		if err != nil {
			return interrupted(ctx, fmt.Errorf("tool: reading the input from stdin: %w", err))
		}
		input = strings.TrimRight(string(data), "\r\n")
		given = strings.TrimSpace(input) != ""
	}
	canonical, callArgs := parser.New(reg).Args(name, input)
	if _, ok := reg.Get(canonical); !ok {
		// A built-in that is off (shell without --allow-shell): infer as
		// the parser would, and let the registry say how to turn it on.
		canonical, callArgs = parser.New(tools.Catalog()).Args(name, input)
	}
	if _, ok := reg.Get(canonical); !ok {
		if _, off := tools.Catalog().Get(canonical); !off {
			return usagef("%s", unknown("tool", name, reg.ToolNames()))
		}
	}
	if t, ok := reg.Get(canonical); ok && !given && len(reg.RequiredArgs(canonical)) > 0 {
		return usagef("%s needs an input: %s, as in: react-agent tool %s '…', or on stdin", canonical, t.Schema(), canonical)
	}
	if !given {
		callArgs = map[string]any{} // no input: no arguments, not an empty one
	}
	if t, checked, err := reg.Prepare(canonical, callArgs); err == nil {
		callArgs = checked
		in, out, closeTTY := c.confirmTerminal()
		defer closeTTY()
		// One call: no "a, always" to offer, as a Confirmer that is not a
		// ToolConfirmer asks.
		confirmer := struct{ tools.Confirmer }{tools.NewTerminalConfirmer(in, out, f.yes)}
		if err := tools.Confirm(ctx, confirmer, t, callArgs); err != nil {
			return interrupted(ctx, notRun(canonical, err))
		}
	}
	obs, err := reg.Call(ctx, canonical, callArgs)
	if err != nil {
		return interrupted(ctx, err)
	}
	code := tools.ExitCode(obs)
	if f.json {
		if err := c.writeJSON(stdout, struct {
			Tool        string         `json:"tool"`
			Args        map[string]any `json:"args"`
			Observation string         `json:"observation"`
		}{canonical, callArgs, obs}); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, c.forTerminal(stdout, obs))
	}
	if code != 0 {
		return exitError(code) // a command that failed: its status, as a shell gives it
	}
	return nil
}

// maxToolInput bounds the input tool reads from stdin.
const maxToolInput = 1 << 20

// writeTools lists the tools of reg for `react-agent tools`, with each
// description wrapped to width columns: a tool's name (and its MCP
// server), what it does, and its arguments with their types, whether they
// are required and which one is primary. What a tool says of itself is
// made visible (escape.Visible), so that text from an MCP server or a
// plugin file can neither drive the terminal nor break the table.
func writeTools(w io.Writer, reg *tools.Registry, width int) error {
	var b strings.Builder
	for i, t := range reg.List() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(cell(t.Name()))
		if s, ok := t.(tools.Served); ok {
			b.WriteString("  (server: " + cell(s.Server()) + ")")
		}
		b.WriteByte('\n')
		for _, para := range strings.Split(strings.TrimRight(t.Description(), "\n"), "\n") {
			if strings.TrimSpace(para) == "" {
				b.WriteByte('\n')
				continue
			}
			b.WriteString(wrap("    "+cell(para), width, 4))
		}
		s := t.Schema()
		if len(s.Args) == 0 {
			b.WriteString("    (no arguments)\n")
			continue
		}
		b.WriteString("    arguments:\n")
		var rows [][4]string
		var cols [3]int
		for _, a := range s.Args {
			flags := "optional"
			if a.Required {
				flags = "required"
			}
			if a.Name == s.Primary {
				flags += ", primary"
			}
			typ := a.Type
			if typ == "" {
				typ = "any"
			}
			row := [4]string{cell(a.Name), cell(typ), flags, cell(a.Description)}
			for k := range cols {
				cols[k] = max(cols[k], utf8.RuneCountInString(row[k]))
			}
			rows = append(rows, row)
		}
		indent := 6 + cols[0] + 2 + cols[1] + 2 + cols[2] + 2
		for _, r := range rows {
			line := fmt.Sprintf("      %-*s  %-*s  %-*s  ", cols[0], r[0], cols[1], r[1], cols[2], r[2])
			if indent > width-20 {
				// No room beside the columns: the description goes below.
				b.WriteString(strings.TrimRight(line, " ") + "\n")
				b.WriteString(wrap("        "+r[3], width, 8))
				continue
			}
			b.WriteString(wrap(line+r[3], width, indent))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is text a tool gives made visible for one line of the list: no
// control character, tab or line break of it reaches the terminal.
func cell(s string) string {
	return strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(escape.Visible(s))
}

// unreachableAdvice says for people that the server a tool calls could
// not be reached, and what to check or pass: the network, the proxy, the
// search engine's flags. The tool's own message is the model's.
func unreachableAdvice(e *tools.UnreachableError) (msg, more string) {
	host := escape.Visible(e.Host)
	switch {
	case e.Proxy:
		return fmt.Sprintf("%s: the proxy %s could not be reached (%s)", e.Tool, host, e.Cause()),
			"check the proxy that HTTPS_PROXY (or HTTP_PROXY) names, or unset it"
	case e.Engine == tools.EngineSearXNG:
		return fmt.Sprintf("%s: the search engine, your SearXNG at %s, could not be reached (%s)", e.Tool, host, e.Cause()),
			"check that it is up at the address --search-url gives, and the network"
	case e.Engine != "":
		return fmt.Sprintf("%s: the search engine %s could not be reached (%s)", e.Tool, host, e.Cause()),
			"check the network, or a proxy (HTTPS_PROXY); or search with a SearXNG instance of your own: --search-engine searxng --search-url URL"
	}
	return fmt.Sprintf("%s: %s could not be reached (%s)", e.Tool, host, e.Cause()), "check the network and the address"
}
