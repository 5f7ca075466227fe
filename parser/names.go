package parser

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// toolInfo is what the parser knows of one registered tool.
type toolInfo struct {
	name     string
	args     []string
	primary  string
	required []string
}

// toolIndex finds registered tools by forgiving name matching.
type toolIndex struct {
	byName map[string]*toolInfo
	byKey  map[string]*toolInfo
	names  []string
	// hasPunctuatedNames says that a registered name holds a character
	// that also parts a name from an inline input (":", "(", "[", ",").
	hasPunctuatedNames bool
	// longest is the length of the longest registered name.
	longest int
	// list names the tools for the errors the model reads, or is empty.
	list string
	// firsts are the first bytes of byName's names and byKey's keys
	// (nil when there are none): most words a reply puts where a name
	// goes start otherwise, and are known to be neither at one look.
	firsts *byteSet
}

func newToolIndex(t Tools) toolIndex {
	idx := toolIndex{byName: map[string]*toolInfo{}, byKey: map[string]*toolInfo{}}
	if t == nil {
		return idx
	}
	var infos []*toolInfo
	for _, name := range t.ToolNames() {
		args, primary := t.ToolArgs(name)
		info := &toolInfo{name: name, args: args, primary: primary, required: t.RequiredArgs(name)}
		idx.names = append(idx.names, name)
		idx.byName[name] = info
		idx.hasPunctuatedNames = idx.hasPunctuatedNames || strings.ContainsAny(name, ":：([{, ")
		idx.longest = max(idx.longest, len(name))
		infos = append(infos, info)
	}
	if len(idx.names) > 0 {
		idx.list = " (one of: " + strings.Join(idx.names, ", ") + ")"
	}
	// A name that is its own key form ("web_search") claims that key
	// before another name folds onto it ("web.search", "Web Search"), so
	// that a forgiving match never takes a registered name's place.
	for _, own := range []bool{true, false} {
		for _, info := range infos {
			keys := nameKeys(info.name)
			if (keys[0] == info.name) != own {
				continue
			}
			if clean := cleanName(info.name); clean != info.name {
				// A name that ends in brackets ("Search (beta)") is
				// looked up without them, as cleanName leaves it.
				keys = append(keys, nameKeys(clean)...)
			}
			for _, k := range keys {
				if _, taken := idx.byKey[k]; !taken {
					idx.byKey[k] = info
				}
			}
		}
	}
	idx.firsts = new(byteSet)
	for _, m := range []map[string]*toolInfo{idx.byName, idx.byKey} {
		for k := range m {
			if k != "" {
				idx.firsts[k[0]] = true
			}
		}
	}
	return idx
}

// nameKeys returns the forms under which a name is looked up: lower case
// with spaces, hyphens, dots and colons as underscores, and the same
// without any separator ("web_search", "websearch"; "gmailfindemail" for
// "Gmail: Find Email", written "Gmail - Find Email" too).
func nameKeys(name string) []string {
	key, flat := appendKeys(nil, nil, name)
	return []string{string(key), string(flat)}
}

// appendKeys appends the two forms nameKeys gives of name to key and
// flat.
func appendKeys(key, flat []byte, name string) ([]byte, []byte) {
	for _, r := range name {
		switch {
		case isWordBreak(r) || r == ':' || r == '：':
			key = append(key, '_')
		case r < utf8.RuneSelf:
			c := byte(r)
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			key, flat = append(key, c), append(flat, c)
		default:
			r = unicode.ToLower(r)
			key, flat = utf8.AppendRune(key, r), utf8.AppendRune(flat, r)
		}
	}
	return key, flat
}

// lookup finds the registered tool a model meant by name.
func (idx toolIndex) lookup(name string) *toolInfo {
	if len(idx.byKey) == 0 {
		return nil
	}
	// The name without the markup and spaces around it is no longer than
	// a name (cleanName reads only the junk at its ends).
	if name = cleanName(name); name == "" || len(name) > 128 {
		return nil
	}
	if idx.mayName(name) {
		if info, ok := idx.byName[name]; ok {
			return info // the exact registered name always wins
		}
		if info := idx.lookupKeys(name); info != nil {
			return info
		}
	}
	if strings.IndexByte(name, '.') > 0 {
		return idx.qualified(name)
	}
	return nil
}

// mayName reports whether name may be a registered name or one of its
// keys: it is not when it starts with an ASCII byte that is no separator
// (the first byte of its keys then is that byte in lower case) and that
// no name or key starts with in either case.
func (idx toolIndex) mayName(name string) bool {
	if idx.firsts == nil || name == "" {
		return true
	}
	c := name[0]
	if c >= utf8.RuneSelf || isWordBreak(rune(c)) || c == ':' {
		return true
	}
	if c >= 'A' && c <= 'Z' {
		return idx.firsts[c] || idx.firsts[c+'a'-'A']
	}
	return idx.firsts[c]
}

// qualified finds the registered tool a dotted name holds as one of its
// parts, as models qualify a name with a namespace or a method
// ("functions.web_search", "default_api.web_search",
// "web_search.call"), or nil when no part or more than one is a
// registered name.
func (idx toolIndex) qualified(name string) *toolInfo {
	return idx.onlyOne(strings.Split(name, "."))
}

// onlyOne returns the registered tool that the names among parts name,
// or nil when they name none or more than one.
func (idx toolIndex) onlyOne(parts []string) *toolInfo {
	var found *toolInfo
	for _, part := range parts {
		if info, ok := idx.byName[part]; ok {
			if found != nil && found != info {
				return nil
			}
			found = info
		}
	}
	return found
}

// lookupKeys is lookup by the forms nameKeys gives, built on the stack:
// lookup runs on every candidate name in a reply, most of them not names.
func (idx toolIndex) lookupKeys(name string) *toolInfo {
	var keyBuf, flatBuf [128]byte
	key, flat := appendKeys(keyBuf[:0], flatBuf[:0], name)
	if info, ok := idx.byKey[string(key)]; ok {
		return info
	}
	return idx.byKey[string(flat)]
}

// loose finds the registered tool a name means once the generic words
// around it are dropped ("Calculator Tool" for calculator), or nil. The
// caller checks that the arguments fit the tool: a forgiving match must
// still be the same tool.
func (idx toolIndex) loose(name string) *toolInfo {
	if len(idx.byKey) == 0 || len(name) > 128 {
		return nil
	}
	// The words kept, lower-cased and joined by '_', on the stack.
	var keyBuf, wordBuf [128]byte
	key := keyBuf[:0]
	words, kept := 0, 0
	for rest := cleanName(name); rest != ""; {
		i := strings.IndexFunc(rest, isWordBreak)
		if i < 0 {
			i = len(rest)
		}
		w := wordBuf[:0]
		for _, r := range rest[:i] {
			w = utf8.AppendRune(w, unicode.ToLower(r))
		}
		if rest = rest[i:]; rest != "" {
			_, size := utf8.DecodeRuneInString(rest)
			rest = rest[size:]
		}
		if len(w) == 0 {
			continue
		}
		words++
		if genericWords()[string(w)] {
			continue
		}
		if kept++; kept > 1 {
			key = append(key, '_')
		}
		key = append(key, w...)
	}
	if kept == 0 || kept == words {
		return nil
	}
	return idx.byKey[string(key)]
}

// isWordBreak reports whether r parts the words of a tool's name.
func isWordBreak(r rune) bool {
	return r == ' ' || r == '_' || r == '-' || r == '.' || r == '\t'
}

// forgiven finds the registered tool a name that is not one means: the
// name with generic words around it, or a short sentence that names the
// tool exactly. The caller checks that the arguments fit the tool.
func (idx toolIndex) forgiven(name string) *toolInfo {
	if info := idx.loose(name); info != nil {
		return info
	}
	return idx.mentioned(name)
}

// maxMentionWords bounds the words of an Action value that mentioned
// reads: a short sentence, not a paragraph.
const maxMentionWords = 8

// mentioned finds the registered tool that a short sentence written as a
// tool's name names exactly ("I will use web_search", "the `calculator`
// tool"), or nil when it names none or more than one. The caller checks
// that the arguments fit the tool.
func (idx toolIndex) mentioned(name string) *toolInfo {
	if len(idx.byName) == 0 || len(name) > 128 || !strings.ContainsFunc(strings.TrimSpace(name), unicode.IsSpace) {
		return nil // one word at most: no sentence
	}
	words := strings.Fields(name)
	if len(words) < 2 || len(words) > maxMentionWords {
		return nil
	}
	for i, w := range words {
		words[i] = cleanName(w)
	}
	return idx.onlyOne(words)
}

// cleanName strips the markup and punctuation models put around a tool
// name: white space, backticks, quotes, asterisks, brackets, and trailing
// full stops, colons, commas and the like.
func cleanName(s string) string {
	// A name whose ends are ASCII and no junk, the usual one, is its own
	// clean name: no rune is decoded to tell.
	if s == "" || s[0] < utf8.RuneSelf && s[len(s)-1] < utf8.RuneSelf && !asciiNameJunk[s[0]] && !asciiNameJunk[s[len(s)-1]] {
		return s
	}
	return strings.TrimFunc(s, isNameJunk)
}

// unknownName is the name of a tool the parser does not know, as the step
// gives it: cleaned as cleanName does, but keeping a closing bracket that
// an opening one in the name needs ("Ask question to co-worker
// (Editor)"), and without a namespace that models put before a name and
// prompts never do ("functions.calculate", "default_api.search").
func unknownName(written string) string {
	name := cleanName(written)
	// Two looks at memchr speed: strings.IndexAny reads a long name a byte
	// at a time.
	if strings.IndexByte(name, '.') < 0 && strings.IndexByte(written, ')') < 0 && strings.IndexByte(written, ']') < 0 {
		return name // the usual case: no namespace, no bracket to keep
	}
	for _, pair := range [...][2]byte{{'(', ')'}, {'[', ']'}} {
		if strings.Count(name, string(pair[0])) == strings.Count(name, string(pair[1]))+1 {
			if i := strings.Index(written, name); i >= 0 && strings.HasPrefix(written[i+len(name):], string(pair[1])) {
				name += string(pair[1])
			}
		}
	}
	for _, ns := range [...]string{"functions.", "default_api.", "tools."} {
		if rest, ok := strings.CutPrefix(name, ns); ok && rest != "" && rest == strings.TrimLeftFunc(rest, isNameJunk) {
			return rest
		}
	}
	return name
}

// isNameJunk reports whether r is white space, markup or punctuation that
// never starts or ends a tool name.
func isNameJunk(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiNameJunk[r]
	}
	return unicode.IsSpace(r) || strings.ContainsRune("：。，", r)
}

// asciiNameJunk is isNameJunk for ASCII.
var asciiNameJunk = newByteSet(" \t\n\v\f\r`'\"*_<>[](){}.,:;!?")

// naming is what the value of an Action label (or the name of a JSON
// call) names.
type naming int

const (
	// namesTool is a registered tool, the final answer, or a short name
	// of one or two words that may be a tool the model made up: the
	// loop answers an unknown tool with the names of the real ones.
	namesTool naming = iota
	// namesNothing is a refusal ("None needed", "不需要使用工具") or the
	// prompt's own placeholder ("$TOOL_NAME", "<tool name>",
	// "tool_name"): never a call.
	namesNothing
	// namesIfInput is one word that a prompt may use as a placeholder
	// but a tool may be called ("tool", "xxx", "function"): a call
	// when an input follows it.
	namesIfInput
	// namesSentence is longer words ("Search the internet", "Click on
	// the first result", the thought written again): a call when
	// sentenceCalls says so.
	namesSentence
)

// naming says what name, written where a tool's name goes, names. A
// registered name always names its tool, whatever its shape
// ("Gmail: Find Email", "I am feeling lucky").
func (p *Parser) naming(name string) naming {
	if p.tools.mayName(name) && p.tools.byName[name] != nil {
		return namesTool // the usual case: a registered name as written
	}
	if w := cleanName(name); isASCIIWord(w) {
		// The next most usual: one word, as names are.
		if p.tools.lookup(w) != nil || isFinish(w) {
			return namesTool
		}
		var buf [maxASCIIWord]byte
		low := buf[:len(w)]
		for i := 0; i < len(w); i++ {
			low[i] = w[i]
			if c := w[i]; c >= 'A' && c <= 'Z' {
				low[i] = c + 'a' - 'A'
			}
		}
		switch parts := placeholderParts(low); {
		case refusalWords()[string(low)] || strings.IndexByte(name, '$') >= 0:
			return namesNothing
		case parts == 1:
			return namesIfInput // "tool", not "tool_name"
		case parts > 1:
			return namesNothing
		}
		return namesTool
	}
	s := strings.TrimSpace(name)
	switch {
	case !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }):
		return namesNothing // "-", "...", "?"
	case p.tools.lookup(s) != nil || isFinish(s):
		return namesTool
	case isRefusal(s) || isPlaceholderName(s):
		return namesNothing
	case isShortName(s) || isTitleName(s):
		return namesTool
	}
	return namesSentence
}

// plainWordTool is what the tolerant reading makes of name, a plain
// word (see isPlainWord) that is no registered name as written, as an
// Action's value: the registered tool that lookup finds under its keys
// (info), or a tool the parser was not told of, called by that name (nil
// and ok). ok is false when the word names no tool as naming reads it
// (it is the final answer, a refusal or a placeholder) or when loose may find a
// registered tool in it once its generic words are dropped. It reads the
// word once, in bytes, and asks each word list once per part: it gives
// what lookup, naming and loose give.
func (idx toolIndex) plainWordTool(name string) (info *toolInfo, ok bool) {
	var keyBuf, flatBuf, lowBuf [maxASCIIWord]byte
	key, flat, low := keyBuf[:0], flatBuf[:0], lowBuf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
		if c == '_' || c == '-' {
			key = append(key, '_')
			continue
		}
		key, flat = append(key, c), append(flat, c)
	}
	if len(idx.byKey) > 0 && idx.mayName(name) {
		if info := idx.byKey[string(key)]; info != nil {
			return info, true
		}
		if info := idx.byKey[string(flat)]; info != nil {
			return info, true
		}
	}
	words := nameWords()
	if len(name) <= maxFinishName && (words.role(key)|words.role(flat))&finishWord != 0 || words.role(low)&refusalWord != 0 {
		return nil, false
	}
	// The parts between '_' and '-': all placeholders, or generic words
	// around the words of a registered name.
	var keptBuf [maxASCIIWord]byte
	kept, parts, generic, placeholders := keptBuf[:0], 0, 0, 0
	for start := 0; start < len(low); {
		end := start
		for end < len(low) && low[end] != '_' && low[end] != '-' {
			end++
		}
		if part := low[start:end]; len(part) > 0 {
			parts++
			r := words.role(part)
			if r&placeholderWord != 0 {
				placeholders++
			}
			if r&genericWord != 0 {
				generic++
			} else {
				if len(kept) > 0 {
					kept = append(kept, '_')
				}
				kept = append(kept, part...)
			}
		}
		start = end + 1
	}
	if placeholders == parts || generic > 0 && generic < parts && idx.byKey[string(kept)] != nil {
		return nil, false
	}
	return nil, true
}

// wordRole says which of the word lists a word is in.
type wordRole uint8

const (
	finishWord      wordRole = 1 << iota // a key of finishKeys
	refusalWord                          // one of refusalWords
	placeholderWord                      // one of placeholderWords
	genericWord                          // one of genericWords
)

// wordIndex holds the word lists that tell a one-word name from a
// tool's: each word with its roles, and the bytes the words start with,
// so that most words are known to be in none at one look.
type wordIndex struct {
	roles  map[string]wordRole
	firsts byteSet
}

// role returns the roles of w.
func (x *wordIndex) role(w []byte) wordRole {
	if len(w) == 0 || !x.firsts[w[0]] {
		return 0
	}
	return x.roles[string(w)]
}

// nameWords are finishKeys, refusalWords, placeholderWords and
// genericWords in one index.
var nameWords = sync.OnceValue(func() *wordIndex {
	x := &wordIndex{roles: map[string]wordRole{}}
	for _, list := range []struct {
		words map[string]bool
		role  wordRole
	}{{finishKeys(), finishWord}, {refusalWords(), refusalWord}, {placeholderWords(), placeholderWord}, {genericWords(), genericWord}} {
		for w := range list.words {
			x.roles[w] |= list.role
			x.firsts[w[0]] = true
		}
	}
	return x
})

// isTemplate reports whether line, the value of an Action label as
// written, is a prompt's placeholder in brackets ("<tool name>", "[tool]",
// "{tool_name}"): words that only say "a tool's name" inside brackets.
func isTemplate(line string) bool {
	t := strings.TrimSpace(line)
	if len(t) < 3 || len(t) > maxShortName {
		return false
	}
	var closer byte
	switch t[0] {
	case '<':
		closer = '>'
	case '[':
		closer = ']'
	case '{':
		closer = '}'
	default:
		return false
	}
	return t[len(t)-1] == closer && isPlaceholderName(t)
}

// isTitleName reports whether s is a tool's name written in title case,
// as names of several words are and sentences are not: "Google Search
// Results JSON", not "Perform the addition".
func isTitleName(s string) bool {
	if !isToolPhrase(s) {
		return false
	}
	for _, w := range strings.Fields(cleanName(s)) {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// maxASCIIWord bounds the words isASCIIWord takes.
const maxASCIIWord = 48

// isASCIIWord reports whether s is one word of ASCII letters and digits,
// '_', '-' and '.', with a letter or digit in it.
func isASCIIWord(s string) bool {
	if s == "" || len(s) > maxASCIIWord {
		return false
	}
	alnum := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			alnum = true
		case c == '_' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return alnum
}

// placeholderParts returns how many parts low, a word in lower case,
// has between '_', '-' and '.' when every part is a placeholder word
// ("tool_name" has two), and 0 when one is not.
func placeholderParts(low []byte) int {
	parts := 0
	for start := 0; start <= len(low); {
		end := start
		for end < len(low) && low[end] != '_' && low[end] != '-' && low[end] != '.' {
			end++
		}
		if end > start {
			if !placeholderWords()[string(low[start:end])] {
				return 0
			}
			parts++
		}
		start = end + 1
	}
	return parts
}

// sentenceCalls reports whether name, words longer than a name, still
// make a call with the arguments args: they name one registered tool
// whose arguments args fit (see toolIndex.forgiven), or an input was
// written after them (given; "{}" and "None" too: a call with no
// arguments) and they do not state a plan ("I will use pandas", "Let me
// look it up"): "Search the internet", "List files in directory" are how
// tools are named, and 201d578 read every such value followed by an
// input as a call.
func (p *Parser) sentenceCalls(name string, args any, given bool) bool {
	if info := p.tools.forgiven(name); info != nil && info.fits(args) {
		return true
	}
	return given && !statesPlan(name)
}

// statesPlan reports whether s, the value of an Action label, is a
// sentence about the step rather than a name: it opens as one ("I will
// ...", "Let me ...", "Now ...").
func statesPlan(s string) bool {
	s = cleanName(s)
	first := s
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		first = s[:i]
	}
	var buf [16]byte
	low, ok := lowerWord(buf[:0], strings.TrimRight(first, ","))
	return ok && phraseOpeners()[string(low)] || planStart().MatchString(s)
}

// callsWith reports whether the value of an Action label that names what
// n says is a call with the input written after it: a tool's name always
// is; a placeholder-like word is with an input; longer words are when
// sentenceCalls says so.
func (p *Parser) callsWith(n naming, name, input string, form inputForm) bool {
	switch n {
	case namesTool:
		return true
	case namesIfInput:
		// With arguments the call keeps: not an input the call reads as
		// none ("[", "None,"), nor one that writes the call again around
		// none ("tool: tool()").
		info, resolved := p.find(name)
		if inner, innerForm, ok := p.repeatedCall(resolved, info, input); ok {
			input, form = inner, innerForm
		}
		return !isPlaceholder(input) && !noInput(input, form) && hasInput(p.inputValue(input, form))
	case namesSentence:
		return p.sentenceCalls(name, p.inputValue(input, form), strings.TrimSpace(input) != "")
	}
	return false
}

// maxPhraseWords bounds the words of a tool's name written as a phrase:
// crewAI's longest ("Search a github repo's content") have five or six.
const maxPhraseWords = 8

// isToolPhrase reports whether s may be a tool's name written as a
// phrase: at most eight words of letters, digits and the marks names use,
// not opening as a sentence about the step does ("I will ...", "Let me
// ...", "Now ...").
func isToolPhrase(s string) bool {
	s = cleanName(s)
	if len(s) > maxShortName {
		return false
	}
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > maxPhraseWords || phraseOpeners()[strings.ToLower(words[0])] {
		return false
	}
	for _, w := range words {
		for _, r := range w {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-.'’()&/+#@", r) {
				return false
			}
		}
	}
	return true
}

// maxShortName bounds the bytes of a name isShortName reads.
const maxShortName = 96

// isShortName reports whether s reads as the name of a tool: one or two
// words of letters, digits, '_', '-' and '.' ("Search", "Web Search",
// "google-search"), not counting generic words such as "tool".
func isShortName(s string) bool {
	s = cleanName(s)
	if len(s) > maxShortName {
		return false
	}
	words := 0
	for s != "" {
		i := strings.IndexAny(s, " \t")
		w := s
		if i >= 0 {
			w, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if w = cleanName(w); w == "" {
			continue
		}
		for _, r := range w {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' && r != '.' {
				return false
			}
		}
		if !genericTail()[strings.ToLower(w)] {
			words++
		}
	}
	return words >= 1 && words <= 2
}

// isRefusal reports whether s says that no tool is needed.
func isRefusal(s string) bool {
	s = strings.TrimLeftFunc(s, isNameJunk)
	if len(s) > maxShortName*4 {
		return false
	}
	end := strings.IndexAny(s, " \t,.;:!?()[]{}\"'`*")
	if end < 0 {
		end = len(s)
	}
	var buf [32]byte
	if first, ok := lowerWord(buf[:0], s[:end]); ok && refusalWords()[string(first)] {
		return true
	}
	for _, r := range s {
		if r >= 0x3000 { // CJK and Hangul
			for _, o := range refusalOpeners {
				if strings.HasPrefix(s, o) {
					return true
				}
			}
			for _, part := range refusalParts {
				if strings.Contains(s, part) {
					return true
				}
			}
			break
		}
	}
	return false
}

// lowerWord appends w in lower case to buf, whose room it must fit in:
// ok is false when it does not, and no word looked up this way is so long.
func lowerWord(buf []byte, w string) ([]byte, bool) {
	for _, r := range w {
		r = unicode.ToLower(r)
		if len(buf)+utf8.RuneLen(r) > cap(buf) {
			return buf, false
		}
		buf = utf8.AppendRune(buf, r)
	}
	return buf, true
}

// isPlaceholderName reports whether s is a placeholder for a tool's name
// rather than a name: a template variable ("$TOOL_NAME") or words that
// only say "the tool's name".
func isPlaceholderName(s string) bool {
	if strings.IndexByte(s, '$') >= 0 {
		return true
	}
	s = cleanName(s)
	if s == "" || len(s) > maxShortName {
		return s == ""
	}
	words := 0
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return isWordBreak(r) || r == ',' })
		w := s
		if i >= 0 {
			w, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if w = cleanName(w); w == "" {
			continue
		}
		var buf [32]byte
		if lw, ok := lowerWord(buf[:0], w); !ok || !placeholderWords()[string(lw)] {
			return false
		}
		words++
	}
	return words > 0
}
