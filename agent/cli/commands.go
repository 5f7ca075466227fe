package cli

import (
	"context"
	"os"

	"github.com/spf13/pflag"
)

// command is one command of the command line: what dispatch, help and
// completion know of it.
type command struct {
	name string
	// args is what follows the name in the list of commands; does says
	// what the command does, in a line.
	args, does string
	// synopsis is the usage line of the command's own help, after
	// "react-agent ", and examples what follows it, examples and notes.
	synopsis, examples string
	// define adds the command's flags to fs and returns the command's
	// run, bound to them; nil for a command without flags.
	define func(fs *pflag.FlagSet) func(c *call) error
	// raw commands get their arguments as written, flags unparsed, and
	// run with runRaw.
	raw    bool
	runRaw func(e *env, args []string) error
	// check refuses the arguments after the flags that the command does
	// not take; nil takes any.
	check func(args []string) error
	// writesSettings reports whether the command, given args, writes
	// the config file rather than reads it: its settings are not
	// applied, so that a mistake in the file does not stop its fix.
	writesSettings func(args []string) bool
	// signals is how the command takes Ctrl-C and SIGTERM.
	signals signalMode
	// complete returns what may come as the command's argument after
	// the arguments already written (flags left out); files is true when
	// a file's name fits.
	complete func(e *env, args []string) (cands []candidate, files bool)
	// hidden commands are for the completion scripts, not for people.
	hidden bool
}

// signalMode is how a command takes Ctrl-C and SIGTERM. The zero
// signalMode leaves them to end the process.
type signalMode int

const (
	// signalsCancel cancels the command's context at the first; the
	// second ends the process.
	signalsCancel signalMode = iota + 1
	// signalsRelay sends each to the command's channel: a chat stops an
	// answer, not the session.
	signalsRelay
)

// call is one run of a command, set up: its flags parsed, its arguments
// checked, its settings applied.
type call struct {
	*env
	cmd *command
	fs  *pflag.FlagSet
	// args are the arguments after the flags.
	args []string
	// ctx is cancelled by Ctrl-C for a command with signalsCancel.
	ctx context.Context
	// sigs has the signals of a command with signalsRelay.
	sigs <-chan os.Signal
	// config is the config file the command's settings were read from,
	// for the default models it keeps.
	config configFile
}

// commands returns the table of the commands, in the order help lists
// them.
func commands() []*command {
	return []*command{
		askCommand(),
		chatCommand(),
		logsCommand(),
		parseCommand(),
		toolsCommand(),
		toolCommand(),
		modelsCommand(),
		evalCommand(),
		settingsCommand(),
		completionCommand(),
		helpCommand(),
		versionCommand(),
		{name: "__complete", hidden: true, raw: true, runRaw: func(e *env, args []string) error {
			return e.complete(args)
		}},
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// commandNames returns the names of the commands that do something of
// their own: all but help, version and the hidden ones.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		if c.name != "help" && c.name != "version" && !c.hidden {
			names = append(names, c.name)
		}
	}
	return names
}

// flagsOf returns the flags of the command called name, as the command
// defines them, for completion and for flags written before it; nil for
// a command without flags of its own to share.
func flagsOf(name string) *pflag.FlagSet {
	c := lookup(name)
	if c == nil || c.define == nil {
		return nil
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	c.define(fs)
	return fs
}

// dispatch runs the command called name with its arguments; a name that
// is no command asks a question.
func (e *env) dispatch(name string, args []string) error {
	c := lookup(name)
	if c == nil {
		c = lookup("ask")
	}
	if c.raw {
		return c.runRaw(e, args)
	}
	call, run, err := e.setup(c, args)
	if err != nil {
		return err
	}
	e.stdlog.follow(call.fs)
	switch c.signals {
	case signalsCancel:
		ctx, stop := e.interruptible()
		defer stop()
		call.ctx = ctx
	case signalsRelay:
		sigs := make(chan os.Signal, 1)
		defer e.notify(sigs)()
		call.sigs = sigs
	}
	return run(call)
}

// setup is what every command does before its own work: it parses the
// flags (--help prints the command's help), refuses the arguments the
// command does not take, and applies the settings of the environment and
// the config file to the flags the command line did not set.
func (e *env) setup(c *command, args []string) (*call, func(*call) error, error) {
	fs := e.newFlags(c)
	run := func(*call) error { return nil }
	if c.define != nil {
		run = c.define(fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return nil, nil, err
	}
	if c.check != nil {
		if err := c.check(fs.Args()); err != nil {
			return nil, nil, err
		}
	}
	var cf configFile
	if fs.Lookup("config") != nil && (c.writesSettings == nil || !c.writesSettings(fs.Args())) {
		var err error
		if cf, err = e.applySettings(fs); err != nil {
			return nil, nil, err
		}
	}
	return &call{env: e, cmd: c, fs: fs, args: fs.Args(), ctx: context.Background(), config: cf}, run, nil
}

// noArgs refuses any argument to the command called name.
func noArgs(name string) func([]string) error {
	return func(args []string) error {
		if len(args) > 0 {
			return usagef("%s takes no arguments, got %q", name, args)
		}
		return nil
	}
}
