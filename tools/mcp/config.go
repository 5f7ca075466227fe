package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/bounded"
	"github.com/react-agent/react-agent/tools/configerr"

	"gopkg.in/yaml.v3"
)

// Transports a [Server] may use.
const (
	// Stdio runs the server as a process and speaks over its stdin and
	// stdout.
	Stdio = "stdio"
	// HTTP connects to a remote server with the streamable HTTP transport.
	HTTP = "http"
	// SSE connects to a remote server with the older HTTP with server-sent
	// events transport.
	SSE = "sse"
)

// Server is one MCP server as a config file declares it.
type Server struct {
	// Name is the server's key in the file.
	Name string
	// Transport is [Stdio] for a server with a Command, and [HTTP] or
	// [SSE] for one with a URL.
	Transport string
	// Command is the program of a server that runs as a process: an
	// absolute path, or a name looked up in PATH.
	Command string
	// Args are the program's arguments.
	Args []string
	// Env is added to the few variables a server gets from react-agent's
	// environment (see [Start]).
	Env map[string]string
	// Dir is the working directory of the process; empty means the
	// current one.
	Dir string
	// URL is the address of a remote server.
	URL string
	// Headers are sent with every request to a remote server, such as
	// an Authorization header.
	Headers map[string]string
	// Confirm is true when each call of the server's tools must be
	// confirmed, unless the tool is in Allow.
	Confirm bool
	// Allow names the tools that need no confirmation, as the server
	// names them.
	Allow []string
	// File is the config file that declares the server, for messages.
	File string
}

// ErrNoServers is matched (with errors.Is) by the error of [LoadConfig] for
// a file that declares no MCP server at all.
var ErrNoServers = errors.New("no MCP servers declared")

// ConfigError is a problem in a config file: its message names the file,
// the server and what to write instead.
type ConfigError struct {
	// File is the config file's path.
	File string
	// Server is the server's name, or "" for a problem of the whole file.
	Server string
	// Problem says what is wrong and how to fix it.
	Problem string
	// Err is the underlying error, if any.
	Err error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Server != "" {
		fmt.Fprintf(&b, ": MCP server %q", e.Server)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	return b.String()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// fields are the keys a server's entry may hold.
var fields = []string{"command", "args", "env", "envFile", "cwd", "url", "headers", "type", "disabled", "confirm", "allow", "dev"}

// LoadConfig reads the MCP servers declared in the JSON or YAML file at path
// (JSON when the name ends in .json). It reads two layouts. The one Claude
// Desktop and Cursor write, in JSON:
//
//	{"mcpServers": {
//	  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
//	  "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
//	}}
//
// VS Code's "servers" object, in the same form, with its "envFile" (a file
// of NAME=value lines) and ${workspaceFolder}. And the "mcp" section of
// react-agent's tools file (beside its "tools" list), in YAML:
//
//	mcp:
//	  files:
//	    command: ./file-server          # taken from the file's folder
//	    args: [--root, ./notes]
//	    env: {LOG_LEVEL: debug}
//	    cwd: ./notes
//	    confirm: false                  # no confirmations (default true)
//	    allow: [read_file, list_directory]  # or only these need none
//
// An entry has either a command, run as a process that speaks over stdio,
// or a url of a remote server ("type": "sse" for the older SSE transport).
// "disabled": true leaves it out. ${NAME} in a command, an argument, a
// folder, an env or header value or a url is replaced by the environment
// variable NAME. Relative paths are taken from the file's folder: a command
// or cwd that holds a slash, and an argument that holds one (or is . or ..)
// and names an existing file or folder there. Other top-level keys are
// ignored. The file and each envFile must be regular files of at most
// [tools.MaxConfigFile] bytes (a FIFO or a device is refused, not waited
// on or read). Errors are [*ConfigError]s; a file with neither section
// gives one that matches [ErrNoServers].
func LoadConfig(path string) ([]Server, error) {
	data, err := bounded.ReadFile(path, tools.MaxConfigFile)
	if err != nil {
		return nil, &ConfigError{File: path, Problem: fmt.Sprintf("cannot read it: %v", err), Err: err}
	}
	var top any
	if strings.EqualFold(filepath.Ext(path), ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		err = dec.Decode(&top)
	} else {
		err = yaml.Unmarshal(data, &top)
	}
	if err != nil {
		return nil, &ConfigError{File: path, Problem: fmt.Sprintf("not valid %s: %v", format(path), configerr.Locate(data, err)), Err: err}
	}
	doc, ok := top.(map[string]any)
	if !ok {
		return nil, &ConfigError{File: path, Problem: `expected an object with an "mcpServers" object of servers`}
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, &ConfigError{File: path, Problem: err.Error(), Err: err}
	}
	var servers []Server
	found := false
	for _, key := range []string{"mcpServers", "servers", "mcp"} {
		section, ok := doc[key]
		if !ok || section == nil {
			continue
		}
		entries, ok := section.(map[string]any)
		if !ok {
			return nil, &ConfigError{File: path, Problem: fmt.Sprintf("%q must map server names to their settings, as in %s", key, example(key))}
		}
		found = found || len(entries) > 0
		names := make([]string, 0, len(entries))
		for name := range entries {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if slices.ContainsFunc(servers, func(s Server) bool { return s.Name == name }) {
				return nil, &ConfigError{File: path, Server: name, Problem: `is declared in two of "mcpServers", "servers" and "mcp"; keep one`}
			}
			s, skip, err := parseServer(path, dir, name, entries[name])
			if err != nil {
				return nil, err
			}
			if !skip {
				servers = append(servers, s)
			}
		}
	}
	if !found {
		return nil, &ConfigError{File: path, Problem: fmt.Sprintf(`%v: expected an "mcpServers" object (as Claude Desktop and Cursor write it), as in %s, a "servers" object (as VS Code writes it), or an "mcp" section in a tools file`, ErrNoServers, example("mcpServers")), Err: ErrNoServers}
	}
	return servers, nil
}

// format names the format a file is read in.
func format(path string) string {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return "JSON"
	}
	return "YAML"
}

// example shows a section with one server.
func example(key string) string {
	return fmt.Sprintf(`{%q: {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}}`, key)
}

// parseServer checks one entry of a file and resolves its paths against
// dir. skip is true for a disabled server.
func parseServer(file, dir, name string, entry any) (s Server, skip bool, err error) {
	fail := func(format string, a ...any) error {
		return &ConfigError{File: file, Server: name, Problem: fmt.Sprintf(format, a...)}
	}
	if strings.TrimSpace(name) == "" {
		return s, false, &ConfigError{File: file, Problem: "a server has an empty name; give it one"}
	}
	m, ok := entry.(map[string]any)
	if !ok {
		return s, false, fail(`must be an object of settings, as in {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}`)
	}
	for key := range m {
		if !slices.Contains(fields, key) {
			return s, false, fail("unknown setting %q; the settings are %s", key, strings.Join(fields, ", "))
		}
	}
	r := reader{m: m, fail: fail}
	s = Server{Name: name, File: file, Confirm: true}
	disabled := r.bool("disabled", false)
	s.Confirm = r.bool("confirm", true)
	s.Command = r.string("command")
	s.Args = r.strings("args")
	s.Env = r.stringMap("env")
	envFile := r.string("envFile")
	s.Dir = r.string("cwd")
	s.URL = r.string("url")
	s.Headers = r.stringMap("headers")
	s.Allow = r.strings("allow")
	typ := r.string("type")
	if r.err != nil {
		return s, false, r.err
	}
	if disabled {
		return s, true, nil
	}
	switch typ {
	case "", "stdio", "http", "streamable-http", "streamable_http", "streamableHttp", "sse":
	default:
		return s, false, fail(`unknown "type" %q; use "stdio" for a command, "http" for a url, or "sse" for a url of the older SSE transport`, typ)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return s, false, fail(`has neither a "command" to run nor a "url" to connect to; give it one, as in {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}`)
	case s.Command != "" && s.URL != "":
		return s, false, fail(`has both a "command" and a "url"; keep the one that says how to reach it`)
	case s.Command != "":
		if typ != "" && typ != "stdio" {
			return s, false, fail(`has a "command", so its "type" is "stdio", not %q`, typ)
		}
		if _, ok := m["headers"]; ok {
			return s, false, fail(`"headers" apply to a server with a url; this one runs a command: pass what it needs in "env" or "args"`)
		}
		s.Transport = Stdio
	default:
		if typ == "stdio" {
			return s, false, fail(`has a "url", so its "type" is "http" (or "sse"), not "stdio"`)
		}
		for _, key := range []string{"args", "env", "cwd"} {
			if _, ok := m[key]; ok {
				return s, false, fail("%q apply to a server that runs a command; this one has a url", key)
			}
		}
		s.Transport = HTTP
		if typ == "sse" {
			s.Transport = SSE
		}
	}
	for _, a := range s.Allow {
		if strings.TrimSpace(a) == "" {
			return s, false, fail(`"allow" holds an empty name; list the server's tool names`)
		}
	}
	if envFile != "" {
		if err := s.readEnvFile(envFile, dir); err != nil {
			return s, false, fail("%v", err)
		}
	}
	if err := s.expand(); err != nil {
		return s, false, fail("%v", err)
	}
	if err := s.resolve(dir); err != nil {
		return s, false, fail("%v", err)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, false, fail(`"url" %q is not an http or https address, such as "https://example.com/mcp"`, s.URL)
		}
	}
	return s, false, nil
}

// reader reads typed settings from a decoded entry, keeping the first
// error.
type reader struct {
	m    map[string]any
	fail func(format string, a ...any) error
	err  error
}

func (r *reader) bool(key string, def bool) bool {
	v, ok := r.m[key]
	if !ok || v == nil {
		return def
	}
	b, ok := v.(bool)
	if !ok && r.err == nil {
		r.err = r.fail("%q must be true or false, got %s", key, describe(v))
	}
	return b
}

func (r *reader) string(key string) string {
	v, ok := r.m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := scalar(v)
	if !ok && r.err == nil {
		r.err = r.fail("%q must be a string, got %s", key, describe(v))
	}
	return s
}

func (r *reader) strings(key string) []string {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		if r.err == nil {
			r.err = r.fail(`%q must be a list of strings, as in ["-y", "@modelcontextprotocol/server-memory"], got %s`, key, describe(v))
		}
		return nil
	}
	out := make([]string, len(list))
	for i, item := range list {
		s, ok := scalar(item)
		if !ok && r.err == nil {
			r.err = r.fail("%q: item %d must be a string, got %s", key, i+1, describe(item))
		}
		out[i] = s
	}
	return out
}

func (r *reader) stringMap(key string) map[string]string {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		if r.err == nil {
			r.err = r.fail(`%q must be an object of names and strings, as in {"NAME": "value"}, got %s`, key, describe(v))
		}
		return nil
	}
	out := make(map[string]string, len(m))
	for k, item := range m {
		s, ok := scalar(item)
		if !ok && r.err == nil {
			r.err = r.fail("%q: %q must be a string, got %s", key, k, describe(item))
		}
		out[k] = s
	}
	return out
}

// scalar returns a string, number or boolean as text: YAML reads
// `[-p, 8080]` as a string and a number.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(v), true
	}
	return "", false
}

// describe names the JSON type of a decoded value, for messages.
func describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a number"
}

// variable matches ${NAME}, ${env:NAME}, VS Code's ${input:ID} and
// ${workspaceFolder}.
var variable = regexp.MustCompile(`\$\{(env:|input:)?([A-Za-z_][A-Za-z0-9_.-]*)\}`)

// expandVars replaces each ${NAME} in s by the environment variable NAME,
// and ${workspaceFolder} by workspace.
func expandVars(s, what, workspace string) (string, error) {
	var problem error
	out := variable.ReplaceAllStringFunc(s, func(m string) string {
		sub := variable.FindStringSubmatch(m)
		kind, name := sub[1], sub[2]
		switch {
		case kind == "" && name == "workspaceFolder":
			return workspace
		case kind == "input:" && problem == nil:
			problem = fmt.Errorf("%s uses ${input:%s}, which VS Code asks its user for; react-agent cannot ask: write the value in the file, or ${NAME} of an environment variable", what, name)
		}
		v, ok := os.LookupEnv(name)
		if !ok && problem == nil {
			problem = fmt.Errorf("%s uses ${%s}, and the environment variable %s is not set; set it, or write the value in the file", what, name, name)
		}
		return v
	})
	if problem != nil {
		return "", problem
	}
	return out, nil
}

// workspace is the folder ${workspaceFolder} names for a server declared
// in file: the folder above .vscode for VS Code's .vscode/mcp.json, else
// the file's own.
func workspace(file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return filepath.Dir(file)
	}
	if filepath.Base(dir) == ".vscode" {
		return filepath.Dir(dir)
	}
	return dir
}

// readEnvFile adds the NAME=value lines of VS Code's envFile to s.Env;
// the entry's own "env" wins. Blank lines and # comments are skipped, and
// a value may be quoted.
func (s *Server) readEnvFile(name, dir string) error {
	name, err := expandVars(name, `"envFile"`, workspace(s.File))
	if err != nil {
		return err
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	data, err := bounded.ReadFile(name, tools.MaxConfigFile)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return fmt.Errorf(`"envFile" %s cannot be read: %w`, name, err)
	}
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "export "))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf(`"envFile" %s, line %d: expected NAME=value`, name, i+1)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		if _, set := s.Env[k]; !set {
			s.Env[k] = v
		}
	}
	return nil
}

// expand replaces the ${NAME} variables of s.
func (s *Server) expand() error {
	var err error
	one := func(p *string, what string) {
		if err == nil {
			*p, err = expandVars(*p, what, workspace(s.File))
		}
	}
	one(&s.Command, `"command"`)
	one(&s.Dir, `"cwd"`)
	one(&s.URL, `"url"`)
	for i := range s.Args {
		one(&s.Args[i], fmt.Sprintf(`"args" item %d`, i+1))
	}
	for _, m := range []struct {
		vals map[string]string
		key  string
	}{{s.Env, "env"}, {s.Headers, "headers"}} {
		for k, v := range m.vals {
			one(&v, fmt.Sprintf("%q %q", m.key, k))
			m.vals[k] = v
		}
	}
	return err
}

// resolve takes the relative paths of s from dir, the file's folder.
func (s *Server) resolve(dir string) error {
	if s.Command != "" && strings.ContainsRune(s.Command, '/') && !filepath.IsAbs(s.Command) {
		p := filepath.Join(dir, s.Command)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf(`"command" %q is not in %s, the file's folder, where relative paths are taken from: %w`, s.Command, dir, err)
		}
		s.Command = p
	}
	if s.Dir != "" && !filepath.IsAbs(s.Dir) {
		s.Dir = filepath.Join(dir, s.Dir)
	}
	if s.Dir != "" {
		if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
			return fmt.Errorf(`"cwd" %q is not a folder (relative paths are taken from the file's folder)`, s.Dir)
		}
	}
	for i, a := range s.Args {
		if filepath.IsAbs(a) || strings.HasPrefix(a, "-") || !(strings.ContainsRune(a, '/') || a == "." || a == "..") {
			continue
		}
		if p := filepath.Join(dir, a); exists(p) {
			s.Args[i] = p
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Secrets returns the values of the server's settings that are sent as
// credentials, for a log to redact: each header's value and, of one of
// several words ("Bearer TOKEN"), its last word; and the password and the
// query values of its URL. They are returned as the server gets them,
// ${NAME} variables replaced. Env values are the server's settings of
// every kind (paths, levels, keys): which of them are secrets is for the
// caller to tell by their names.
func (s Server) Secrets() []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		v := s.Headers[k]
		add(v)
		if f := strings.Fields(v); len(f) > 1 {
			add(f[len(f)-1])
		}
	}
	if u, err := url.Parse(s.URL); err == nil && s.URL != "" {
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		q := u.Query()
		for _, k := range slices.Sorted(maps.Keys(q)) {
			for _, v := range q[k] {
				add(v)
			}
		}
	}
	return out
}
