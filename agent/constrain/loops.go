package constrain

import (
	"slices"
	"strconv"
	"strings"
)

// leftRecursion returns the locations (JSON pointers without the "#",
// such as "/$defs/Term/anyOf/0") of the objects of schema s that are to
// be any value, {}, so that no chain of references comes back to where it
// started before anything was written: {"anyOf": [{"$ref": itself}, …]},
// two definitions each an alternative of the other, or longer loops,
// however each definition was first reached (under a property, or through
// a pointer into another one, "#/$defs/B/anyOf/1"). Such a loop is no
// value a grammar can spell: llama.cpp refuses it in a grammar, and with
// it the whole grammar (llama-server then samples without one, and says so
// only in its log); Ollama's runner crashes on it in a format.
//
// A schema is read as a graph whose nodes are its schema objects and whose
// edges go from an object to its alternatives (anyOf, oneOf, allOf) and
// from a "$ref" to the object it names: the steps that write nothing. An
// object, an array or a string writes a bracket or a quote first, so the
// schemas under "properties" or "items" start afresh. Every loop of that
// graph is broken once, where a walk of it, in the order of the schema,
// first closes it: at the "$ref" that leads back, or at the alternative
// that does. A "$ref" into s that names nothing, or that holds a "~"
// (which llama.cpp, unlike JSON pointers, reads as it is), is any value
// too, so that no server follows a reference otherwise than this walk
// did. The grammar and the schema sent to a server are both written
// without the objects returned, so that they bind the same values.
func leftRecursion(s map[string]any) map[string]bool {
	// The walks start at the root and at every object a "$ref" names, in
	// the order they are reached from the root (definitions no "$ref"
	// names come last): each loop goes through one.
	starts := []string{""}
	at := map[string]any{"": s}
	seen := map[string]bool{}
	loops := map[string]bool{}
	var find func(v any, loc string, kind valueKind)
	find = func(v any, loc string, kind valueKind) {
		if seen[loc] {
			return
		}
		seen[loc] = true
		switch v := v.(type) {
		case []any:
			for i, x := range v {
				find(x, loc+"/"+strconv.Itoa(i), schemaValue)
			}
		case map[string]any:
			if kind == schemaMap {
				for _, k := range sortedKeys(v) {
					find(v[k], loc+"/"+pointerToken(k), schemaValue)
				}
				return
			}
			if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
				target, where, ok := resolvePointer(s, ref)
				if _, known := at[where]; ok && !known {
					at[where] = target
					starts = append(starts, where)
					find(target, where, schemaValue)
				}
				if !ok || strings.Contains(ref, "~") {
					// llama.cpp reads "~1" as it is, not as "/", and
					// fails on a $ref that points at nothing: any value.
					loops[loc] = true
				}
			}
			keys := sortedKeys(v)
			isDefs := func(k string) int {
				if k == "$defs" || k == "definitions" {
					return 1
				}
				return 0
			}
			slices.SortStableFunc(keys, func(a, b string) int { return isDefs(a) - isDefs(b) }) // definitions last
			for _, k := range keys {
				if kind := schemaKeys[k]; kind == schemaValue || kind == schemaMap || kind == schemaList {
					find(v[k], loc+"/"+pointerToken(k), kind)
				}
			}
		}
	}
	find(s, "", schemaValue)

	const onPath, done = 1, 2
	state := map[string]int{}
	var walk func(v any, loc string)
	walk = func(v any, loc string) {
		state[loc] = onPath
		defer func() { state[loc] = done }()
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			// A "$ref" writes what it names, and nothing of its own.
			if target, where, ok := resolvePointer(s, ref); ok && !loops[loc] {
				switch state[where] {
				case onPath:
					loops[loc] = true
				case 0:
					walk(target, where)
				}
			}
			return
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			alts, _ := m[k].([]any)
			for i, alt := range alts {
				next := loc + "/" + k + "/" + strconv.Itoa(i)
				switch state[next] {
				case onPath:
					loops[next] = true
				case 0:
					walk(alt, next)
				}
			}
		}
	}
	for _, loc := range starts {
		if state[loc] == 0 {
			walk(at[loc], loc)
		}
	}
	return loops
}

// resolvePointer returns the value a "$ref" into schema s names ("#",
// "#/$defs/name", or any JSON pointer into s, "#/$defs/B/anyOf/1") and its
// location as leftRecursion writes locations; ok is false for a
// reference to another document, or to nothing.
func resolvePointer(s map[string]any, ref string) (v any, loc string, ok bool) {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok || rest != "" && rest[0] != '/' {
		return nil, "", false
	}
	v = s
	var b strings.Builder
	for rest != "" {
		var token string
		token, rest, _ = strings.Cut(rest[1:], "/")
		if rest != "" {
			rest = "/" + rest
		}
		token = strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[token]; !ok {
				return nil, "", false
			}
		case []any:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != token {
				return nil, "", false
			}
			v = x[i]
		default:
			return nil, "", false
		}
		b.WriteString("/" + pointerToken(token))
	}
	return v, b.String(), true
}

// pointerToken writes a key of a JSON object as a JSON pointer has it:
// ~ as ~0 and / as ~1.
func pointerToken(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
