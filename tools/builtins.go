package tools

import (
	"fmt"
	"time"
)

// Search engines for [Options.SearchEngine].
const (
	// EngineDuckDuckGo scrapes DuckDuckGo's HTML endpoint; it needs no key.
	EngineDuckDuckGo = "duckduckgo"
	// EngineSearXNG queries the JSON API of a SearXNG instance, usually
	// one the user hosts; it needs SearchURL.
	EngineSearXNG = "searxng"
)

// Options says which built-in tools are on and how they behave. Zero
// values mean the defaults of [DefaultOptions].
type Options struct {
	// AllowShell enables the shell tool.
	AllowShell bool
	// AllowHTTPWrite lets http_request send methods other than GET and
	// HEAD, a request body, and credential headers (Authorization, Cookie)
	// that the model writes. Off, a page the model
	// read cannot make it change anything or send credentials.
	AllowHTTPWrite bool
	// AllowPrivateNetwork lets http_request reach loopback, private,
	// link-local and other non-public addresses.
	AllowPrivateNetwork bool
	// SearchEngine is EngineDuckDuckGo (the default) or EngineSearXNG.
	SearchEngine string
	// SearchURL overrides the search endpoint. DuckDuckGo
	// defaults to its HTML endpoint; SearXNG has no default.
	SearchURL string
	// ToolTimeout bounds each tool call (default 30s).
	ToolTimeout time.Duration
	// MaxObservation caps what a tool returns to the model, in bytes
	// (default 8 KiB).
	MaxObservation int
	// MaxResponse caps the bytes read from an HTTP response body or a
	// command's output (default 2 MiB).
	MaxResponse int64
	// ToolsConfig is the path of a YAML or JSON file declaring plugin
	// tools; see [LoadPlugins].
	ToolsConfig string
	// PassEnv names the variables of the environment that the shell and
	// the plugin tools get besides the basic ones (see [Environ]), such
	// as a token a plugin needs. The others, the model's API keys among
	// them, they do not get.
	PassEnv []string
}

// DefaultOptions returns the options used when no flag is given.
func DefaultOptions() Options {
	return Options{
		SearchEngine:   EngineDuckDuckGo,
		ToolTimeout:    30 * time.Second,
		MaxObservation: 8 << 10,
		MaxResponse:    2 << 20,
	}
}

// withDefaults fills zero fields from DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.SearchEngine == "" {
		o.SearchEngine = d.SearchEngine
	}
	if o.ToolTimeout == 0 {
		o.ToolTimeout = d.ToolTimeout
	}
	if o.MaxObservation == 0 {
		o.MaxObservation = d.MaxObservation
	}
	if o.MaxResponse == 0 {
		o.MaxResponse = d.MaxResponse
	}
	return o
}

// OptionError is an Options value no tool can work with.
type OptionError struct {
	// Option names the field of Options, such as "SearchURL".
	Option string
	// Problem says what is wrong with it.
	Problem string
}

func (e *OptionError) Error() string { return "tools: " + e.Option + ": " + e.Problem }

// check reports options no tool can work with.
func (o Options) check() error {
	switch {
	case o.SearchEngine != EngineDuckDuckGo && o.SearchEngine != EngineSearXNG:
		return &OptionError{"SearchEngine", fmt.Sprintf("unknown search engine %q; use %q or %q", o.SearchEngine, EngineDuckDuckGo, EngineSearXNG)}
	case o.SearchEngine == EngineSearXNG && o.SearchURL == "":
		return &OptionError{"SearchURL", "searxng needs the address of your SearXNG instance (for example http://localhost:8888)"}
	case o.ToolTimeout < 0:
		return &OptionError{"ToolTimeout", fmt.Sprintf("must be positive, got %s", o.ToolTimeout)}
	case o.MaxObservation < 0:
		return &OptionError{"MaxObservation", fmt.Sprintf("must be positive, got %d", o.MaxObservation)}
	case o.MaxResponse < 0:
		return &OptionError{"MaxResponse", fmt.Sprintf("must be positive, got %d", o.MaxResponse)}
	}
	for _, name := range o.PassEnv {
		if !isEnvName(name) {
			return &OptionError{"PassEnv", fmt.Sprintf("%q is no variable's name; name each variable alone, as in GITHUB_TOKEN", name)}
		}
	}
	return nil
}

// builtins returns the built-in tools, shell included, as opts sets them
// up: the one list Builtins and Catalog both take them from.
func builtins(o Options) []Tool {
	return []Tool{newCalculator(), newWebSearch(o), newHTTPRequest(o), newShell(o)}
}

// Builtins returns a registry of the tools opts enables: calculator,
// web_search and http_request always, shell with AllowShell, and the plugin
// tools declared in ToolsConfig. Its limits come from opts.
//
// Without AllowShell the shell tool is left out, so the model is not
// offered it, but the registry remembers it: calling "shell" fails with an
// error matching [ErrShellDisabled] rather than "unknown tool".
func Builtins(opts Options) (*Registry, error) {
	o := opts.withDefaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	r, err := NewRegistry()
	if err != nil {
		return nil, err
	}
	for _, t := range builtins(o) {
		if t.Name() == shellName && !o.AllowShell {
			r.disable(shellName, errShellDisabled)
			continue
		}
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	if o.ToolsConfig != "" {
		plugins, err := LoadPlugins(o.ToolsConfig, o)
		if err != nil {
			return nil, err
		}
		for _, p := range plugins {
			if err := r.Register(p); err != nil {
				return nil, &ConfigError{File: o.ToolsConfig, Err: err}
			}
		}
	}
	r.SetLimits(Limits{Timeout: o.ToolTimeout, MaxObservation: o.MaxObservation})
	return r, nil
}

// Catalog returns every built-in tool whatever the flags: the parser uses
// it to match tool names and infer primary arguments, and `react-agent
// parse` shows it. Its shell tool is the disabled one, which refuses to run.
func Catalog() *Registry {
	r, err := NewRegistry(builtins(DefaultOptions())...)
	if err != nil {
		panic(err) // The built-in names are distinct.
	}
	return r
}
