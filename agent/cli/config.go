package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	"github.com/react-agent/react-agent/tools/configerr"
)

// notSettings are the flags that neither a REACT_AGENT_* variable nor the
// config file may set: each is a choice for one run (--yes never runs a
// command unasked by surprise), or names where settings come from.
var notSettings = []string{"yes", "json", "record", "replay", "config", "continue", "cid", "attach", "help", "force"}

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
// written, in flag syntax (a repeatable flag's setting may be a list),
// and the default model of each provider.
type configFile struct {
	path   string
	values map[string][]string
	// lines are the lines of the settings' keys, for messages.
	lines map[string]int
	// defaults are the default models by provider, from default-model;
	// an older file's model is the default of the provider the file
	// names, or of Ollama (see legacyOwner).
	defaults map[string]string
}

// defaultModelKey is the key of the config file's mapping of providers
// to their default models, which `models default NAME` writes:
//
//	default-model:
//	  ollama: qwen2.5:7b
//	  llamacpp: tiny
const defaultModelKey = "default-model"

// defaultModel returns the default model of provider the file keeps, or
// "" to leave it to the provider's own.
func (cf configFile) defaultModel(provider string) string { return cf.defaults[provider] }

// legacyOwner returns the provider whose default model an older config
// file's model: was, when one model served every provider: the
// provider the file names, or Ollama, where it was most likely set.
func legacyOwner(fileProvider string) string {
	if p, ok := model.Lookup(fileProvider); ok && fileProvider != "" {
		return p.Name
	}
	ollama, _ := model.Lookup("")
	return ollama.Name
}

// loadConfig reads the config file at path, or at the default path when
// path is empty; a missing default file is an empty config. Values are
// kept as written: `api-key: 0123` is the text 0123, not the number 83.
func (e *env) loadConfig(path string) (configFile, error) {
	explicit := path != ""
	if !explicit {
		path = e.defaultConfigPath()
	}
	cf := configFile{path: path, values: map[string][]string{}, defaults: map[string]string{}, lines: map[string]int{}}
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
		return cf, usagef("config file %s, %w; it must be a YAML mapping of settings, like `max-iterations: 5`", path, configerr.Locate(data, err))
	}
	if len(doc.Content) == 0 {
		return cf, nil // an empty file
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return cf, usagef("config file %s is not a YAML mapping of settings (like `max-iterations: 5`)", path)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, v := top.Content[i].Value, top.Content[i+1]
		cf.lines[key] = top.Content[i].Line
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			continue
		case key == defaultModelKey:
			if err := cf.readDefaults(v); err != nil {
				return cf, &usageError{err}
			}
			continue
		case v.Kind == yaml.SequenceNode:
			var items []string
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					return cf, usagef("config file %s, line %d: %s must be a list of single values, as on the command line", path, item.Line, key)
				}
				items = append(items, item.Value)
			}
			cf.values[key] = items
			continue
		case v.Kind != yaml.ScalarNode:
			return cf, usagef("config file %s, line %d: %s must be a single value, as on the command line", path, v.Line, key)
		}
		cf.values[key] = []string{v.Value}
	}
	if legacy := cf.values["model"]; len(legacy) == 1 {
		// An older file's one default model, now its provider's.
		var provider string
		if p := cf.values["provider"]; len(p) == 1 {
			provider = p[0]
		}
		if owner := legacyOwner(provider); cf.defaults[owner] == "" {
			cf.defaults[owner] = legacy[0]
		}
		delete(cf.values, "model")
	}
	return cf, nil
}

// readDefaults reads the default-model mapping of providers to models.
func (cf configFile) readDefaults(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("config file %s: %s must map providers to their default models, as in\n%s:\n  ollama: qwen2.5:7b", cf.path, defaultModelKey, defaultModelKey)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		provider, name := v.Content[i].Value, v.Content[i+1]
		if _, ok := model.Lookup(provider); !ok || provider == "" {
			return fmt.Errorf("config file %s: %s: %s", cf.path, defaultModelKey, unknown("provider", provider, model.Names()))
		}
		if name.Kind != yaml.ScalarNode {
			return fmt.Errorf("config file %s: %s: the default model of %s must be a model's name", cf.path, defaultModelKey, provider)
		}
		if err := checkModelName(name.Value); err != nil {
			return fmt.Errorf("config file %s: %s: %s: %w", cf.path, defaultModelKey, provider, err)
		}
		cf.defaults[provider] = name.Value
	}
	return nil
}

// check reports a key of the file that is no setting of fs, the first in
// the file.
func (cf configFile) check(fs *pflag.FlagSet) error {
	names := settingNames(fs)
	keys := slices.SortedFunc(maps.Keys(cf.values), func(a, b string) int { return cf.lines[a] - cf.lines[b] })
	for _, key := range keys {
		switch {
		case key == defaultModelKey:
		case key == "yes":
			return fmt.Errorf("%s: \"yes\" cannot be set in a config file, so that a command never runs unasked by surprise; pass --yes on the command line", cf.at(key))
		case slices.Contains(notSettings, key):
			return fmt.Errorf("%s: %q is chosen for one run, not in a config file; pass --%s on the command line", cf.at(key), key, key)
		case !slices.Contains(names, key) && !isSetting(key):
			return fmt.Errorf("%s: unknown setting %q%s (react-agent settings lists them all)", cf.at(key), key, didYouMean(key, slices.Compact(slices.Sorted(slices.Values(append(names, allSettings()...))))))
		}
	}
	return nil
}

// at names the line of the file that sets the setting called key, for a
// message: "config file PATH, line 3".
func (cf configFile) at(key string) string {
	if n := cf.lines[key]; n > 0 {
		return fmt.Sprintf("config file %s, line %d", cf.path, n)
	}
	return "config file " + cf.path
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
// (OLLAMA_HOST, OPENAI_API_KEY, …). It returns the config file read, for
// the default models it keeps.
func (e *env) applySettings(fs *pflag.FlagSet) (configFile, error) {
	var configPath string
	if f := fs.Lookup("config"); f != nil {
		configPath = f.Value.String()
	}
	if configPath == "" {
		configPath = e.getenv("REACT_AGENT_CONFIG")
	}
	for _, name := range notSettings {
		if v := e.getenv(envName(name)); v != "" && name != "config" && fs.Lookup(name) != nil {
			return configFile{}, usagef("%s is set, but --%s is chosen for one run and cannot be set from the environment; pass --%s on the command line", envName(name), name, name)
		}
	}
	cf, err := e.loadConfig(configPath)
	if err != nil {
		return cf, err
	}
	if err := cf.check(fs); err != nil {
		return cf, &usageError{err}
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
					return cf, usagef("%s: %v", envName(name), err)
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
			return cf, usagef("%s: %s must be a single value, as on the command line", cf.at(name), name)
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
				return cf, usagef("%s: %v", cf.at(name), err)
			}
		}
		fs.SetAnnotation(name, sourceAnnotation, []string{cf.path})
	}
	return cf, nil
}

// sourceAnnotation records where a flag's value came from, when not from
// the command line or its default.
const sourceAnnotation = "react-agent/source"

// asGiven names the setting called name of fs for a message, as it was
// given: the flag when it is on the command line, else the setting and
// where its value came from ("provider (from conversation 1a2b3c in the
// log)"), so that a message blames no flag the user did not pass.
func asGiven(fs *pflag.FlagSet, name string) string {
	fl := fs.Lookup(name)
	if fl == nil {
		return "--" + name
	}
	switch from := fl.Annotations[sourceAnnotation]; {
	case len(from) > 0 && strings.HasPrefix(from[0], "conversation "):
		return fmt.Sprintf("%s (from %s in the log; pass --%s to choose another)", name, from[0], name)
	case len(from) > 0 && strings.HasPrefix(from[0], foundAt):
		return fmt.Sprintf("%s (%s; pass --%s to choose another)", name, from[0], name)
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
// it is written, comments included.
func writeSetting(path, name, value string, remove bool) error {
	return editConfig(path, func(top *yaml.Node) error {
		if remove {
			removeKey(top, name)
		} else {
			setKey(top, name, scalar(value))
		}
		return nil
	})
}

// writeDefaultModel makes name the default model of provider in the
// config file at path, or with remove takes provider's out. An older
// file's model:, which was the default of one provider (see
// legacyOwner), moves into default-model first; moved then says so.
func writeDefaultModel(path, provider, name string, remove bool) (moved string, err error) {
	err = editConfig(path, func(top *yaml.Node) error {
		defaults := valueOf(top, defaultModelKey)
		if defaults != nil && defaults.Kind != yaml.MappingNode {
			return usagef("config file %s: %s must map providers to their default models", path, defaultModelKey)
		}
		legacy := valueOf(top, "model")
		if defaults == nil {
			defaults = &yaml.Node{Kind: yaml.MappingNode}
			renameKey(top, "model", defaultModelKey) // in an older model:'s place, with its comments
			setKey(top, defaultModelKey, defaults)
		}
		if legacy != nil && legacy.Kind == yaml.ScalarNode {
			var fileProvider string
			if p := valueOf(top, "provider"); p != nil {
				fileProvider = p.Value
			}
			owner := legacyOwner(fileProvider)
			if valueOf(defaults, owner) == nil {
				setKey(defaults, owner, scalar(legacy.Value))
				moved = fmt.Sprintf("model: %s, the default model of %s, is kept under %s: from now on, one for each provider", legacy.Value, owner, defaultModelKey)
			}
			removeKey(top, "model")
		}
		if remove {
			removeKey(defaults, provider)
		} else {
			setKey(defaults, provider, scalar(name))
		}
		if len(defaults.Content) == 0 {
			removeKey(top, defaultModelKey)
		}
		return nil
	})
	return moved, err
}

// scalar returns value as the config file writes it, as loadConfig reads
// it: quoted only where YAML would read it as no value at all.
func scalar(value string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
	switch value {
	case "", "~", "null", "Null", "NULL":
		n.Tag = "!!str"
	}
	return n
}

// valueOf returns the value of key in the YAML mapping m, or nil.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey sets key to v in the YAML mapping m, where it is, or at its end.
func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
}

// renameKey renames key in the YAML mapping m to name, where it is.
func renameKey(m *yaml.Node, key, name string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i].Value = name
			return
		}
	}
}

// removeKey takes key out of the YAML mapping m.
func removeKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// editConfig changes the config file at path with edit, which gets its
// top mapping, keeping the rest of the file as it is written, comments
// included. A missing file is created, readable by its owner alone, as
// it may hold an API key. The file's folder is locked from the read to
// the rename, so that settings set at once by several processes are all
// kept.
func editConfig(path string, edit func(top *yaml.Node) error) error {
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
		return usagef("config file %s, %w; it must be a YAML mapping of settings, like `max-iterations: 5`: fix it, then try again", path, configerr.Locate(data, err))
	}
	if len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return usagef("config file %s is not a YAML mapping of settings (like `max-iterations: 5`): fix it, then try again", path)
	}
	if err := edit(top); err != nil {
		return err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return replaceFile(path, out.Bytes())
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
