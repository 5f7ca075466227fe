package constrain

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting a grammar follows in a schema; deeper values
// are any JSON value.
const maxDepth = 16

// maxRules bounds the rules a grammar has, whatever the schemas it is
// written from (a schema can branch at every level): past it, values are
// any JSON value.
const maxRules = 4000

// primitives are the rules every grammar has, the JSON values of
// llama.cpp's own JSON grammars: one-line JSON, with at most one space
// between its tokens, as the prompt asks for the Action Input.
var primitives = []string{
	`space ::= | " "`,
	`value ::= object | array | string | number | boolean | null`,
	`object ::= "{" space ( string ":" space value ( "," space string ":" space value )* )? "}" space`,
	`array ::= "[" space ( value ( "," space value )* )? "]" space`,
	`string ::= "\"" char* "\"" space`,
	`char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})`,
	`filled-string ::= "\"" " "{0,3} filled char* "\"" space`,
	`filled ::= [^"\\\x7F\x00-\x20] | [\\] (["\\/] | "u" [0-9a-fA-F]{4})`,
	`number ::= "-"? integral-part ("." decimal-part)? ([eE] [-+]? integral-part)? space`,
	`integer ::= "-"? integral-part space`,
	`integral-part ::= [0] | [1-9] [0-9]{0,15}`,
	`decimal-part ::= [0-9]{1,16}`,
	`boolean ::= ("true" | "false") space`,
	`null ::= "null" space`,
}

// Bounds on the size of a grammar, which is sent with every request: a
// tool whose arguments' rules would pass maxToolGrammar bytes, or the
// grammar past maxGrammar, has its arguments narrowed to any JSON object.
const (
	maxToolGrammar = 256 << 10
	maxGrammar     = 1 << 20
)

// grammar writes a GBNF grammar: rules with unique names made of letters,
// digits and dashes only, whatever the tool and property names are.
type grammar struct {
	rules []string
	names map[string]bool
	next  map[string]int    // the next suffix to try for a name, by base
	refs  map[string]string // a $ref's rule, by the schema it resolves in and its path
	root  map[string]any    // the schema $refs resolve in
	// loops holds the locations in root of the objects that are any
	// value, so that no rule comes back to itself before it wrote a byte
	// (see leftRecursion): llama.cpp refuses such left recursion, and
	// with it the whole grammar.
	loops map[string]bool

	ctx   context.Context
	err   error // the context's error, once it ended
	size  int   // the bytes of the rules
	limit int   // the size past which the tool being written is too large
	over  bool  // the tool being written passed the limit
	adds  int   // the rules added, to look at the context now and then
}

func newGrammar(ctx context.Context) *grammar {
	g := &grammar{names: map[string]bool{"root": true}, next: map[string]int{}, refs: map[string]string{},
		ctx: ctx, limit: maxGrammar}
	for _, p := range primitives {
		name, _, _ := strings.Cut(p, " ")
		g.names[name] = true
	}
	return g
}

// stopped reports whether the tool being written is to be given up: it
// grew too large, or the context ended.
func (g *grammar) stopped() bool { return g.over || g.err != nil }

// String returns the grammar: root first, then the rules in the order
// they were made, then the primitives.
func (g *grammar) String() string {
	var b strings.Builder
	for _, r := range g.rules {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	for _, p := range primitives {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	return b.String()
}

// name returns a rule name made of base that no rule has yet: base, or
// base with the first number from 2 on that makes it new. The number to
// try next is kept for each base, so that many names of one base (long
// names cut alike) cost a look each, not a look for each taken before.
func (g *grammar) name(base string) string {
	base = ruleName(base)
	name := base
	for i := max(g.next[base], 2); g.names[name]; i++ {
		name = base + "-" + strconv.Itoa(i)
		g.next[base] = i + 1
	}
	g.names[name] = true
	return name
}

// add adds the rule name ::= body. It marks the tool being written as too
// large when the rules pass the limit, and looks at the context now and
// then.
func (g *grammar) add(name, body string) string {
	r := name + " ::= " + body
	g.rules = append(g.rules, r)
	g.size += len(r) + 1
	if g.size > g.limit {
		g.over = true
	}
	if g.adds++; g.adds%256 == 0 && g.err == nil {
		g.err = g.ctx.Err()
	}
	return name
}

// ruleName makes a rule name of s: its ASCII letters and digits, with a
// dash for each run of anything else, at most 40 characters, and "x" for
// a name of none.
func ruleName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	name := b.String()
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	if name == "" {
		return "x"
	}
	return name
}

// literal returns s as a GBNF string literal: quotes, backslashes and
// control characters escaped, other characters as they are (as valid
// UTF-8).
func literal(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsonLiteral returns the GBNF literal of v as JSON spells it, or "" when
// v is no JSON value.
func jsonLiteral(v any) string {
	b, err := marshal(v)
	if err != nil {
		return ""
	}
	return literal(string(b))
}

// value returns an expression for the JSON values schema s, at location
// at of the root, allows: the name of a rule, a primitive's or one it
// adds, named after base.
func (g *grammar) value(base string, s any, at string, depth int) string {
	m, ok := s.(map[string]any)
	if !ok || depth > maxDepth || len(g.rules) >= maxRules || g.stopped() || g.loops[at] {
		return "value" // true, false, too deep, too much or a loop: any value
	}
	if ref, ok := m["$ref"].(string); ok {
		return g.ref(ref, depth)
	}
	if c, ok := m["const"]; ok {
		if lit := jsonLiteral(c); lit != "" {
			return g.add(g.name(base), lit+" space")
		}
		return "value"
	}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		var alts []string
		for _, v := range enum {
			lit := jsonLiteral(v)
			if lit == "" {
				return "value"
			}
			alts = append(alts, lit)
		}
		return g.add(g.name(base), "("+strings.Join(alts, " | ")+") space")
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			name := g.name(base)
			exprs := make([]string, len(alts))
			for i, alt := range alts {
				exprs[i] = g.value(fmt.Sprintf("%s-%d", name, i), alt, at+"/"+key+"/"+strconv.Itoa(i), depth+1)
			}
			return g.add(name, strings.Join(exprs, " | "))
		}
	}
	if all, ok := m["allOf"].([]any); ok {
		if len(all) == 1 {
			return g.value(base, all[0], at+"/allOf/0", depth+1)
		}
		return "value"
	}
	types := typesOf(m)
	switch len(types) {
	case 0:
		return "value"
	case 1:
		return g.typed(base, types[0], m, at, depth)
	}
	name := g.name(base)
	exprs := make([]string, len(types))
	for i, t := range types {
		exprs[i] = g.typed(name+"-"+t, t, m, at, depth)
	}
	return g.add(name, strings.Join(exprs, " | "))
}

// typesOf returns the JSON types schema m allows: its "type", one or a
// list, or the type its keywords imply.
func typesOf(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if _, ok := m["properties"]; ok {
		return []string{"object"}
	}
	if _, ok := m["items"]; ok {
		return []string{"array"}
	}
	return nil
}

// typed returns an expression for the values of type t that m, at
// location at, allows.
func (g *grammar) typed(base, t string, m map[string]any, at string, depth int) string {
	switch t {
	case "string":
		if n, ok := m["minLength"].(float64); ok && n >= 1 {
			return "filled-string" // at least a character that is not blank
		}
		return t
	case "number", "integer", "boolean", "null":
		return t
	case "object":
		return g.object(base, m, at, depth)
	case "array":
		items, ok := m["items"].(map[string]any)
		if !ok {
			return "array"
		}
		name := g.name(base)
		item := g.value(name+"-item", items, at+"/items", depth+1)
		return g.add(name, `"[" space ( `+item+` ( "," space `+item+` )* )? "]" space`)
	}
	return "value"
}

// object returns an expression for the objects m allows: its properties in
// the order of propertyOrder, the required ones always there, and others
// only when additionalProperties asks for them (as the registry refuses
// arguments a tool does not declare); with no properties declared and
// nothing said, any object. An additional property may have the name of
// a declared one: the grammar then allows more than the schema.
func (g *grammar) object(base string, m map[string]any, at string, depth int) string {
	props, declared := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	addl, hasAddl := m["additionalProperties"]
	if !declared && len(req) == 0 && (!hasAddl || addl == true) {
		return "object"
	}
	name := g.name(base)
	names, required := propertyOrder(props, req)
	type item struct {
		kv       string
		required bool
	}
	items := make([]item, len(names))
	for i, p := range names {
		if g.stopped() {
			return "object" // given up: the tool is narrowed
		}
		v := g.value(name+"-"+p, props[p], at+"/properties/"+pointerToken(p), depth+1)
		items[i] = item{kv: jsonLiteral(p) + ` space ":" space ` + v, required: required[p]}
	}
	extra := "" // the key and value of a property beyond the declared ones
	switch a := addl.(type) {
	case bool:
		if a {
			extra = `string ":" space value`
		}
	case map[string]any:
		extra = `string ":" space ` + g.value(name+"-extra", a, at+"/additionalProperties", depth+1)
	}
	// after[i] is the rest of the object from item i on, once something
	// was written, each item after a comma: a rule a level, so that the
	// grammar grows with the properties, not with their square.
	after := make([]string, len(items)+1)
	if extra != "" {
		after[len(items)] = g.add(g.name(name+"-extra-rest"), `( "," space `+extra+` )*`)
	}
	for i := len(items) - 1; i >= 0; i-- {
		part := `( "," space ` + items[i].kv + ` )?`
		if items[i].required {
			part = `"," space ` + items[i].kv
		}
		after[i] = g.add(g.name(fmt.Sprintf("%s-after-%d", name, i)), strings.TrimSpace(part+" "+after[i+1]))
	}
	// first[i] is the rest from item i on, before anything was written:
	// the first item present needs no comma.
	first := make([]string, len(items)+1)
	if extra != "" {
		first[len(items)] = `( ` + extra + ` ( "," space ` + extra + ` )* )?`
	}
	for i := len(items) - 1; i >= 0; i-- {
		present := strings.TrimSpace(items[i].kv + " " + after[i+1])
		switch {
		case items[i].required:
			first[i] = present
		case first[i+1] == "":
			first[i] = `( ` + present + ` )?`
		default:
			first[i] = g.add(g.name(fmt.Sprintf("%s-from-%d", name, i)), present+` | `+first[i+1])
		}
	}
	body := first[0]
	if body != "" {
		body += " "
	}
	return g.add(name, `"{" space `+body+`"}" space`)
}

// ref returns the rule of a $ref to a definition of the schema being
// written ("#/$defs/name" or "#/definitions/name", a JSON pointer), made
// once, so that a recursive definition is a recursive rule; a loop that
// writes nothing was broken where the walk of leftRecursion closed it.
// Any other $ref is any value.
func (g *grammar) ref(ref string, depth int) string {
	def, loc, ok := resolvePointer(g.root, ref)
	kind, key, _ := strings.Cut(strings.TrimPrefix(loc, "/"), "/")
	if !ok || kind != "$defs" && kind != "definitions" || key == "" || strings.Contains(key, "/") {
		return "value"
	}
	memo := fmt.Sprintf("%p %s", g.root, loc)
	if name, ok := g.refs[memo]; ok {
		return name
	}
	name := g.name("def-" + key)
	g.refs[memo] = name
	// The rule's name is taken before its body is written, for recursion.
	g.add(name, g.value(name+"-body", def, loc, depth+1))
	return name
}
