package parser

import (
	"encoding/json"
	"strings"
)

// field returns the value under the first of keys that obj has, matching
// keys case-insensitively.
func field(obj map[string]any, keys []string) (any, string, bool) {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			return v, k, true
		}
	}
	for k, v := range obj {
		lk := strings.ToLower(k)
		for _, want := range keys {
			if lk == want {
				return v, k, true
			}
		}
	}
	return nil, "", false
}

// text renders a JSON value as text: strings as they are, anything else
// as compact JSON.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// call is a tool call read from a JSON object: the name as written and
// the arguments, if any were given.
type call struct {
	name    string
	args    any
	hasArgs bool
}

// objectCall reads a tool call from obj, in any of the protocols above.
func objectCall(obj map[string]any) (call, bool) {
	v, key, ok := field(obj, callKeys)
	if ok {
		switch v := v.(type) {
		case string:
			// "command" and "function" name a call only as objects:
			// {"command": "ls"} is a shell tool's arguments.
			if k := strings.ToLower(key); k == "command" || k == "function" {
				break
			}
			args, _, has := field(obj, argKeys)
			return call{name: v, args: args, hasArgs: has}, v != ""
		case map[string]any:
			if c, ok := objectCall(v); ok {
				return c, true
			}
			if name, ok := v["name"].(string); ok {
				args, _, has := field(v, argKeys)
				return call{name: name, args: args, hasArgs: has}, name != ""
			}
		}
	}
	if calls, ok := obj["tool_calls"].([]any); ok && len(calls) > 0 {
		if first, ok := calls[0].(map[string]any); ok {
			return objectCall(first)
		}
	}
	// OpenAI's function-call shape: a name together with arguments.
	if name, ok := obj["name"].(string); ok && name != "" {
		if args, _, has := field(obj, argKeys); has {
			return call{name: name, args: args, hasArgs: true}, true
		}
	}
	return call{}, false
}

// objectThought returns the thought of a JSON protocol object. AutoGPT
// nests it: {"thoughts": {"text": ...}}.
func objectThought(obj map[string]any) string {
	v, _, _ := field(obj, thoughtKeys)
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"text", "reasoning", "thought"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	return text(v)
}

// leadingObject parses a reply that is one JSON protocol object, perhaps
// in a code fence. ok is false when the reply is not such an object.
func (p *Parser) leadingObject(body string) (reading, bool) {
	if body[0] != '{' && body[0] != '[' && !strings.HasPrefix(body, "```") {
		return reading{}, false
	}
	return p.blobAt(body)
}

// maxBlobTries bounds how many candidate objects blob decodes, so that a
// reply full of braces still parses in linear time.
const maxBlobTries = 4

// blob looks for a JSON protocol object on a line of its own (or in a
// fence, or after a tag such as <tool_call>) in the reply from offset from
// on, for replies that carry one inside prose or after a Thought label.
func (r *reply) blob(from int) (reading, bool) {
	s := r.body[:r.end]
	for tries, pos := 0, from; pos < len(s) && tries < maxBlobTries; {
		// The next brace, at memchr speed, then its line.
		k := strings.IndexByte(s[pos:], '{')
		if k < 0 {
			break
		}
		at := pos + k
		lo := max(from, at-64)
		line := lo + strings.LastIndexByte(s[lo:at], '\n') + 1
		if (line == lo && lo > from && s[lo-1] != '\n') || !isBlobPrefix(s[line:at]) {
			// Not the first thing on its line: go on at the next line.
			pos = len(s)
			if nl := strings.IndexByte(s[at:], '\n'); nl >= 0 {
				pos = at + nl + 1
			}
			continue
		}
		tries++
		obj, n, ok := decodeObject(s[at:])
		if !ok {
			pos = at + 1
			continue
		}
		if rd, ok := r.p.objectStep(obj, s[at:at+n]); ok {
			// A fence or tag opening on the lines above belongs to the
			// object, not to the thought.
			for line > r.start {
				prev := strings.LastIndexByte(s[:line-1], '\n') + 1
				if !isBlobPrefix(s[prev : line-1]) {
					break
				}
				line = prev
			}
			return reading{r.withThought(rd.step, line), rd.err}, true
		}
		if rd, head, ok := r.headedCall(obj, line, at); ok {
			return reading{r.withThought(rd.step, head), rd.err}, true
		}
		// Go on after the object's last line.
		pos = len(s)
		if nl := strings.IndexByte(s[at+n:], '\n'); nl >= 0 {
			pos = at + n + nl + 1
		}
	}
	return reading{}, false
}

// headedCall reads obj, a JSON object with no protocol keys that starts
// at offset at of a line starting at offset line, as the arguments of the
// registered tool that its header names: the word before it on its line
// ("web_search {...}"), or else the line above it, past an opening fence
// ("web_search" or ">>>web_search", or a short sentence naming the tool
// as "Let me call web_search:", then the object). The arguments must fit
// the tool. head is where the thought before the call ends: where the
// header starts, or after it when it is a sentence.
func (r *reply) headedCall(obj map[string]any, line, at int) (rd reading, head int, ok bool) {
	s := r.body
	head = line
	header := strings.TrimSpace(s[line:at])
	if strings.HasPrefix(header, "```") {
		header = "" // the fence's language tag
	}
	header = strings.TrimRight(header, "[ \t")
	headEnd := at
	for tries := 0; header == "" && head > r.start && tries < 2; tries++ {
		headEnd = head - 1
		head = r.start + strings.LastIndexByte(s[r.start:headEnd], '\n') + 1
		header = strings.TrimSpace(s[head:headEnd])
		if strings.HasPrefix(header, "```") && strings.IndexByte(header, ' ') < 0 {
			header = "" // an opening fence: the header is above it
		}
	}
	header = strings.TrimLeft(header, ">#-+ \t")
	if header == "" {
		return reading{}, 0, false
	}
	info := r.p.tools.lookup(header)
	if info == nil {
		// A sentence naming the tool is also the thought.
		info, head = r.p.tools.mentioned(strings.TrimRight(header, ":.")), headEnd
	}
	if info == nil || !info.fits(obj) {
		return reading{}, 0, false
	}
	st, err := r.p.objectCallStep("", call{name: info.name, args: obj, hasArgs: true})
	return reading{st, err}, head, true
}

// blobPrefix is what may stand before a JSON protocol object on its line:
// white space, an opening fence, a marker such as <tool_call>,
// [TOOL_CALLS] or functools, and the bracket of a list of calls.
var blobPrefix = lazyRegexp("^[ \t]*(?:```[A-Za-z_]*[ \t]*)?(?:(?:<[A-Za-z_:-]{1,32}>|\\[[A-Za-z_]{1,32}\\]|[A-Za-z_]{1,32})[ \t]*)?\\[?[ \t]*$")

// isBlobPrefix reports whether s may stand before a JSON protocol object
// on its line (see blobPrefix): its bytes are looked at first, so that
// the expression reads only the few lines that may be one.
func isBlobPrefix(s string) bool {
	if len(s) > 96 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !blobPrefixBytes[s[i]] {
			return false
		}
	}
	return blobPrefix().MatchString(s)
}

// blobPrefixBytes are the bytes blobPrefix matches.
var blobPrefixBytes = newByteSet(" \t`<>[]:-_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

// blobAt parses the JSON protocol object at the start of s (after an
// optional code fence).
func (p *Parser) blobAt(s string) (reading, bool) {
	s = strings.TrimSpace(unfence(s))
	if s != "" && s[0] == '[' {
		return p.listStep(s)
	}
	if s == "" || s[0] != '{' {
		return reading{}, false
	}
	obj, n, ok := decodeObject(s)
	if !ok {
		return reading{}, false
	}
	return p.objectStep(obj, s[:n])
}

// listStep reads a JSON list of calls, as models that call tools in
// parallel write them: the first call is the step.
func (p *Parser) listStep(s string) (reading, bool) {
	r := jsonReader{s: s}
	v, err := r.value()
	list, ok := v.([]any)
	if err != nil || !ok || len(list) == 0 {
		return reading{}, false
	}
	first, ok := list[0].(map[string]any)
	if !ok {
		return reading{}, false
	}
	raw, _ := json.Marshal(first)
	return p.objectStep(first, string(raw))
}

// objectStep builds the step a JSON protocol object asks for. ok is false
// when obj holds no protocol keys: it is then just JSON the model wrote.
func (p *Parser) objectStep(obj map[string]any, raw string) (reading, bool) {
	thought := strings.TrimSpace(objectThought(obj))
	c, hasCall := objectCall(obj)
	noTool := "" // a call key whose value names no tool
	if hasCall {
		name, inlineInput, _ := p.splitActionLine(firstLine(c.name))
		c.name = name
		if !c.hasArgs {
			c.args, c.hasArgs = inlineInput, strings.TrimSpace(inlineInput) != ""
		}
		if n := p.naming(name); n == namesNothing || n == namesIfInput && !hasInput(p.objectArgs(c.args)) ||
			n == namesSentence && !p.sentenceCalls(name, p.objectArgs(c.args), c.hasArgs) {
			hasCall, noTool = false, name
		}
	}
	ans, ansKey, hasAns := field(obj, answerKeys)
	if hasAns && ans != nil && (!hasCall || strings.Index(raw, ansKey) < callIndex(raw)) {
		answer := strings.TrimSpace(text(ans))
		if answer == "" {
			return reading{err: p.errEmptyAnswer()}, true
		}
		return reading{Step{Kind: KindFinal, Thought: thought, FinalAnswer: answer}, nil}, true
	}
	if hasCall {
		st, err := p.objectCallStep(thought, c)
		return reading{st, err}, true
	}
	if hasAns {
		return reading{err: p.errEmptyAnswer()}, true
	}
	if noTool != "" {
		return reading{err: p.errNoToolName(noTool)}, true
	}
	if _, _, ok := field(obj, thoughtKeys); ok {
		return reading{err: p.errNoAction()}, true
	}
	return reading{}, false
}

// objectCallStep builds the step for a tool call read from JSON.
func (p *Parser) objectCallStep(thought string, c call) (Step, error) {
	switch args := c.args.(type) {
	case string:
		return p.call(thought, c.name, args, jsonString)
	case nil:
		if !c.hasArgs {
			return p.call(thought, c.name, "", asWritten)
		}
		// "action_input": null: a call with no arguments.
		return p.call(thought, c.name, "{}", asWritten)
	}
	info, name := p.find(c.name)
	if info == nil && isFinish(c.name) {
		answer := strings.TrimSpace(text(c.args))
		if m, ok := c.args.(map[string]any); ok && len(m) == 1 {
			for _, v := range m {
				answer = strings.TrimSpace(text(v))
			}
		}
		if answer == "" {
			return Step{}, p.errEmptyAnswer()
		}
		return Step{Kind: KindFinal, Thought: thought, FinalAnswer: answer}, nil
	}
	if info == nil {
		if loose := p.tools.forgiven(c.name); loose != nil && loose.fits(c.args) {
			info, name = loose, loose.name
		}
	}
	var args map[string]any
	if m, ok := c.args.(map[string]any); ok {
		args = info.adaptArgs(m)
	} else {
		args = info.primaryArgs(c.args)
	}
	return Step{Kind: KindAction, Thought: thought, Action: name, Args: args}, nil
}

// objectArgs is the arguments of a JSON call as written: an object, or
// the text of a string (or the object a string holds).
func (p *Parser) objectArgs(args any) any {
	if s, ok := args.(string); ok {
		return p.inputValue(s, jsonString)
	}
	return args
}

// callIndex returns where the first key naming a call stands in raw.
func callIndex(raw string) int {
	first := len(raw)
	for _, k := range append(callKeys, "name", "tool_calls") {
		if i := strings.Index(raw, `"`+k+`"`); i >= 0 && i < first {
			first = i
		}
	}
	return first
}

// firstLine returns s up to its first line break, trimmed.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
