package tools

import (
	"errors"
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

// Options holds the tool flags shared by the ask, chat and tool commands.
// Zero values mean the defaults of [DefaultOptions].
type Options struct {
	// AllowShell enables the shell tool (--allow-shell).
	AllowShell bool
	// Yes runs shell and plugin commands without asking (--yes). The
	// registry does not read it; pass it to [NewTerminalConfirmer].
	Yes bool
	// AllowPrivateNetwork lets http_request reach loopback, private,
	// link-local and other non-public addresses (--allow-private-network).
	AllowPrivateNetwork bool
	// SearchEngine is EngineDuckDuckGo (the default) or EngineSearXNG
	// (--search-engine).
	SearchEngine string
	// SearchURL overrides the search endpoint (--search-url). DuckDuckGo
	// defaults to its HTML endpoint; SearXNG has no default.
	SearchURL string
	// ToolTimeout bounds each tool call (--tool-timeout, default 30s).
	ToolTimeout time.Duration
	// MaxObservation caps what a tool returns to the model, in bytes
	// (--max-observation, default 8 KiB).
	MaxObservation int
	// MaxResponse caps the bytes read from an HTTP response body or a
	// command's output (--max-response, default 2 MiB).
	MaxResponse int64
	// ToolsConfig is the path of a YAML or JSON file declaring plugin
	// tools (--tools-config); see [LoadPlugins].
	ToolsConfig string
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

// check reports options no tool can work with, naming the flag.
func (o Options) check() error {
	switch {
	case o.SearchEngine != EngineDuckDuckGo && o.SearchEngine != EngineSearXNG:
		return fmt.Errorf("tools: unknown --search-engine %q; use %q or %q", o.SearchEngine, EngineDuckDuckGo, EngineSearXNG)
	case o.SearchEngine == EngineSearXNG && o.SearchURL == "":
		return errors.New("tools: --search-engine searxng needs --search-url, the address of your SearXNG instance (for example http://localhost:8888)")
	case o.ToolTimeout < 0:
		return fmt.Errorf("tools: --tool-timeout must be positive, got %s", o.ToolTimeout)
	case o.MaxObservation < 0:
		return fmt.Errorf("tools: --max-observation must be positive, got %d", o.MaxObservation)
	case o.MaxResponse < 0:
		return fmt.Errorf("tools: --max-response must be positive, got %d", o.MaxResponse)
	}
	return nil
}

// Builtins returns a registry of the tools opts enables: calculator,
// web_search and http_request always, shell with AllowShell, and the plugin
// tools declared in ToolsConfig. Its limits come from opts.
//
// Without AllowShell the shell tool is left out, so the model is not
// offered it, but the registry remembers it: calling "shell" fails with an
// error that says to pass --allow-shell rather than "unknown tool".
func Builtins(opts Options) (*Registry, error) {
	o := opts.withDefaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	r, err := NewRegistry(
		newCalculator(),
		newWebSearch(o),
		newHTTPRequest(o),
	)
	if err != nil {
		return nil, err
	}
	if o.AllowShell {
		if err := r.Register(newShell(o)); err != nil {
			return nil, err
		}
	} else {
		r.disable(shellName, errShellDisabled)
	}
	if o.ToolsConfig != "" {
		plugins, err := LoadPlugins(o.ToolsConfig, o)
		if err != nil {
			return nil, err
		}
		for _, p := range plugins {
			if err := r.Register(p); err != nil {
				return nil, fmt.Errorf("tools config %s: %w", o.ToolsConfig, err)
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
	o := DefaultOptions()
	r, err := NewRegistry(
		newCalculator(),
		newWebSearch(o),
		newHTTPRequest(o),
		newShell(o),
	)
	if err != nil {
		panic(err) // The built-in names are distinct.
	}
	return r
}
