package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/react-agent/react-agent/tools/bounded"
	"github.com/react-agent/react-agent/tools/configerr"
	"github.com/react-agent/react-agent/tools/escape"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/shell"
	"mvdan.cc/sh/v3/syntax"
)

// maxPluginStderr caps the stderr a failing plugin's error quotes.
const maxPluginStderr = 1 << 10

// MaxConfigFile is the most read of a file of settings: a plugin file
// (see [LoadPlugins]), and in package tools/mcp a file of MCP servers and
// a server's envFile. 1 MiB holds thousands of tools or servers; a larger
// file, or a path that is not a regular file (/dev/zero, a FIFO), is
// refused with an error from package tools/bounded.
const MaxConfigFile = 1 << 20

// toolName is what a plugin tool may be called.
var toolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// argTypes are the types a plugin may declare for an argument.
var argTypes = []string{"string", "number", "integer", "boolean", "object", "array", "any"}

// pluginFile is the layout of a plugin file.
type pluginFile struct {
	Tools []pluginSpec `json:"tools" yaml:"tools"`
	// MCP declares MCP servers, which package tools/mcp reads; its shape
	// is that package's to check.
	MCP any `json:"mcp" yaml:"mcp"`
}

// pluginSpec declares one plugin tool.
type pluginSpec struct {
	Name        string      `json:"name" yaml:"name"`
	Description string      `json:"description" yaml:"description"`
	Command     commandLine `json:"command" yaml:"command"`
	Args        []Arg       `json:"args" yaml:"args"`
	Primary     string      `json:"primary" yaml:"primary"`
	Confirm     *bool       `json:"confirm" yaml:"confirm"`
	// Env names the variables of the environment the tool gets besides
	// the basic ones (see [Environ]).
	Env []string `json:"env" yaml:"env"`
}

// commandLine is a command given either as a list of words or as one
// string split the way a shell splits words.
type commandLine []string

func (c *commandLine) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		return c.split(s)
	}
	var words []string
	if err := json.Unmarshal(data, &words); err != nil {
		return errors.New("command must be a string or a list of strings")
	}
	*c = words
	return nil
}

func (c *commandLine) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return c.split(n.Value)
	}
	var words []string
	if err := n.Decode(&words); err != nil {
		return fmt.Errorf("line %d: command must be a string or a list of strings", n.Line)
	}
	*c = words
	return nil
}

// split splits s into words like a shell, expanding $VARIABLES.
func (c *commandLine) split(s string) error {
	words, err := shell.Fields(s, nil)
	if err != nil {
		return fmt.Errorf("command %q: %w", s, err)
	}
	*c = words
	return nil
}

// LoadPlugins reads the plugin tools declared in the YAML or JSON file at
// path (JSON when the name ends in .json). Each tool runs a command, gets
// its arguments as a JSON object on stdin and answers on stdout; a non-zero
// exit is an error quoting its stderr. Plugin tools ask for confirmation
// like shell unless they set confirm: false, and their output is capped at
// opts.MaxResponse bytes before the registry's observation cap. In YAML:
//
//	tools:
//	  - name: weather
//	    description: Current weather for a city.
//	    command: ["./weather.py", "--metric"]   # or one string: ./weather.py --metric
//	    args:
//	      - {name: city, type: string, required: true, description: The city name.}
//	    primary: city      # defaults to the first required argument
//	    confirm: false     # defaults to true
//	    env: [WEATHER_KEY] # variables it gets besides PATH, HOME and the like
//
// A relative command path containing a slash is taken from the directory
// of the file; a bare name is looked up in PATH. The command gets the
// environment [Environ] gives with opts.PassEnv and its own env names: no
// API key it is not given on purpose. Argument types are string, number,
// integer, boolean, object, array or any. The file may also hold an "mcp" section of MCP
// servers, which package tools/mcp reads, and no tools. It must be a
// regular file of at most [MaxConfigFile] bytes.
//
// Its errors are *ConfigError values.
func LoadPlugins(path string, opts Options) ([]Tool, error) {
	opts = opts.withDefaults()
	data, err := bounded.ReadFile(path, MaxConfigFile)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	var file pluginFile
	if strings.EqualFold(filepath.Ext(path), ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(&file)
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		err = dec.Decode(&file)
	}
	if err != nil {
		return nil, &ConfigError{File: path, Err: configerr.Locate(data, err)}
	}
	if len(file.Tools) == 0 {
		if file.MCP != nil {
			return nil, nil // MCP servers only
		}
		return nil, &ConfigError{File: path, Err: errors.New(`no tools declared; expected a top-level "tools" list, or an "mcp" section of MCP servers`)}
	}
	dir := filepath.Dir(path)
	var tools []Tool
	var names []string
	for i, spec := range file.Tools {
		p, err := newPlugin(spec, dir, opts)
		if err != nil {
			return nil, &ConfigError{File: path, Err: fmt.Errorf("tool %d (%q): %w", i+1, spec.Name, err)}
		}
		if slices.Contains(names, p.Name()) {
			return nil, &ConfigError{File: path, Err: fmt.Errorf("tool %d: the name %q is declared twice", i+1, spec.Name)}
		}
		names = append(names, p.Name())
		tools = append(tools, p)
	}
	return tools, nil
}

// ConfigError is an error of [LoadPlugins]: a tools file that cannot be
// read, or has a mistake in it, which Err says.
type ConfigError struct {
	// File is the tools file's path, or "" when Err names it.
	File string
	// Err says what is wrong.
	Err error
}

func (e *ConfigError) Error() string {
	if e.File == "" {
		return "tools config: " + e.Err.Error()
	}
	return "tools config " + e.File + ": " + e.Err.Error()
}

// Unwrap returns what is wrong.
func (e *ConfigError) Unwrap() error { return e.Err }

// plugin is a tool that runs an external command.
type plugin struct {
	spec      pluginSpec
	schema    Schema
	argv      []string
	confirm   bool
	maxOutput int64
	pass      []string // the variables passed besides the basic ones
}

// newPlugin checks spec and resolves its command against dir.
func newPlugin(spec pluginSpec, dir string, opts Options) (*plugin, error) {
	if !toolName.MatchString(spec.Name) {
		return nil, errors.New("name must start with a letter or _ and hold only letters, digits, _ . and -")
	}
	if strings.TrimSpace(spec.Description) == "" {
		return nil, errors.New("description is empty; the model needs it to know when to use the tool")
	}
	if len(spec.Command) == 0 || spec.Command[0] == "" {
		return nil, errors.New("command is empty")
	}
	argv := slices.Clone(spec.Command)
	if strings.ContainsRune(argv[0], '/') {
		if !filepath.IsAbs(argv[0]) {
			abs, err := filepath.Abs(filepath.Join(dir, argv[0]))
			if err != nil {
				return nil, fmt.Errorf("command: %w", err)
			}
			argv[0] = abs
		}
		if _, err := os.Stat(argv[0]); err != nil {
			return nil, fmt.Errorf("command: %w", err)
		}
	} else if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("command %q is not in PATH", argv[0])
	}
	for _, name := range spec.Env {
		if !isEnvName(name) {
			return nil, fmt.Errorf("env: %q is no variable's name; list the names of the variables the tool gets, as in [WEATHER_KEY]", name)
		}
	}
	schema := Schema{Args: slices.Clone(spec.Args), Primary: spec.Primary}
	seen := make(map[string]bool, len(spec.Args))
	for j, a := range spec.Args {
		if a.Name == "" {
			return nil, fmt.Errorf("argument %d has no name", j+1)
		}
		if a.Type == "" {
			schema.Args[j].Type = "any"
		} else if !slices.Contains(argTypes, a.Type) {
			return nil, fmt.Errorf("argument %q has type %q; use one of %s", a.Name, a.Type, strings.Join(argTypes, ", "))
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("argument %q is declared twice", a.Name)
		}
		seen[a.Name] = true
	}
	if schema.Primary == "" {
		for _, a := range schema.Args {
			if a.Required {
				schema.Primary = a.Name
				break
			}
		}
		if schema.Primary == "" && len(schema.Args) > 0 {
			schema.Primary = schema.Args[0].Name
		}
	} else if _, ok := schema.arg(schema.Primary); !ok {
		return nil, fmt.Errorf("primary %q is not one of its arguments", schema.Primary)
	}
	return &plugin{
		spec:      spec,
		schema:    schema,
		argv:      argv,
		confirm:   spec.Confirm == nil || *spec.Confirm,
		maxOutput: opts.MaxResponse,
		pass:      slices.Concat(opts.PassEnv, spec.Env),
	}, nil
}

func (p *plugin) Name() string        { return p.spec.Name }
func (p *plugin) Description() string { return strings.TrimSpace(p.spec.Description) }
func (p *plugin) Schema() Schema      { return p.schema }

// Confirmation shows the command and the JSON it will read on stdin.
func (p *plugin) Confirmation(args map[string]any) (string, bool) {
	if !p.confirm {
		return "", false
	}
	input, _ := json.Marshal(args)
	return fmt.Sprintf("The tool %s is to run:\n\n%s\n\nwith this input on stdin:\n\n%s\n\nRun it?",
		p.Name(), indent(escape.Visible(quoteCommand(p.argv))), indent(string(escape.LiteralJSON(input)))), true
}

func (p *plugin) Call(ctx context.Context, args map[string]any) (string, error) {
	input, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("%s: encoding the arguments: %w", p.Name(), err)
	}
	out, err := runCommand(ctx, p.argv, Environ(p.pass), bytes.NewReader(input), p.maxOutput)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.Name(), err)
	}
	if out.status != "" {
		stderr := strings.TrimSpace(Truncate(string(out.stderr.buf), maxPluginStderr))
		if stderr == "" {
			return "", fmt.Errorf("%s: the command failed with %s", p.Name(), out.status)
		}
		return "", fmt.Errorf("%s: the command failed with %s: %s", p.Name(), out.status, stderr)
	}
	text := strings.TrimRight(string(out.stdout.buf), "\n")
	if out.stdout.omitted > 0 {
		text += fmt.Sprintf("\n[output cut: %d bytes omitted]", out.stdout.omitted)
	}
	if text == "" {
		return "(no output)", nil
	}
	return text, nil
}

// quoteCommand renders argv as a shell command line.
func quoteCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		q, err := syntax.Quote(w, syntax.LangPOSIX)
		if err != nil {
			q = fmt.Sprintf("%q", w)
		}
		words[i] = q
	}
	return strings.Join(words, " ")
}
