package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/bounded"
)

// notSettings are the flags that neither a REACT_AGENT_* variable nor the
// config file may set: each is a choice for one run (--yes never runs a
// command unasked by surprise), or names where settings come from.
var notSettings = []string{"yes", "json", "record", "replay", "config", "continue", "cid", "attach", "help"}

// settingNames are the flags of fs that a REACT_AGENT_* variable or the
// config file may set, in the order they are applied: provider comes
// first, because the provider's own variables decide whether the file's
// base-url and api-key apply. Every flag is one, except notSettings.
func settingNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(notSettings, f.Name) {
			names = append(names, f.Name)
		}
	})
	slices.SortStableFunc(names, func(a, b string) int {
		return boolInt(b == "provider") - boolInt(a == "provider")
	})
	return names
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// envName is the environment variable that sets a flag.
func envName(flag string) string {
	return "REACT_AGENT_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// defaultConfigPath is where the config file is read from when --config
// and REACT_AGENT_CONFIG are not given.
func (e *env) defaultConfigPath() string {
	dir, err := e.configDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "react-agent", "config.yaml")
}

// configFile is a parsed config file: setting names and their values as
// written, in flag syntax; a repeatable flag's setting may be a list.
type configFile struct {
	path   string
	values map[string][]string
}

// loadConfig reads the config file at path, or at the default path when
// path is empty; a missing default file is an empty config. Values are
// kept as written: `api-key: 0123` is the text 0123, not the number 83.
func (e *env) loadConfig(path string) (configFile, error) {
	explicit := path != ""
	if !explicit {
		path = e.defaultConfigPath()
	}
	cf := configFile{path: path, values: map[string][]string{}}
	if path == "" {
		return cf, nil
	}
	data, err := bounded.ReadFile(path, tools.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return cf, nil
	}
	if err != nil {
		return cf, usagef("config file: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cf, fmt.Errorf("config file %s is not a YAML mapping of settings (like `model: qwen2.5:7b`): %w", path, err)
	}
	if len(doc.Content) == 0 {
		return cf, nil // an empty file
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return cf, fmt.Errorf("config file %s is not a YAML mapping of settings (like `model: qwen2.5:7b`)", path)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, v := top.Content[i].Value, top.Content[i+1]
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			continue
		case v.Kind == yaml.SequenceNode:
			var items []string
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					return cf, fmt.Errorf("config file %s: %s must be a list of single values, as on the command line", path, key)
				}
				items = append(items, item.Value)
			}
			cf.values[key] = items
			continue
		case v.Kind != yaml.ScalarNode:
			return cf, fmt.Errorf("config file %s: %s must be a single value, as on the command line", path, key)
		}
		cf.values[key] = []string{v.Value}
	}
	return cf, nil
}

// check reports a key of the file that is no setting of fs.
func (cf configFile) check(fs *pflag.FlagSet) error {
	names := settingNames(fs)
	for key := range cf.values {
		switch {
		case key == "yes":
			return fmt.Errorf("config file %s: \"yes\" cannot be set in a config file, so that a command never runs unasked by surprise; pass --yes on the command line", cf.path)
		case slices.Contains(notSettings, key):
			return fmt.Errorf("config file %s: %q is chosen for one run, not in a config file; pass --%s on the command line", cf.path, key, key)
		case !slices.Contains(names, key) && !isSetting(key):
			return fmt.Errorf("config file %s: unknown setting %q%s (react-agent settings lists them all)", cf.path, key, didYouMean(key, slices.Compact(slices.Sorted(slices.Values(append(names, allSettings()...))))))
		}
	}
	return nil
}

// isSetting reports whether name is a setting of any command, so that one
// config file serves them all: ask's settings, say, in the file that
// `tools` reads.
func isSetting(name string) bool { return slices.Contains(allSettings(), name) }

// allSettings are the settings of ask and chat, which hold those of the
// other commands.
func allSettings() []string {
	fs := pflag.NewFlagSet("all", pflag.ContinueOnError)
	addAgentFlags(fs)
	return settingNames(fs)
}

// applySettings fills each flag of fs not given on the command line from
// its REACT_AGENT_* variable, or else from the config file: the one
// --config or REACT_AGENT_CONFIG names, or the default one. A config
// file's base-url and api-key yield to the provider's own variables
// (OLLAMA_HOST, OPENAI_API_KEY, …).
func (e *env) applySettings(fs *pflag.FlagSet) error {
	var configPath string
	if f := fs.Lookup("config"); f != nil {
		configPath = f.Value.String()
	}
	if configPath == "" {
		configPath = e.getenv("REACT_AGENT_CONFIG")
	}
	for _, name := range notSettings {
		if v := e.getenv(envName(name)); v != "" && name != "config" && fs.Lookup(name) != nil {
			return usagef("%s is set, but --%s is chosen for one run and cannot be set from the environment; pass --%s on the command line", envName(name), name, name)
		}
	}
	cf, err := e.loadConfig(configPath)
	if err != nil {
		return err
	}
	if err := cf.check(fs); err != nil {
		return &usageError{err}
	}
	for _, name := range settingNames(fs) {
		fl := fs.Lookup(name)
		if fl.Changed {
			continue
		}
		_, isPath := fl.Annotations[pathAnnotation]
		_, repeatable := fl.Value.(pflag.SliceValue)
		if v := e.getenv(envName(name)); v != "" {
			values := []string{v}
			if isPath && repeatable {
				values = filepath.SplitList(v) // several files, as in PATH
			}
			for _, v := range values {
				if err := setFlag(fs, name, v); err != nil {
					return usagef("%s: %v", envName(name), err)
				}
			}
			fs.SetAnnotation(name, sourceAnnotation, []string{envName(name)})
			continue
		}
		values, ok := cf.values[name]
		if !ok || len(values) == 0 {
			continue
		}
		if len(values) > 1 && !repeatable {
			return usagef("config file %s: %s must be a single value, as on the command line", cf.path, name)
		}
		if p := fs.Lookup("provider"); p != nil && (name == "base-url" || name == "api-key") {
			prov, _ := model.Lookup(p.Value.String())
			if env := map[string]string{"base-url": prov.URLEnv, "api-key": prov.KeyEnv}[name]; env != "" && e.getenv(env) != "" {
				continue
			}
		}
		for _, v := range values {
			if isPath && v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(filepath.Dir(cf.path), v) // Relative to the file.
			}
			if err := setFlag(fs, name, v); err != nil {
				return usagef("config file %s: %v", cf.path, err)
			}
		}
		fs.SetAnnotation(name, sourceAnnotation, []string{cf.path})
	}
	return nil
}

// sourceAnnotation records where a flag's value came from, when not from
// the command line or its default.
const sourceAnnotation = "react-agent/source"

// setting names the setting name of fs for a message as it was given: the
// flag when it is on the command line, else the setting and where its
// value came from ("provider (from conversation 1a2b3c in the log)"), so
// that a message blames no flag the user did not pass.
func setting(fs *pflag.FlagSet, name string) string {
	fl := fs.Lookup(name)
	if fl == nil {
		return "--" + name
	}
	switch from := fl.Annotations[sourceAnnotation]; {
	case len(from) > 0 && strings.HasPrefix(from[0], "conversation "):
		return fmt.Sprintf("%s (from %s in the log; pass --%s to choose another)", name, from[0], name)
	case len(from) > 0:
		return fmt.Sprintf("%s (from %s)", name, from[0])
	}
	return "--" + name
}

// addConfigFlag adds --config to fs.
func addConfigFlag(fs *pflag.FlagSet) {
	grouped(fs, "Settings flags", func() {
		fs.String("config", "", "YAML settings file: flag names and values (default: react-agent/config.yaml in the user's config directory)")
	})
}

// configPath returns the config file that fs's --config, REACT_AGENT_CONFIG
// or the default names.
func (e *env) configPath(fs *pflag.FlagSet) string {
	if f := fs.Lookup("config"); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	if p := e.getenv("REACT_AGENT_CONFIG"); p != "" {
		return p
	}
	return e.defaultConfigPath()
}

// checkSetting returns a usage error unless value is a value the setting
// called name takes: a flag of a command that a config file may set.
func checkSetting(name, value string) error {
	if name == "yes" || slices.Contains(notSettings, name) {
		return usagef("%q is chosen for one run, not kept in the config file; pass --%s on the command line", name, name)
	}
	if name == "model" {
		if err := checkModelName(value); err != nil {
			return err
		}
	}
	for _, c := range commands() {
		fs := flagsOf(c.name)
		if fs == nil || fs.Lookup(name) == nil {
			continue
		}
		if err := setFlag(fs, name, value); err != nil {
			return &usageError{err}
		}
		return nil
	}
	return usagef("unknown setting %q%s (react-agent settings lists them)", name, didYouMean(name, allSettings()))
}

// configLockWait is how long a change of the config file waits for
// another one to be done.
const configLockWait = 10 * time.Second

// writeSetting sets the setting called name to value in the config file
// at path, or with remove takes it out, keeping the rest of the file as
// it is written, comments included. A missing file is created, readable
// by its owner alone, as it may hold an API key. The file's folder is
// locked from the read to the rename, so that settings set at once by
// several processes are all kept.
func writeSetting(path, name, value string, remove bool) error {
	if path == "" {
		return errors.New("no config file: the user's config directory is unknown; pass --config FILE")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r // a link kept with the user's dotfiles: its file is replaced
	}
	unlock, err := lockDir(filepath.Dir(real), configLockWait)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := bounded.ReadFile(path, tools.MaxConfigFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("config file %s is not a YAML mapping of settings (like `model: qwen2.5:7b`): %w", path, err)
	}
	if len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("config file %s is not a YAML mapping of settings (like `model: qwen2.5:7b`)", path)
	}
	// The value as written, as loadConfig reads it; quoted only where
	// YAML would read it as no value at all.
	scalar := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
	switch value {
	case "", "~", "null", "Null", "NULL":
		scalar.Tag = "!!str"
	}
	found := false
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != name {
			continue
		}
		if remove {
			top.Content = append(top.Content[:i], top.Content[i+2:]...)
		} else {
			top.Content[i+1] = scalar
		}
		found = true
		break
	}
	if !found && !remove {
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, scalar)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return err
	}
	return replaceFile(path, out)
}

// replaceFile writes data to the file at path as a whole or not at all:
// into a new file beside it, renamed over it, so that a run that stops
// midway leaves the old file, never half of the new one. A symbolic link
// (a config file kept with the user's dotfiles) stays a link: the file
// it points to is replaced. The new file is readable by its owner alone.
func replaceFile(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
