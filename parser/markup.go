package parser

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Calls written as XML-ish markup instead of labels: Anthropic's
// <invoke name="x"><parameter name="k">v</parameter></invoke>, Llama's
// <function=x>{...}</function>, and tags such as
// <action><tool_name>x</tool_name><arguments><arg key="k">v</arg></arguments></action>.
//
// The regular expressions below match one tag each, anchored, on a
// bounded window at a place where such a tag starts (found at memchr
// speed); what a tag holds runs to its closing tag, found as plainly.
// A regular expression that finds submatches reads a long text slowly.
var (
	invokeOpen   = lazyRegexp(`(?is)^<(?:invoke|tool_call|function_call|call|tool_use)\s+name\s*=\s*["']([^"'<>]{1,64})["']\s*/?>`)
	functionOpen = lazyRegexp(`(?is)^<function=([^<>\s]{1,64})>`)
	nameTag      = lazyRegexp(`(?is)^<(?:tool_name|name|tool|function_name|action_name)>\s*([^<]{1,64}?)\s*</(?:tool_name|name|tool|function_name|action_name)>`)
	// paramOpen matches <parameter name="k"> and Qwen3-Coder's
	// <parameter=k>.
	paramOpen   = lazyRegexp(`(?is)^<(?:parameter|param|arg|argument)(?:\s+(?:name|key)\s*=\s*["']([^"'<>]{1,64})["']|=([^<>"'\s]{1,64}))\s*>`)
	markupHints = []string{"<invoke", "<function=", "_name>", "<name>", "<tool>", "<arg", "<param", "<final_answer>", "<answer>", "<tool_call name", "<tool_use"}
)

// The tags, and the names of the closing tags, of each kind of markup.
var (
	invokeOpeners   = []string{"<invoke", "<tool_call", "<function_call", "<call", "<tool_use"}
	invokeNames     = []string{"invoke", "tool_call", "function_call", "call", "tool_use"}
	functionOpeners = []string{"<function="}
	nameOpeners     = []string{"<tool_name>", "<name>", "<tool>", "<function_name>", "<action_name>"}
	paramOpeners    = []string{"<parameter", "<param", "<argument", "<arg"}
	paramNames      = []string{"parameter", "param", "argument", "arg"}
	argsOpeners     = []string{"<arguments>", "<parameters>", "<args>", "<params>", "<input>", "<tool_input>", "<action_input>"}
	argsNames       = []string{"arguments", "parameters", "args", "params", "input", "tool_input", "action_input"}
	answerOpeners   = []string{"<final_answer>", "<answer>"}
	answerNames     = []string{"final_answer", "answer"}
)

// maxOpenTag bounds the window an opening tag is matched on.
const maxOpenTag = 256

// matchTag finds the first tag in s, from offset from on, that starts
// with one of openers (followed by white space when spaced is set) and
// that re, anchored, matches. It returns re's submatch offsets in s, or
// nil.
func matchTag(s string, from int, openers []string, spaced bool, re *regexp.Regexp) []int {
	for from < len(s) {
		i := indexTag(s[from:], openers, spaced)
		if i < 0 {
			return nil
		}
		at := from + i
		if re == nameTag() && !closesSoon(s, at) {
			from = at + 1 // "<name>" and no closing tag after a short name: not read by the expression
			continue
		}
		if m := re.FindStringSubmatchIndex(s[at:min(len(s), at+maxOpenTag)]); m != nil {
			for k := range m {
				if m[k] >= 0 {
					m[k] += at
				}
			}
			return m
		}
		from = at + 1
	}
	return nil
}

// closesSoon reports whether the tag at s[at] is followed, after a text
// short enough to be a name, by a closing tag: what nameTag asks, looked
// for plainly, so that a text of many such tags left open is read in
// linear time.
func closesSoon(s string, at int) bool {
	gt := strings.IndexByte(s[at:min(len(s), at+maxOpenTag)], '>')
	if gt < 0 {
		return false
	}
	rest := s[at+gt+1 : min(len(s), at+maxOpenTag)]
	lt := strings.IndexByte(rest, '<')
	return lt >= 0 && lt+1 < len(rest) && rest[lt+1] == '/'
}

// closeAt returns where the first closing tag of one of names stands in
// s, from offset from on, in any case, and where it ends; both are
// len(s) when there is none: what is left open runs to the end.
func closeAt(s string, from int, names []string) (at, end int) {
	for i := from; ; i++ {
		k := strings.Index(s[i:], "</")
		if k < 0 {
			return len(s), len(s)
		}
		i += k
		for _, n := range names {
			if e := i + 2 + len(n); e < len(s) && s[e] == '>' && strings.EqualFold(s[i+2:e], n) {
				return i, e + 1
			}
		}
	}
}

// markupCall reads a call, or a final answer, written as XML-ish markup
// in s, and returns where the markup starts. The thought is what stands
// before it.
func (p *Parser) markupCall(s string) (rd reading, at int, ok bool) {
	if !hasMarkup(s) {
		return reading{}, 0, false
	}
	name, body := "", ""
	at = -1
	if m := matchTag(s, 0, invokeOpeners, true, invokeOpen()); m != nil {
		end, _ := closeAt(s, m[1], invokeNames)
		name, body, at = s[m[2]:m[3]], s[m[1]:end], m[0]
	} else if m := matchTag(s, 0, functionOpeners, false, functionOpen()); m != nil {
		end, _ := closeAt(s, m[1], []string{"function"})
		name, body, at = s[m[2]:m[3]], s[m[1]:end], m[0]
	} else if m := matchTag(s, 0, nameOpeners, false, nameTag()); m != nil {
		name, body, at = s[m[2]:m[3]], s[m[1]:], m[0]
	}
	if at < 0 {
		if i := indexTag(s, answerOpeners, false); i >= 0 {
			open := i + strings.IndexByte(s[i:], '>') + 1
			end, _ := closeAt(s, open, answerNames)
			answer := strings.TrimSpace(s[open:end])
			if answer == "" {
				return reading{err: p.errEmptyAnswer()}, i, true
			}
			return reading{step: Step{Kind: KindFinal, Thought: markupThought(s[:i]), FinalAnswer: answer}}, i, true
		}
		return reading{}, 0, false
	}
	n := namesNothing
	if name = cleanName(name); p.isName(name) {
		n = p.naming(name)
	}
	args, ok := markupArgs(body)
	if n == namesNothing || n == namesIfInput && (!ok || !hasInput(args)) {
		// No name, or a word such as "tool" with no arguments: as after
		// an Action label, not a call.
		return reading{}, 0, false
	}
	thought := markupThought(s[:at])
	if !ok {
		st, err := p.call(thought, name, "", asWritten)
		return reading{st, err}, at, true
	}
	st, err := p.objectCallStep(thought, call{name: name, args: args, hasArgs: true})
	return reading{st, err}, at, true
}

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
		if i+1 == len(s) {
			return -1
		}
		c := s[i+1] | 0x20 // the tags are in lower case: the letter after "<" rules most out
		for _, t := range tags {
			if end := i + len(t); end <= len(s) && t[1] == c && strings.EqualFold(s[i:end], t) &&
				(!spaced || end < len(s) && strings.IndexByte(" \t\n\r", s[end]) >= 0) {
				return i
			}
		}
	}
}

// markupAction reads the value of an Action label written as markup: a
// call in one of the shapes markupCall reads, a JSON call inside a tag
// ("<tool_call>{...}</tool_call>"), or a tag named after the tool
// ("<search>Ada Lovelace</search>").
func (p *Parser) markupAction(v string) (reading, bool) {
	if rd, at, ok := p.markupCall(v); ok && (at == 0 || onlyTags(v[:at])) {
		// The call, perhaps inside tags that wrap it ("<invoke>",
		// "<function_calls>").
		return rd, true
	}
	if i := strings.IndexByte(v, '{'); i > 0 && (isBlobPrefix(v[:i]) || onlyTags(v[:i])) {
		if rd, ok := p.blobAt(v[i:]); ok {
			return rd, true
		}
	}
	return p.taggedCall(v, false)
}

// openTag matches the tag that opens s.
var openTag = lazyRegexp(`^<([A-Za-z_][A-Za-z0-9_.-]{0,63})>`)

// wrapperTags are the tags that wrap calls, answers or text: never a
// tool's name.
var wrapperTags = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"tool_call": true, "tool_calls": true, "function_call": true, "function_calls": true,
		"tool_use": true, "invoke": true, "call": true, "calls": true, "action": true, "actions": true, "function": true,
		"tool": true, "tools": true, "response": true, "answer": true, "final_answer": true, "result": true, "output": true,
		"code": true, "python": true, "json": true, "thought": true, "observation": true, "input": true, "args": true,
		"arguments": true, "parameters": true, "b": true, "i": true, "p": true, "s": true, "br": true, "em": true, "strong": true}
})

// taggedCall reads a call written as a tag named after the tool, its
// input inside as text or child tags: "<search>Ada Lovelace</search>".
// After an Action label the tag may name any tool; elsewhere
// (registeredOnly) only a registered one.
func (p *Parser) taggedCall(v string, registeredOnly bool) (reading, bool) {
	m := openTag().FindStringSubmatch(v)
	if m == nil || wrapperTags()[strings.ToLower(m[1])] {
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

// maxArgTags bounds the argument tags read.
const maxArgTags = 64

// markupArgs reads the arguments of a call written as markup: parameter
// tags, a JSON object, or child tags of an arguments tag.
func markupArgs(body string) (any, bool) {
	args := map[string]any{}
	for from := 0; len(args) < maxArgTags; {
		m := matchTag(body, from, paramOpeners, false, paramOpen())
		if m == nil {
			break
		}
		end, next := closeAt(body, m[1], paramNames)
		if end == len(body) {
			break // a parameter must be closed
		}
		var name string
		if m[2] >= 0 {
			name = body[m[2]:m[3]] // name="k"
		} else {
			name = body[m[4]:m[5]] // =k
		}
		args[name] = markupValue(body[m[1]:end])
		from = next
	}
	if len(args) > 0 {
		return args, true
	}
	inner := body
	if i := indexTag(body, argsOpeners, false); i >= 0 {
		open := i + strings.IndexByte(body[i:], '>') + 1
		end, _ := closeAt(body, open, argsNames)
		inner = body[open:end]
	}
	inner = strings.TrimSpace(unfence(strings.TrimSpace(inner)))
	if strings.HasPrefix(inner, "{") {
		if obj, _, ok := decodeObject(inner); ok {
			return obj, true
		}
	}
	childTags(inner, args)
	if len(args) > 0 {
		return args, true
	}
	if inner = strings.TrimSpace(stripTags(inner)); inner != "" {
		return inner, true
	}
	return nil, false
}

// childTags adds to args the tags of s that hold a value and close with
// their own name ("<url>https://a.example</url>"), at most maxArgTags of
// them, in time linear in s: a tag left open is given up on once.
func childTags(s string, args map[string]any) {
	for i, tries := 0, 0; tries < maxArgTags; tries++ {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			return
		}
		i += k + 1
		n := tagName(s[i:])
		if n == 0 || i+n >= len(s) || s[i+n] != '>' {
			continue
		}
		name := s[i : i+n]
		closer := "</" + name + ">"
		end := strings.Index(s[i+n+1:], closer)
		if end < 0 {
			continue
		}
		args[name] = markupValue(s[i+n+1 : i+n+1+end])
		i += n + 1 + end + len(closer)
	}
}

// tagName returns the length of the tag name s starts with: a letter or
// '_', then up to 63 letters, digits, '_', '.' and '-'; 0 for none.
func tagName(s string) int {
	n := 0
	for n < len(s) && n < 64 {
		c := s[n]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || n > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-') {
			n++
			continue
		}
		break
	}
	return n
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

// stripTags removes XML-ish tags from s: "<", perhaps "/", a tag name,
// then up to 256 bytes without "<" or ">", then ">".
func stripTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var b strings.Builder
	for {
		k := strings.IndexByte(s, '<')
		if k < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:k])
		s = s[k:]
		j := 1
		if j < len(s) && s[j] == '/' {
			j++
		}
		if n := tagName(s[j:]); n > 0 {
			j += n
			if rest := s[j:min(len(s), j+257)]; strings.IndexByte(rest, '>') >= 0 {
				if end := strings.IndexAny(rest, "<>"); rest[end] == '>' {
					s = s[j+end+1:]
					continue
				}
			}
		}
		b.WriteByte('<')
		s = s[1:]
	}
}

// onlyTags reports whether s holds nothing but tags and white space.
func onlyTags(s string) bool {
	return strings.TrimSpace(stripTags(s)) == ""
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

// fencedCall reads a call written as a code fence whose info string is
// a registered tool's name, a protocol some cookbooks' prompts define:
// "```weather\nLisbon\n```" calls weather with "Lisbon". A fence tagged
// with a language that names no tool ("```python", "```json") is code,
// and stays what it was. A call waits for its result: the fence is the
// last thing in the reply, but for a made-up output fence after it; and
// the line before it does not speak to the reader ("You can run:",
// "Here is the command:"), as an answer that shows code does. The
// thought is what stands before the fence.
func (r *reply) fencedCall() (reading, bool) {
	if len(r.p.tools.byName) == 0 {
		return reading{}, false
	}
	s := r.body[:r.end]
	for pos := r.start; pos < len(s); {
		f, ok := nextFence(s, pos)
		if !ok {
			return reading{}, false
		}
		pos = f.after
		if f.info == "" || strings.ContainsAny(f.info, " \t") || r.p.tools.lookup(f.info) == nil {
			continue // a fence that names no tool: code, or text
		}
		if !madeUpOutput(s[f.after:]) || speaksToReader(lastLine(s[r.start:f.at])) {
			return reading{}, false
		}
		st, err := r.p.call(r.thought(f.at), f.info, s[f.at:f.after], asWritten)
		return reading{st, err}, true
	}
	return reading{}, false
}

// toolFence reads s, the value of an Action label below it, when it
// opens with a fence tagged with a registered tool's name that holds the
// input: "Action:\n```weather\nLisbon\n```".
func (p *Parser) toolFence(s string) (reading, bool) {
	f, ok := nextFence(s, 0)
	if !ok || f.at != 0 || f.body == f.close || strings.TrimSpace(s[f.body:f.close]) == "" || strings.ContainsAny(f.info, " \t") || p.tools.lookup(f.info) == nil {
		return reading{}, false
	}
	st, err := p.call("", f.info, s[:f.after], asWritten)
	return reading{st, err}, true
}

// fence is a code fence found in a text: where its opening line starts,
// its info string, where its body starts and ends (at its closing line,
// or the end of the text), and where the text after it starts.
type fence struct {
	at, body, close, after int
	info                   string
}

// nextFence finds the first code fence of s that opens a line at or
// after pos, the start of a line or of the text read. Each line's start
// is found once, so that a text of many backticks is read in linear time.
func nextFence(s string, pos int) (fence, bool) {
	for line := pos; ; {
		var at, ticks int
		if at, ticks, line = nextTicks(s, pos, line); at < 0 {
			return fence{}, false
		}
		pos = ticks
		if strings.TrimLeft(s[line:at], " \t") != "" {
			continue // backticks inside a line
		}
		nl := strings.IndexByte(s[ticks:], '\n')
		if nl < 0 {
			return fence{}, false // a fence line and nothing below it
		}
		f := fence{at: line, body: ticks + nl + 1, info: strings.TrimSpace(s[ticks : ticks+nl])}
		f.close, f.after = fenceEnd(s, f.body, ticks-at)
		return f, true
	}
}

// nextTicks finds the next run of three backticks or more in s from pos,
// where line is the start of the line that holds pos: at is where the run
// starts (-1 when there is none), ticks where it ends, and line the start
// of the line that holds it. Each byte is read once however many runs a
// caller asks for.
func nextTicks(s string, pos, line int) (at, ticks, lineAt int) {
	k := strings.Index(s[pos:], "```")
	if k < 0 {
		return -1, len(s), line
	}
	at = pos + k
	if nl := strings.LastIndexByte(s[pos:at], '\n'); nl >= 0 {
		line = pos + nl + 1
	}
	ticks = at
	for ticks < len(s) && s[ticks] == '`' {
		ticks++
	}
	return at, ticks, line
}

// fenceEnd returns where the body of a fence of n backticks whose body
// starts at s[from], the start of a line, ends, at its closing line (a
// line of at least n backticks and nothing else), and where the text
// after that line starts; both are len(s) when the fence is never
// closed.
func fenceEnd(s string, from, n int) (end, after int) {
	for pos, line := from, from; ; {
		var at, ticks int
		if at, ticks, line = nextTicks(s, pos, line); at < 0 {
			return len(s), len(s)
		}
		pos = ticks
		if ticks-at < n || strings.TrimLeft(s[line:at], " \t") != "" {
			continue
		}
		eol := strings.IndexByte(s[ticks:], '\n')
		if eol < 0 {
			eol = len(s)
		} else {
			eol += ticks
		}
		if strings.TrimSpace(s[ticks:eol]) == "" {
			return line, min(len(s), eol+1)
		}
	}
}

// outputTags are the info strings of a fence that shows a call's output,
// as a model that makes the output up writes it after the call.
var outputTags = []string{"tool_output", "output", "result", "results", "observation", "console"}

// madeUpOutput reports whether s, what follows a call's fence, holds
// nothing the call would not wait for: white space, or a fence of the
// call's output that the model made up.
func madeUpOutput(s string) bool {
	s = strings.TrimLeft(s, " \t\n")
	if s == "" {
		return true
	}
	if !strings.HasPrefix(s, "```") {
		return false
	}
	tag, _, _ := strings.Cut(strings.TrimLeft(s, "`"), "\n")
	tag = strings.TrimSpace(tag)
	for _, t := range outputTags {
		if strings.EqualFold(tag, t) {
			return true
		}
	}
	return false
}

// lastLine returns the last line of s that is not blank, trimmed.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\n")
	return strings.TrimSpace(s[strings.LastIndexByte(s, '\n')+1:])
}

// speaksToReader reports whether line, the lead-in of a code block,
// speaks to the one who reads the reply, as an answer that shows code
// does: it names them ("you", "your") or presents the code ("Here is",
// "Here's", "Here are").
func speaksToReader(line string) bool {
	words := strings.FieldsFunc(strings.ToLower(line), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	})
	for i, w := range words {
		switch w {
		case "you", "your", "yours", "you'll", "you're", "you'd", "you've", "you’ll", "you’re":
			return true
		case "here's", "here’s":
			return i == 0
		case "here":
			if i == 0 && i+1 < len(words) && (words[i+1] == "is" || words[i+1] == "are") {
				return true
			}
		}
	}
	return false
}
