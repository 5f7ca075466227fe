package parser

import (
	"strings"
	"unicode"
)

// Argument inference: how the input a model wrote for a call becomes the
// tool's argument object. decodeInput (input.go) reads what was written
// (JSON, a quoted string, Python values, raw text); the functions here
// fit it to the tool the parser knows through the Tools interface: its
// own keys, its primary argument, or "input" for a tool it does not know.

// noInput reports whether an input that isPlaceholder does not take as
// a whole still says there is none: a placeholder followed by commentary
// after a blank line ("None", then "I will wait."), or a tuple or call of
// None alone ("(None,)").
func noInput(input string, form inputForm) bool {
	s := strings.TrimSpace(input)
	if form == asWritten && !strings.HasPrefix(s, "```") {
		if i := strings.Index(s[:min(len(s), 36)], "\n\n"); i >= 0 {
			return isPlaceholder(s[:i])
		}
	}
	if len(s) > 64 {
		return false // "(None,)" is short
	}
	if form == inline || form == inParens {
		a, ok := readPyArgs(s)
		return ok && a.empty()
	}
	if s != "" && s[0] == '(' {
		a, ok := pyTuple(s)
		return ok && a.empty()
	}
	return false
}

// isPlaceholder reports whether an Action Input says there is no input:
// it is blank, or a word or literal for nothing ("None", "N/A", `""`,
// "(empty string)", "no input", "{}").
func isPlaceholder(input string) bool {
	s := strings.TrimSpace(input)
	if len(s) > 48 {
		return false
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i] // a Python comment: "None  # no arguments"
	}
	if len(s) > 32 {
		return false
	}
	s = strings.ToLower(strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("`'\"()[]<>*_.。", r)
	}))
	return s == "" || inputPlaceholders()[s]
}

// inputArgs turns an input text into the tool's argument object. An
// inline call's input may be keyword arguments ("web_search:
// query=zig"); inside a call's parentheses, Python arguments too
// ("web_search('zig', 3)"). Values parted by commas elsewhere are a text
// ("convert: 3.28084, 100"), which the tool reads as it will.
func (p *Parser) inputArgs(info *toolInfo, input string, form inputForm) map[string]any {
	if form == inline || form == inParens {
		if obj, ok := kwargs(input, func(k string) string { return k }, true); ok {
			return info.adaptArgs(obj)
		}
	}
	if form == inParens {
		if a, ok := readPyArgs(input); ok {
			return info.pyCallArgs(a)
		}
	}
	v := decodeInput(input, form == jsonString)
	if v.obj != nil {
		return info.adaptArgs(v.obj)
	}
	if v.tuple != nil {
		return info.pyCallArgs(*v.tuple)
	}
	if v.raw {
		if obj, ok := info.markupInput(v.text); ok {
			return obj
		}
		return info.textArgs(v.text)
	}
	return info.primaryArgs(v.text)
}

// answerText reads a final answer written as an action's input: a quoted
// string is unquoted, a one-key object (or, inline, one keyword argument:
// finish(answer="…")) gives its value.
func answerText(input string, form inputForm) string {
	if form == inline || form == inParens {
		if obj, ok := kwargs(input, func(k string) string { return k }, true); ok && len(obj) == 1 {
			for _, x := range obj {
				return strings.TrimSpace(text(x))
			}
		}
	}
	v := decodeInput(input, form == jsonString)
	if v.obj != nil {
		if len(v.obj) == 1 {
			for _, x := range v.obj {
				return strings.TrimSpace(text(x))
			}
		}
		return text(v.obj)
	}
	return strings.TrimSpace(v.text)
}

// fits reports whether args, as written, fit the tool: every key is one
// of its own, or a text (which the parser puts under "input" for a tool it
// does not know) goes onto its primary argument.
func (info *toolInfo) fits(args any) bool {
	obj, ok := args.(map[string]any)
	if !ok {
		return info.primary != "" || len(info.args) == 0
	}
	if text, ok := obj["input"]; ok && len(obj) == 1 && info.ownKey("input") == "" {
		return info.fits(text)
	}
	for k := range obj {
		if info.ownKey(k) == "" {
			return false
		}
	}
	return true
}

// adaptArgs fits an argument object to the tool it is for. An object
// holding one of the tool's own keys is kept, with keys matched
// case-insensitively renamed; a one-key object with an unknown key has its
// value put onto the primary argument (or, when that value is an object of
// the tool's own keys, is unwrapped); anything else is kept as written.
func (info *toolInfo) adaptArgs(obj map[string]any) map[string]any {
	if info == nil {
		return obj
	}
	if info.allOwn(obj) {
		return obj // the usual case: every key as the tool writes it
	}
	if info.hasOwnKey(obj) {
		for k, v := range obj {
			if own := info.ownKey(k); own != "" && own != k {
				if _, clash := obj[own]; !clash {
					delete(obj, k)
					obj[own] = v
				}
			}
		}
		return obj
	}
	if len(obj) != 1 {
		return obj
	}
	for _, v := range obj {
		if inner, ok := v.(map[string]any); ok && info.hasOwnKey(inner) {
			return info.adaptArgs(inner)
		}
		if info.primary != "" {
			return map[string]any{info.primary: v}
		}
	}
	return obj
}

// allOwn reports whether every key of obj is one of the tool's arguments,
// written as the tool writes it.
func (info *toolInfo) allOwn(obj map[string]any) bool {
	if len(obj) == 0 || len(obj) > len(info.args) {
		return false
	}
	n := 0
	for _, a := range info.args {
		if _, ok := obj[a]; ok {
			n++
		}
	}
	return n == len(obj)
}

func (info *toolInfo) hasOwnKey(obj map[string]any) bool {
	for k := range obj {
		if info.ownKey(k) != "" {
			return true
		}
	}
	return false
}

// ownKey returns the tool's argument name matching k, ignoring case, or "".
func (info *toolInfo) ownKey(k string) string {
	for _, a := range info.args {
		if strings.EqualFold(a, k) {
			return a
		}
	}
	return ""
}

// textArgs puts a text input onto the tool's primary argument, or under
// "input" for a tool the parser does not know. A registered tool's input
// written as "key: value" or "key=value" lines with the tool's own keys
// becomes those arguments.
func (info *toolInfo) textArgs(text string) map[string]any {
	if info != nil {
		if obj, ok := kwargs(text, info.ownKey, false); ok {
			return obj
		}
	}
	return info.primaryArgs(text)
}

// primaryArgs puts v onto the tool's primary argument, or under "input"
// for a tool the parser does not know or one with no primary argument.
func (info *toolInfo) primaryArgs(v any) map[string]any {
	if info == nil || info.primary == "" {
		return map[string]any{"input": v}
	}
	return map[string]any{info.primary: v}
}

// hasInput reports whether args, an input as inputValue gives it, holds
// anything: an object with keys, or a text that is not a placeholder for
// nothing ("None", "N/A").
func hasInput(args any) bool {
	switch a := args.(type) {
	case map[string]any:
		return len(a) > 0
	case string:
		return !isPlaceholder(a)
	}
	return args != nil
}

// inputValue is an input's arguments as written: an object when it is
// one, and its text otherwise.
func (p *Parser) inputValue(input string, form inputForm) any {
	args := p.inputArgs(nil, input, form)
	if text, ok := args["input"]; ok && len(args) == 1 {
		return text
	}
	return args
}

// pyCallArgs fits the arguments of a call written as Python's to the
// tool: a lone positional argument is the input (a dict its arguments,
// anything else onto the primary argument); more of them are the tool's
// arguments in order, or, when the tool has fewer or the parser does not
// know it, a list onto the primary one.
func (info *toolInfo) pyCallArgs(a pyArgs) map[string]any {
	if len(a.pos) == 1 && a.kw == nil {
		if obj, ok := a.pos[0].(map[string]any); ok {
			return info.adaptArgs(obj)
		}
		return info.primaryArgs(a.pos[0])
	}
	obj := map[string]any{}
	for k, v := range a.kw {
		obj[k] = v
	}
	if info != nil && len(a.pos) <= len(info.args)-len(a.kw) {
		i := 0
		for _, name := range info.args {
			if i == len(a.pos) {
				break
			}
			if _, given := obj[name]; !given {
				obj[name] = a.pos[i]
				i++
			}
		}
		return info.adaptArgs(obj)
	}
	key := "input"
	if info != nil && info.primary != "" {
		key = info.primary
	}
	switch len(a.pos) {
	case 0:
		return info.adaptArgs(obj)
	case 1:
		obj[key] = a.pos[0]
	default:
		obj[key] = a.pos
	}
	return obj
}
