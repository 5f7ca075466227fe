package parser

import (
	"regexp"
	"strings"
)

// Calls written as XML-ish markup instead of labels: Anthropic's
// <invoke name="x"><parameter name="k">v</parameter></invoke>, Llama's
// <function=x>{...}</function>, and tags such as
// <action><tool_name>x</tool_name><arguments><arg key="k">v</arg></arguments></action>.
var (
	invokeTag  = regexp.MustCompile(`(?is)<(?:invoke|tool_call|function_call|call|tool_use)\s+name\s*=\s*["']([^"'<>]{1,64})["']\s*/?>(.*?)(?:</(?:invoke|tool_call|function_call|call|tool_use)>|$)`)
	functionEq = regexp.MustCompile(`(?is)<function=([^<>\s]{1,64})>(.*?)(?:</function>|$)`)
	nameTag    = regexp.MustCompile(`(?is)<(?:tool_name|name|tool|function_name|action_name)>\s*([^<]{1,64}?)\s*</(?:tool_name|name|tool|function_name|action_name)>`)
	argsTag    = regexp.MustCompile(`(?is)<(?:arguments|parameters|args|params|input|tool_input|action_input)>(.*?)(?:</(?:arguments|parameters|args|params|input|tool_input|action_input)>|$)`)
	// paramTag matches <parameter name="k">v</parameter> and Qwen3-Coder's
	// <parameter=k>v</parameter>.
	paramTag    = regexp.MustCompile(`(?is)<(?:parameter|param|arg|argument)(?:\s+(?:name|key)\s*=\s*["']([^"'<>]{1,64})["']|=([^<>"'\s]{1,64}))\s*>(.*?)</(?:parameter|param|arg|argument)>`)
	childTag    = regexp.MustCompile(`(?s)<([A-Za-z_][A-Za-z0-9_.-]{0,63})>(.*?)</([A-Za-z_][A-Za-z0-9_.-]{0,63})>`)
	answerTag   = regexp.MustCompile(`(?is)<(?:final_answer|answer)>(.*?)(?:</(?:final_answer|answer)>|$)`)
	markupHints = []string{"<invoke", "<function=", "_name>", "<name>", "<tool>", "<arg", "<param", "<final_answer>", "<answer>", "<tool_call name", "<tool_use"}
)

// markupCall reads a call, or a final answer, written as XML-ish markup
// in s, and returns where the markup starts. The thought is what stands
// before it.
func (p *Parser) markupCall(s string) (rd reading, at int, ok bool) {
	if !hasMarkup(s) {
		return reading{}, 0, false
	}
	name, body := "", ""
	at = -1
	if m := findFrom(invokeTag, s, indexTag(s, invokeOpeners, true)); m != nil {
		name, body, at = s[m[2]:m[3]], s[m[4]:m[5]], m[0]
	} else if m := findFrom(functionEq, s, indexTag(s, functionOpeners, false)); m != nil {
		name, body, at = s[m[2]:m[3]], s[m[4]:m[5]], m[0]
	} else if m := findFrom(nameTag, s, indexTag(s, nameOpeners, false)); m != nil {
		name, body, at = s[m[2]:m[3]], s[m[1]:], m[0]
	}
	if at < 0 {
		if m := findFrom(answerTag, s, indexTag(s, answerOpeners, false)); m != nil {
			answer := strings.TrimSpace(s[m[2]:m[3]])
			if answer == "" {
				return reading{err: p.errEmptyAnswer()}, m[0], true
			}
			return reading{step: Step{Kind: KindFinal, Thought: markupThought(s[:m[0]]), FinalAnswer: answer}}, m[0], true
		}
		return reading{}, 0, false
	}
	if name = cleanName(name); !p.isName(name) {
		return reading{}, 0, false
	}
	thought := markupThought(s[:at])
	args, ok := markupArgs(body)
	if !ok {
		st, err := p.call(thought, name, "", asWritten)
		return reading{st, err}, at, true
	}
	st, err := p.objectCallStep(thought, call{name: name, args: args, hasArgs: true})
	return reading{st, err}, at, true
}

// The tags that open what each regular expression above matches, so
// that it is run only from where one of them stands: a regular
// expression that finds submatches reads a long text slowly.
var (
	invokeOpeners   = []string{"<invoke", "<tool_call", "<function_call", "<call", "<tool_use"}
	functionOpeners = []string{"<function="}
	nameOpeners     = []string{"<tool_name>", "<name>", "<tool>", "<function_name>", "<action_name>"}
	answerOpeners   = []string{"<final_answer>", "<answer>"}
)

// indexTag returns the offset of the first of tags in s, in any case,
// or -1. With spaced set, a tag must be followed by white space, as one
// with attributes is.
func indexTag(s string, tags []string, spaced bool) int {
	for i := 0; ; i++ {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			return -1
		}
		i += k
		for _, t := range tags {
			if end := i + len(t); end <= len(s) && strings.EqualFold(s[i:end], t) &&
				(!spaced || end < len(s) && strings.IndexByte(" \t\n\r", s[end]) >= 0) {
				return i
			}
		}
	}
}

// findFrom is re.FindStringSubmatchIndex on s from offset from on, with
// the offsets in s; nil when from is -1 or nothing matches.
func findFrom(re *regexp.Regexp, s string, from int) []int {
	if from < 0 {
		return nil
	}
	m := re.FindStringSubmatchIndex(s[from:])
	for i := range m {
		if m[i] >= 0 {
			m[i] += from
		}
	}
	return m
}

// markupAction reads the value of an Action label written as markup: a
// call in one of the shapes markupCall reads, a JSON call inside a tag
// ("<tool_call>{...}</tool_call>"), or a tag named after the tool
// ("<search>Ada Lovelace</search>").
func (p *Parser) markupAction(v string) (reading, bool) {
	if rd, at, ok := p.markupCall(v); ok && at == 0 {
		return rd, true
	}
	if i := strings.IndexByte(v, '{'); i > 0 && blobPrefix.MatchString(v[:i]) {
		if rd, ok := p.blobAt(v[i:]); ok {
			return rd, true
		}
	}
	return p.taggedCall(v, false)
}

// openTag matches the tag that opens s.
var openTag = regexp.MustCompile(`^<([A-Za-z_][A-Za-z0-9_.-]{0,63})>`)

// wrapperTags are the tags that wrap calls, answers or text: never a
// tool's name.
var wrapperTags = map[string]bool{"tool_call": true, "tool_calls": true, "function_call": true, "function_calls": true,
	"tool_use": true, "invoke": true, "call": true, "calls": true, "action": true, "actions": true, "function": true,
	"tool": true, "tools": true, "response": true, "answer": true, "final_answer": true, "result": true, "output": true,
	"code": true, "python": true, "json": true, "thought": true, "observation": true, "input": true, "args": true,
	"arguments": true, "parameters": true, "b": true, "i": true, "p": true, "s": true, "br": true, "em": true, "strong": true}

// taggedCall reads a call written as a tag named after the tool, its
// input inside as text or child tags: "<search>Ada Lovelace</search>".
// After an Action label the tag may name any tool; elsewhere
// (registeredOnly) only a registered one.
func (p *Parser) taggedCall(v string, registeredOnly bool) (reading, bool) {
	m := openTag.FindStringSubmatch(v)
	if m == nil || wrapperTags[strings.ToLower(m[1])] {
		return reading{}, false
	}
	name, body := m[1], v[len(m[0]):]
	if end := strings.Index(body, "</"+name+">"); end >= 0 {
		body = body[:end]
	} else if strings.Contains(body, "</") {
		return reading{}, false // other markup: not a call of this shape
	}
	if registeredOnly && p.tools.lookup(name) == nil || p.naming(name) != namesTool {
		return reading{}, false
	}
	args, ok := markupArgs(body)
	if !ok {
		st, err := p.call("", name, "", asWritten)
		return reading{st, err}, true
	}
	st, err := p.objectCallStep("", call{name: name, args: args, hasArgs: true})
	return reading{st, err}, true
}

// hasMarkup reports whether s may hold a call written as markup.
func hasMarkup(s string) bool {
	if strings.IndexByte(s, '<') < 0 {
		return false
	}
	for _, h := range markupHints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// markupArgs reads the arguments of a call written as markup: parameter
// tags, a JSON object, or child tags of an arguments tag.
func markupArgs(body string) (any, bool) {
	if ps := paramTag.FindAllStringSubmatch(body, 64); len(ps) > 0 {
		args := map[string]any{}
		for _, m := range ps {
			args[m[1]+m[2]] = markupValue(m[3]) // one of the two names is empty
		}
		return args, true
	}
	inner := body
	if m := argsTag.FindStringSubmatch(body); m != nil {
		inner = m[1]
	}
	inner = strings.TrimSpace(unfence(strings.TrimSpace(inner)))
	if strings.HasPrefix(inner, "{") {
		if obj, _, ok := decodeObject(inner); ok {
			return obj, true
		}
	}
	args := map[string]any{}
	for _, m := range childTag.FindAllStringSubmatch(inner, 64) {
		if m[1] == m[3] {
			args[m[1]] = markupValue(m[2])
		}
	}
	if len(args) > 0 {
		return args, true
	}
	if inner = strings.TrimSpace(stripTags(inner)); inner != "" {
		return inner, true
	}
	return nil, false
}

// markupValue reads one argument's value: a JSON object or list as such,
// anything else as text.
func markupValue(s string) any {
	s = strings.TrimSpace(s)
	if s != "" && (s[0] == '{' || s[0] == '[') {
		if v, ok := decodeValue(s); ok {
			return v
		}
	}
	return s
}

// anyTag matches one XML-ish tag.
var anyTag = regexp.MustCompile(`</?[A-Za-z_][A-Za-z0-9_.:-]{0,63}[^<>]{0,256}>`)

// stripTags removes XML-ish tags from s.
func stripTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	return anyTag.ReplaceAllString(s, "")
}

// markupThought is the prose before a call written as markup, without
// the tags that open the call (<function_calls>, <action>).
func markupThought(s string) string {
	return cleanText(stripTags(s))
}

// markupInput reads an input written as markup, each argument in a tag
// of its own or a parameter tag ("<query>Ada</query><max_results>3</max_results>"),
// when every tag names one of the registered tool's arguments: other
// markup (HTML for a tool that takes it) is text.
func (info *toolInfo) markupInput(input string) (map[string]any, bool) {
	if info == nil || !strings.HasPrefix(input, "<") {
		return nil, false
	}
	args, ok := markupArgs(input)
	obj, isObj := args.(map[string]any)
	if !ok || !isObj || len(obj) == 0 {
		return nil, false
	}
	for k := range obj {
		if info.ownKey(k) == "" {
			return nil, false
		}
	}
	return info.adaptArgs(obj), true
}
