package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/model"
)

// parseFlags parses args into fs, turning flag errors into usage errors
// in people's words.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("%s (see --help)", flagProblem(fs, err))
	}
	return nil
}

// flagProblem says what is wrong with a flag, from pflag's error, naming
// the flag as it was written.
func flagProblem(fs *pflag.FlagSet, err error) string {
	var invalid *pflag.InvalidValueError
	var missing *pflag.ValueRequiredError
	var unknown *pflag.NotExistError
	var agentOption *agentOptionError
	var word *choiceError
	switch {
	case errors.As(err, &agentOption):
		return agentOption.Error()
	case errors.As(err, &word) && errors.As(err, &invalid):
		return fmt.Sprintf("--%s: %v", invalid.GetFlag().Name, word)
	case errors.As(err, &invalid):
		return fmt.Sprintf("--%s takes %s; got %q", invalid.GetFlag().Name, valueKind(invalid.GetFlag()), invalid.GetValue())
	case errors.As(err, &missing):
		f := missing.GetFlag()
		written := "--" + f.Name
		if missing.GetSpecifiedShortnames() != "" {
			written = "-" + f.Shorthand + " (--" + f.Name + ")"
		}
		return fmt.Sprintf("%s needs a value: %s", written, valueKind(f))
	case errors.As(err, &unknown):
		name := unknown.GetSpecifiedName()
		if unknown.GetSpecifiedShortnames() != "" {
			msg := "unknown flag -" + name
			if name == "V" {
				return msg + "; the version is --version"
			}
			if long := nearestFlag(fs, name); long != "" {
				return msg + fmt.Sprintf("; did you mean --%s?", long)
			}
			return msg + "; the one-letter flags are " + shorthands(fs)
		}
		msg := fmt.Sprintf("unknown flag --%s", name)
		if near := nearestFlag(fs, name); near != "" {
			return msg + fmt.Sprintf("; did you mean --%s?", near)
		}
		if cmds := commandsWithFlag(name); len(cmds) > 0 {
			return msg + fmt.Sprintf("; it is a flag of %s", strings.Join(cmds, ", "))
		}
		return msg
	}
	return err.Error()
}

// shorthands lists the one-letter flags of fs, or says there are none.
func shorthands(fs *pflag.FlagSet) string {
	var list []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Shorthand != "" {
			list = append(list, "-"+f.Shorthand+" (--"+f.Name+")")
		}
	})
	if len(list) == 0 {
		return "none: write flags in full, as in --help"
	}
	return strings.Join(list, ", ")
}

// valueKind says in words what a flag's value is: as its value describes
// itself, or else from its type, or else, for text, from its name.
func valueKind(f *pflag.Flag) string {
	if d, ok := f.Value.(describedValue); ok {
		return d.describe()
	}
	switch f.Value.Type() {
	case "int", "int64":
		return "a whole number, like " + map[bool]string{true: f.DefValue, false: "10"}[f.DefValue != "0" && f.DefValue != ""]
	case "duration":
		return "a time with its unit, like 30s, 5m or 1h30m"
	case "float64":
		return "a number, like 0.7"
	case "bool":
		return "true or false"
	case "KEY=VALUE":
		return "KEY=VALUE, or KEY VALUE"
	}
	if takesFile(f) {
		return "a file's path"
	}
	switch f.Name {
	case "provider":
		return "a provider: " + strings.Join(model.Names(), ", ")
	case "model":
		return "a model's name, like qwen2.5:7b"
	case "base-url", "search-url":
		return "a server's address, like http://127.0.0.1:8080"
	case "api-key":
		return "an API key"
	case "system":
		return "a text to add to the system prompt"
	case "stop":
		return "a stop sequence, like Observation:"
	case "cid":
		return "a conversation's ID, or its start (see: react-agent logs)"
	case "query":
		return "the words to search for"
	case "since":
		return "a date, like 2026-11-01, or a span back from now, like 24h or 7d"
	case "models":
		return "models, comma-separated, like ollama:qwen2.5:7b,ollama:llama3.1:8b"
	case "tool":
		return "a tool's name"
	case "pass-env":
		return "the name of a variable of the environment, like GITHUB_TOKEN"
	}
	return "a value"
}

// fileFlags are the flags that take a file's path but for those marked
// with pathFlag, whose relative paths in the config file are taken from
// the file's folder.
var fileFlags = []string{"attach", "record", "replay", "log-db", "config", "tools", "score"}

// takesFile reports whether the flag f takes a file's path.
func takesFile(f *pflag.Flag) bool {
	_, isPath := f.Annotations[pathAnnotation]
	return isPath || slices.Contains(fileFlags, f.Name)
}

// setFlag sets the flag name of fs to a value from a setting, with an
// error in people's words.
func setFlag(fs *pflag.FlagSet, name, value string) error {
	if err := fs.Set(name, value); err != nil {
		if agentOption := (*agentOptionError)(nil); errors.As(err, &agentOption) {
			return agentOption
		}
		if word := (*choiceError)(nil); errors.As(err, &word) {
			return fmt.Errorf("%s: %w", name, word)
		}
		return fmt.Errorf("%s takes %s; got %q", name, valueKind(fs.Lookup(name)), value)
	}
	return nil
}

// nearestFlag returns the flag of fs one or two slips from name, or "".
func nearestFlag(fs *pflag.FlagSet, name string) string {
	best, bestD := "", 3
	fs.VisitAll(func(f *pflag.Flag) {
		if d := editDistance(name, f.Name); d < bestD && (d == 1 || len(name) >= 6) {
			best, bestD = f.Name, d
		}
	})
	return best
}

// commandsWithFlag lists the commands that take the flag called name.
func commandsWithFlag(name string) []string {
	var cmds []string
	for _, c := range commandNames() {
		if fs := flagsOf(c); fs != nil && fs.Lookup(name) != nil {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// pathAnnotation marks a flag whose value is a file's path: a relative path
// in the config file is taken from the file's folder.
const pathAnnotation = "react-agent/path"

// pathFlag marks the flag called name as a file's path.
func pathFlag(fs *pflag.FlagSet, name string) {
	if err := fs.SetAnnotation(name, pathAnnotation, []string{"true"}); err != nil {
		panic(err) // a flag defined in this package is missing: a bug
	}
}

// groupAnnotation files a flag under a heading of its command's help.
const groupAnnotation = "react-agent/group"

// grouped adds flags to fs with add, and files them under heading in the
// command's help.
func grouped(fs *pflag.FlagSet, heading string, add func()) {
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	add()
	fs.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			f.Annotations = maps.Clone(f.Annotations)
			if f.Annotations == nil {
				f.Annotations = map[string][]string{}
			}
			f.Annotations[groupAnnotation] = []string{heading}
		}
	})
}

// leadingFlag is one flag written before the command, with its value.
type leadingFlag struct {
	name  string
	value *string
}

// form is the flag as the command reads it.
func (f leadingFlag) form() string {
	if f.value == nil {
		return "--" + f.name
	}
	return "--" + f.name + "=" + *f.value
}

// leadingFlags reads the flags of fs at the start of args, and returns
// them with the index of the first argument that is neither a flag nor a
// flag's value. A flag fs does not know is taken to have no value.
func leadingFlags(fs *pflag.FlagSet, args []string) ([]leadingFlag, int) {
	var flags []leadingFlag
	takesValue := func(f *pflag.Flag) bool { return f != nil && f.NoOptDefVal == "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, i
		case strings.HasPrefix(a, "--"):
			name, value, inline := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			lf := leadingFlag{name: name}
			switch {
			case inline:
				lf.value = &value
			case takesValue(f) && i+1 < len(args):
				i++
				lf.value = &args[i]
			}
			flags = append(flags, lf)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// Shorthands, perhaps several (-qv), the last perhaps with
			// its value (-m qwen, -mqwen, -m=qwen).
			for k := 1; k < len(a); k++ {
				f := fs.ShorthandLookup(a[k : k+1])
				lf := leadingFlag{name: a[k : k+1]}
				if f != nil {
					lf.name = f.Name
				}
				if takesValue(f) {
					switch v := strings.TrimPrefix(a[k+1:], "="); {
					case v != "":
						lf.value = &v
					case i+1 < len(args):
						i++
						lf.value = &args[i]
					}
					flags = append(flags, lf)
					break
				}
				flags = append(flags, lf)
			}
		default:
			return flags, i
		}
	}
	return flags, len(args)
}

// modelOptions is the value of -o: model options, KEY=VALUE, into
// model.Config.Options.
type modelOptions struct {
	m   *model.Config
	set []string
}

func (o *modelOptions) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want KEY=VALUE, or KEY VALUE")
	}
	if err := checkOption(strings.TrimSpace(k)); err != nil {
		return err
	}
	if o.m.Options == nil {
		o.m.Options = map[string]any{}
	}
	o.m.Options[strings.TrimSpace(k)] = model.OptionValue(v)
	o.set = append(o.set, kv)
	return nil
}

func (o *modelOptions) String() string { return strings.Join(o.set, " ") }
func (o *modelOptions) Type() string   { return "KEY=VALUE" }

// Append, Replace and GetSlice make -o a repeatable setting, a list in
// the config file.
func (o *modelOptions) Append(kv string) error { return o.Set(kv) }
func (o *modelOptions) GetSlice() []string     { return o.set }
func (o *modelOptions) Replace(kvs []string) error {
	o.m.Options, o.set = nil, nil
	for _, kv := range kvs {
		if err := o.Set(kv); err != nil {
			return err
		}
	}
	return nil
}

// optionPairs writes llm's `-o KEY VALUE` as the flag reads it, `-o
// KEY=VALUE`. A key that starts with "-", or a value that starts with
// "--", is a flag that the option's key or value was left out before,
// and a usage error.
func optionPairs(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...), nil
		}
		isOption := a == "-o" || a == "--option"
		if isOption && i+1 < len(args) && strings.HasPrefix(args[i+1], "-") {
			return nil, usagef("%s needs a KEY and its VALUE before %s: write %s KEY VALUE, or %s KEY=VALUE", a, args[i+1], a, a)
		}
		if isOption && i+2 < len(args) && !strings.Contains(args[i+1], "=") {
			key, value := args[i+1], args[i+2]
			if strings.HasPrefix(value, "--") {
				return nil, usagef("%s %s needs a value before %s: write %s %s VALUE, or %s %s=VALUE", a, key, value, a, key, a, key)
			}
			out = append(out, key+"="+value)
			i += 2
		}
	}
	return out, nil
}
