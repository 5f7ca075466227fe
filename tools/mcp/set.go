package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/escape"
)

// DefaultStartTimeout bounds the start of a server when
// [Options.StartTimeout] is zero.
const DefaultStartTimeout = 30 * time.Second

// Options tune [Start].
type Options struct {
	// StartTimeout bounds the start of each server: its process or
	// connection, the MCP handshake and the listing of its tools. Zero
	// means DefaultStartTimeout.
	StartTimeout time.Duration
	// Reserved lists tool names the servers' tools must not take, such
	// as those of the registry they join. The names of the built-in tools
	// ([tools.Catalog]) are always reserved, and so are the names models
	// write for a final answer ([tools.IsAnswerName]).
	Reserved []string
	// MaxReply bounds, in bytes, what is read of one reply of a remote
	// server (a JSON body, an error's text, one event of an event
	// stream) and the size of a server's list of tools. A longer reply
	// ends its call, and the server's connection, with an error that
	// matches [ErrReplyTooLarge]; the next call connects again. Zero
	// means DefaultMaxReply. A server that runs a command is bounded by
	// the SDK instead, at 16 MiB a message.
	MaxReply int64
	// MaxError caps, in bytes, the text of a tool's error that the model
	// reads (a result the server marks as an error, an error of the
	// protocol), as the registry caps an observation; the rest is cut
	// with a marker. Zero means the default observation cap of
	// [tools.DefaultOptions].
	MaxError int
}

// Set is the running MCP servers of a run and their tools. Close it when
// the run ends.
type Set struct {
	servers  []*server
	tools    []tools.Tool
	warnings []string
	cancel   context.CancelFunc
}

// Start starts the servers in parallel and lists their tools. A server
// that runs a command gets a process group of its own and, from
// react-agent's environment, only what [tools.Environ] passes (HOME, PATH,
// TMPDIR, LANG and the like; on Windows, the system's folders and PATH),
// besides its Env: API keys meant for the model do not reach it, and a
// variable that marks every process it starts, so that on Linux those
// that leave its process group (with setsid, or a double fork) are found
// and killed with it. Servers run until [Set.Close], or until ctx ends,
// which kills their process groups; Close kills the rest, and waits up to
// 2 seconds for them to be gone.
//
// A remote server gets its Headers on the requests to the origin (scheme,
// host and port) of its URL only, never on a redirect or an SSE endpoint
// elsewhere. Unless its URL names a loopback, private or link-local
// address (or a name that resolves only to such), it is held to the network
// policy of http_request, [tools.PublicOnly], on every address dialled,
// redirects and endpoints included, and no proxy is used. At most 5
// redirects are followed. Every reply is bounded by [Options.MaxReply].
//
// A server that fails to start, or does not answer within the start-up
// time limit, makes Start fail with a [*StartError] quoting its stderr
// (joined with the others' when several fail), after the others are
// closed. A list of tools is read up to 1,000 tools, 100 pages or
// MaxReply bytes, whichever comes first; what is beyond is left out, with
// a warning ([Set.Warnings]).
//
// Each tool keeps the name its server gives it when no other server has
// a tool of that name, it is not reserved and it is not a name models
// write for a final answer ([tools.IsAnswerName]); otherwise it is called
// server_tool (the server's name, then an underscore), with a warning in
// the last case.
func Start(ctx context.Context, servers []Server, opts Options) (*Set, error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.MaxReply <= 0 {
		opts.MaxReply = DefaultMaxReply
	}
	if opts.MaxError <= 0 {
		opts.MaxError = tools.DefaultOptions().MaxObservation
	}
	for i, s := range servers {
		for _, t := range servers[:i] {
			if t.Name == s.Name {
				return nil, &ConfigError{File: s.File, Server: s.Name, Problem: fmt.Sprintf("is declared in %s too; rename one of them", t.File)}
			}
		}
	}
	life, cancel := context.WithCancel(ctx)
	set := &Set{cancel: cancel}
	client := mcp.NewClient(&mcp.Implementation{Name: "react-agent", Version: version()},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}) // no roots: servers keep the folders they are given
	lists := make([][]*mcp.Tool, len(servers))
	cut := make([]string, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, cfg := range servers {
		s := &server{cfg: cfg, client: client, life: life, timeout: opts.StartTimeout, maxReply: opts.MaxReply, maxError: opts.MaxError}
		set.servers = append(set.servers, s)
		wg.Go(func() { lists[i], cut[i], errs[i] = s.start(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		set.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("starting the MCP servers: %w", ctx.Err())
		}
		return nil, err
	}
	for _, w := range cut {
		if w != "" {
			set.warnings = append(set.warnings, w)
		}
	}
	tools, renamed, err := name(set.servers, lists, opts.Reserved)
	if err != nil {
		set.Close()
		return nil, err
	}
	set.tools, set.warnings = tools, append(set.warnings, renamed...)
	return set, nil
}

// Tools returns the tools of every server, to register in a
// [tools.Registry]. They implement [tools.Confirmable], and have a method
// Server() string that names their server.
func (s *Set) Tools() []tools.Tool { return slices.Clone(s.tools) }

// Warnings returns what Start changed of what the servers offer, one
// sentence each, for the caller to show: a list of tools cut short at the
// bounds of [Start], a tool renamed because models write its name for a
// final answer. Server text in them is escaped.
func (s *Set) Warnings() []string { return slices.Clone(s.warnings) }

// Close closes every session and ends every server's process group, in
// parallel, and on Linux the processes those left running outside their
// group too, waiting until they are gone (at most a few seconds, see
// [Start]). Calls still running fail. It is safe to call more than once.
func (s *Set) Close() error {
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Go(srv.close)
	}
	wg.Wait()
	s.cancel()
	return nil
}

// unsafeName matches the characters a tool name does not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// fold is the form of a name that a model could mean another by: "Web
// Search" is web_search.
func fold(name string) string {
	return strings.NewReplacer("-", "_", ".", "_", " ", "_").Replace(strings.ToLower(name))
}

// name wraps the tools that lists holds for each server, named as [Start]
// says, and returns the warnings of the tools renamed because models
// write their names for a final answer.
func name(servers []*server, lists [][]*mcp.Tool, reserved []string) ([]tools.Tool, []string, error) {
	taken := map[string]bool{}
	for _, n := range append(tools.Catalog().ToolNames(), reserved...) {
		taken[fold(n)] = true
	}
	count := map[string]int{}
	for _, list := range lists {
		for _, t := range list {
			count[fold(unsafeName.ReplaceAllString(t.Name, "_"))]++
		}
	}
	var out []tools.Tool
	var warnings []string
	used := map[string]string{} // folded name → the server that has it
	for i, s := range servers {
		var names []string // the server's, and ours where they differ
		for _, t := range lists[i] {
			names = append(names, t.Name)
			own := unsafeName.ReplaceAllString(t.Name, "_")
			n := own
			answer := tools.IsAnswerName(own)
			if count[fold(own)] > 1 || taken[fold(own)] || answer {
				n = strings.Trim(unsafeName.ReplaceAllString(s.cfg.Name, "_"), "_.-") + "_" + own
			}
			if tools.IsAnswerName(n) {
				return nil, nil, &ConfigError{File: s.cfg.File, Server: s.cfg.Name, Problem: fmt.Sprintf("its tool %q would be called %q, a name models write for a final answer; rename the server", t.Name, n)}
			}
			if other, ok := used[fold(n)]; ok || taken[fold(n)] {
				if !ok {
					other = "react-agent"
				}
				return nil, nil, &ConfigError{File: s.cfg.File, Server: s.cfg.Name, Problem: fmt.Sprintf("its tool %q would be called %q, a name %s has a tool of already; rename the server", t.Name, n, other)}
			}
			if answer {
				warnings = append(warnings, fmt.Sprintf("MCP server %q: its tool %q is called %q here, since models write %q for a final answer", s.cfg.Name, t.Name, n, own))
			}
			used[fold(n)] = s.cfg.Name
			if n != t.Name {
				names = append(names, n)
			}
			// One paragraph, as the prompt lists tools.
			desc := strings.Join(strings.Fields(cmp.Or(t.Description, t.Title, fmt.Sprintf("The tool %s of the MCP server %s.", t.Name, s.cfg.Name))), " ")
			a := t.Annotations
			input, _ := json.Marshal(t.InputSchema)
			out = append(out, &tool{
				srv:         s,
				name:        n,
				remote:      t.Name,
				description: escape.Visible(desc),
				schema:      schemaOf(t.InputSchema),
				input:       input,
				confirm:     s.cfg.Confirm && !slices.Contains(s.cfg.Allow, t.Name) && !slices.Contains(s.cfg.Allow, n),
				repeatable:  a != nil && (a.ReadOnlyHint || a.IdempotentHint),
			})
		}
		for _, a := range s.cfg.Allow {
			if !slices.Contains(names, a) {
				return nil, nil, &ConfigError{File: s.cfg.File, Server: s.cfg.Name, Problem: fmt.Sprintf(`"allow" names %q, which is not one of its tools: %s`, a, strings.Join(names, ", "))}
			}
		}
	}
	for i, w := range warnings {
		warnings[i] = escape.Visible(w)
	}
	return out, warnings, nil
}

// version is react-agent's version, as the build recorded it, which
// clients tell servers.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
