package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// ErrUnknownTool is matched (with errors.Is) by the error [Registry.Call]
// returns for a name that is not registered.
var ErrUnknownTool = errors.New("unknown tool")

// ErrTimeout is matched (with errors.Is) by the error [Registry.Call]
// returns when a tool runs longer than the registry's timeout.
var ErrTimeout = errors.New("tool timed out")

// Limits bound every call made through a [Registry]. Zero values mean the
// defaults of [DefaultOptions].
type Limits struct {
	// Timeout bounds each call.
	Timeout time.Duration
	// MaxObservation caps the bytes of an observation;
	// longer ones are cut with a "[truncated: N bytes omitted]" marker.
	MaxObservation int
}

// withDefaults fills zero fields from DefaultOptions.
func (l Limits) withDefaults() Limits {
	d := DefaultOptions()
	if l.Timeout <= 0 {
		l.Timeout = d.ToolTimeout
	}
	if l.MaxObservation <= 0 {
		l.MaxObservation = d.MaxObservation
	}
	return l
}

// Registry maps tool names to tools. Users extend it with Register; the
// agent and the parser read it. A Registry is not safe for concurrent
// Register calls; fill it before the run starts. Call, Get and the listing
// methods are safe for concurrent use.
type Registry struct {
	tools  map[string]Tool
	limits Limits
	// disabled maps the names of known but switched-off tools to the
	// error that says how to switch them on.
	disabled map[string]error
}

// NewRegistry returns a registry holding the given tools, with the default
// [Limits].
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ErrAnswerName is matched (with errors.Is) by the error [Registry.Register]
// returns for a tool named as models write a final answer.
var ErrAnswerName = errors.New("the name is how models write a final answer")

// answerNames are the lookup keys of the action names that the parser
// reads as a final answer rather than a call ("Finish[42]", "Action:
// Final Answer", a made-up "respond" tool), as package parser spells them
// in isFinish.
var answerNames = []string{"finish", "final_answer", "finalanswer", "answer", "final", "最终答案",
	"respond", "response", "reply", "speak", "say", "final_response", "finalresponse", "direct_answer", "directanswer"}

// IsAnswerName reports whether name is one of the action names that mean
// "this is the final answer" to the parser, however it is written:
// Finish, final_answer, "Final Answer", final-answer, Respond and the
// like. A tool of such a name would take the model's answers as calls,
// so [Registry.Register] refuses it.
func IsAnswerName(name string) bool {
	name = strings.TrimFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("`'\"*_<>[](){}.,:;!?：。，", r)
	})
	if len(name) > 32 {
		return false
	}
	var key, flat strings.Builder
	for _, r := range strings.ToLower(name) {
		if r == ' ' || r == '_' || r == '-' || r == '.' || r == '\t' {
			key.WriteByte('_')
			continue
		}
		key.WriteRune(r)
		flat.WriteRune(r)
	}
	return slices.Contains(answerNames, key.String()) || slices.Contains(answerNames, flat.String())
}

// Register adds t under its name. It fails if the name is empty or taken,
// or is one that models write for a final answer ([IsAnswerName]): what
// the protocol means as an answer stays an answer, whatever tools are
// registered.
func (r *Registry) Register(t Tool) error {
	name := t.Name()
	if name == "" {
		return fmt.Errorf("tools: register: a tool needs a name")
	}
	if IsAnswerName(name) {
		return fmt.Errorf("tools: register: a tool named %q: %w, so a call of it would be read as one; give the tool another name", name, ErrAnswerName)
	}
	if _, ok := r.tools[name]; ok {
		return fmt.Errorf("tools: register: a tool named %q is already registered", name)
	}
	if r.tools == nil {
		r.tools = make(map[string]Tool)
	}
	r.tools[name] = t
	delete(r.disabled, name)
	return nil
}

// SetLimits sets the timeout and observation cap that [Registry.Call]
// applies. Zero fields mean the defaults.
func (r *Registry) SetLimits(l Limits) { r.limits = l }

// Limits returns the limits [Registry.Call] applies, defaults filled in.
func (r *Registry) Limits() Limits { return r.limits.withDefaults() }

// disable records that the tool name exists but is switched off, so that a
// call to it explains how to switch it on instead of calling it unknown.
func (r *Registry) disable(name string, why error) {
	if r.disabled == nil {
		r.disabled = make(map[string]error)
	}
	r.disabled[name] = why
}

// Lookup returns the tool registered under name, or the error
// [Registry.Call] would give: one that lists the available tools (matching
// [ErrUnknownTool]), or for a built-in switched off by the options, one
// that matches its sentinel (such as [ErrShellDisabled]). Callers use it to find the tool to [Confirm].
func (r *Registry) Lookup(name string) (Tool, error) {
	if t, ok := r.tools[name]; ok {
		return t, nil
	}
	if why, off := r.disabled[name]; off {
		return nil, why
	}
	return nil, fmt.Errorf("%w %q; available tools: %s", ErrUnknownTool, name, strings.Join(r.ToolNames(), ", "))
}

// Get returns the tool registered under name, the canonical name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// List returns the registered tools sorted by name.
func (r *Registry) List() []Tool {
	list := make([]Tool, 0, len(r.tools))
	for _, t := range r.tools {
		list = append(list, t)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list
}

// ToolNames returns the registered names, sorted. It implements parser.Tools.
func (r *Registry) ToolNames() []string {
	names := make([]string, 0, len(r.tools))
	for name := range r.tools {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ToolArgs returns the argument names of the named tool and its primary
// argument. It implements parser.Tools.
func (r *Registry) ToolArgs(name string) (args []string, primary string) {
	t, ok := r.tools[name]
	if !ok {
		return nil, ""
	}
	s := t.Schema()
	for _, a := range s.Args {
		args = append(args, a.Name)
	}
	return args, s.Primary
}

// RequiredArgs returns the names of the named tool's required arguments.
// It implements parser.Tools.
func (r *Registry) RequiredArgs(name string) []string {
	t, ok := r.tools[name]
	if !ok {
		return nil
	}
	var required []string
	for _, a := range t.Schema().Args {
		if a.Required {
			required = append(required, a.Name)
		}
	}
	return required
}

// Prepare returns the tool registered under name and args checked against
// its schema (see [CheckArgs]), or the error [Registry.Call] would give.
// It is the one place where arguments are checked: Call prepares every
// call, and callers that must confirm a call first ([Confirm]) show the
// arguments it returns.
func (r *Registry) Prepare(name string, args map[string]any) (Tool, map[string]any, error) {
	t, err := r.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	args, err = CheckArgs(name, t.Schema(), args)
	if err != nil {
		return nil, nil, err
	}
	return t, args, nil
}

// TimeoutError is the error of a tool call that took longer than the
// registry's limit. It matches [ErrTimeout].
type TimeoutError struct {
	// Tool is the tool's name.
	Tool string
	// Limit is the time limit the call reached.
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: %v after %s; try a smaller request, or another way", e.Tool, ErrTimeout, e.Limit)
}

// Is reports whether target is [ErrTimeout].
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// stopWait is how long Call waits for a tool to return once its context
// has ended.
const stopWait = 500 * time.Millisecond

// Call runs the tool registered under name and returns its observation.
// It checks args against the tool's schema (see [CheckArgs]), bounds the
// call by the registry's timeout and ctx, and caps the observation with
// [Truncate]. A tool that panics or ignores its context does not take the
// caller down: the panic becomes an error, and Call returns at most
// stopWait after the deadline even if the tool has not. Call does not ask
// for confirmation; callers do that first with [Confirm].
func (r *Registry) Call(ctx context.Context, name string, args map[string]any) (string, error) {
	obs, err := r.CallWhole(ctx, name, args)
	if err != nil {
		return "", err
	}
	return Truncate(obs, r.Limits().MaxObservation), nil
}

// CallWhole is [Registry.Call] without the cap on the observation, for a
// caller that must read all of it before cutting it: one that removes
// secrets, say, since a secret cut in two is no longer found. The output
// is still bounded by what each tool reads.
func (r *Registry) CallWhole(ctx context.Context, name string, args map[string]any) (string, error) {
	t, args, err := r.Prepare(name, args)
	if err != nil {
		return "", err
	}
	l := r.Limits()
	ctx, cancel := context.WithTimeoutCause(ctx, l.Timeout, &TimeoutError{Tool: name, Limit: l.Timeout})
	defer cancel()

	type result struct {
		obs string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("%s: the tool failed unexpectedly: %v", name, p)}
			}
		}()
		obs, err := t.Call(ctx, args)
		done <- result{obs, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		// A tool that heeds its context is stopping now (a command's
		// process group is being killed): wait a moment for it, so that
		// nothing it started outlives a caller that exits next.
		select {
		case <-done:
		case <-time.After(stopWait):
		}
		res.err = fmt.Errorf("%s: stopped: %w", name, ctx.Err())
	}
	if res.err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrTimeout) {
			return "", cause
		}
		return "", res.err
	}
	return res.obs, nil
}
