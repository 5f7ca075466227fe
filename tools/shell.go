package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/react-agent/react-agent/tools/escape"
)

const shellName = "shell"

// ErrShellDisabled is matched (with errors.Is) by the error a call to the
// shell tool returns when Options.AllowShell is off.
var ErrShellDisabled = errors.New("the shell tool is disabled")

// errShellDisabled is what calling the disabled shell tool answers.
var errShellDisabled = fmt.Errorf("shell: %w: it is not available in this run; use another tool, or answer with what you know", ErrShellDisabled)

// shellTool runs a command with sh -c in its own process group. It asks for
// confirmation (it is [Confirmable]) and refuses to run unless enabled.
type shellTool struct {
	enabled   bool
	maxOutput int64
	pass      []string // the variables passed besides the basic ones
}

func newShell(o Options) *shellTool {
	o = o.withDefaults()
	return &shellTool{enabled: o.AllowShell, maxOutput: o.MaxResponse, pass: o.PassEnv}
}

func (s *shellTool) Name() string { return shellName }

func (s *shellTool) Description() string {
	return "Run a shell command with sh -c and return its stdout, its stderr and its exit status when not zero. " +
		"The user may be asked to confirm each command. " +
		`Example: {"command": "ls -la /tmp | head"}.`
}

func (s *shellTool) Schema() Schema {
	return Schema{
		Args: []Arg{{
			Name:        "command",
			Type:        "string",
			Required:    true,
			Description: "The command line to run with sh -c.",
		}},
		Primary: "command",
	}
}

// Limits of a command line, checked before it is parsed or shown: the
// syntax parser recurses once per nested substitution.
const (
	maxCommandBytes = 64 << 10
	maxCommandDepth = 64
)

// checkCommand refuses a command line that could not be shown faithfully
// when the user is asked to confirm it, or is too large or too deeply
// nested to read safely. Its errors are written for the model.
func checkCommand(command string) error {
	if len(command) > maxCommandBytes {
		return fmt.Errorf("shell: the command is %d bytes long, more than the %d allowed; write a shorter command, or a script in steps", len(command), maxCommandBytes)
	}
	if what := escape.HiddenLiteral(command); what != "" {
		return fmt.Errorf("shell: the command holds %s, which would not show as written when the user is asked to confirm it; write the command without it", what)
	}
	depth, deepest := 0, 0
	for i := 0; i < len(command); i++ {
		switch command[i] {
		case '(', '{', '`':
			depth++
			deepest = max(deepest, depth)
		case ')', '}':
			depth = max(0, depth-1)
		}
	}
	if deepest > maxCommandDepth {
		return fmt.Errorf("shell: the command nests brackets or substitutions %d deep, more than the %d allowed; write it flatter", deepest, maxCommandDepth)
	}
	return nil
}

// Confirmation shows the exact command and the programs it runs. It asks
// nothing when the tool is disabled or the command is refused, since Call
// then refuses to run it anyway.
func (s *shellTool) Confirmation(args map[string]any) (string, bool) {
	if !s.enabled {
		return "", false
	}
	command, _ := args["command"].(string)
	if command == "" || checkCommand(command) != nil {
		return "", false // Call refuses it
	}
	// The command holds nothing Literal would escape (checkCommand
	// refuses it); Visible stays as a second guard.
	var b strings.Builder
	fmt.Fprintf(&b, "This shell command is to run:\n\n%s\n\n", indent(escape.Visible(command)))
	if programs, err := commandPrograms(command); err != nil {
		fmt.Fprintf(&b, "(It does not parse as a shell command: %v.)\n", escape.Visible(err.Error()))
	} else if len(programs) > 0 {
		fmt.Fprintf(&b, "It runs: %s.\n", escape.Visible(strings.Join(programs, ", ")))
	}
	b.WriteString("Run it?")
	return b.String(), true
}

func (s *shellTool) Call(ctx context.Context, args map[string]any) (string, error) {
	if !s.enabled {
		return "", errShellDisabled
	}
	command, _ := args["command"].(string) // checked by the registry
	if err := checkCommand(command); err != nil {
		return "", err
	}
	out, err := runCommand(ctx, []string{"sh", "-c", command}, Environ(s.pass), nil, s.maxOutput)
	if err != nil {
		return "", fmt.Errorf("shell: %w", err)
	}
	return formatOutput(out), nil
}

// ExitCode returns the exit status a shell or command tool's observation
// reports on its last line ("exit status 3"), 1 for a command a signal
// ended, and 0 for one that succeeded or an observation of another tool.
func ExitCode(observation string) int {
	last := observation[strings.LastIndexByte(observation, '\n')+1:]
	if rest, ok := strings.CutPrefix(last, "exit status "); ok {
		if n, err := strconv.Atoi(rest); err == nil && n > 0 && n < 256 {
			return n
		}
	}
	if strings.HasPrefix(last, "signal: ") {
		return 1
	}
	return 0
}

// formatOutput labels a command's streams and adds its exit status.
func formatOutput(out *commandOutput) string {
	var b strings.Builder
	section := func(label string, c *cappedBuffer) {
		if len(c.buf) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n%s\n", label, strings.TrimRight(string(c.buf), "\n"))
		if c.omitted > 0 {
			fmt.Fprintf(&b, "[%s cut: %d bytes omitted]\n", label, c.omitted)
		}
	}
	section("stdout", &out.stdout)
	section("stderr", &out.stderr)
	if out.status != "" {
		b.WriteString(out.status + "\n")
	}
	if b.Len() == 0 {
		return "(no output)"
	}
	return strings.TrimRight(b.String(), "\n")
}

// commandPrograms lists, in order of first appearance, the programs a
// command line runs: the first word of each of its simple commands, as
// written when it is not plain text ("$CMD", "$(which rm)"), whose
// program is then known only as it runs. Such a word is cut at
// maxProgramWord bytes.
func commandPrograms(command string) ([]string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, err
	}
	var programs []string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		name := call.Args[0].Lit()
		if name == "" {
			var b strings.Builder
			syntax.NewPrinter().Print(&b, call.Args[0])
			name = b.String()
			if len(name) > maxProgramWord {
				cut := maxProgramWord
				for !utf8.RuneStart(name[cut]) {
					cut--
				}
				name = name[:cut] + "…"
			}
		}
		if !slices.Contains(programs, name) {
			programs = append(programs, name)
		}
		return true
	})
	return programs, nil
}

// maxProgramWord is how much of a program's word a confirmation shows
// when it is not plain text.
const maxProgramWord = 80

// indent prefixes each line of s with four spaces.
func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
