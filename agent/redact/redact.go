package redact

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Redacted stands in for a secret that was removed from text.
const Redacted = "REDACTED"

// MinSecret is the length under which a string given to [New] is
// ignored: shorter, it is more likely a placeholder key ("ollama",
// "none") or an ordinary word than a credential, and removing it would
// garble the text it occurs in.
const MinSecret = 8

// Redactor removes secrets from text before it is shown or kept: the
// exact strings it was given, such as the API key in use, and anything
// shaped like a secret (see [Text]). A nil *Redactor removes the
// shapes alone. It is safe for concurrent use.
type Redactor struct {
	exact []string // longest first, so that a secret holding another goes whole
}

// New returns a Redactor of secrets, ignoring those shorter than
// [MinSecret].
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) >= MinSecret && !slices.Contains(r.exact, s) {
			r.exact = append(r.exact, s)
		}
	}
	slices.SortStableFunc(r.exact, func(a, b string) int { return len(b) - len(a) })
	return r
}

// Redact returns s with its secrets replaced by [Redacted]. Text without
// any comes back as it is, without allocating.
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return s
	}
	if r != nil {
		for _, secret := range r.exact {
			if strings.Contains(s, secret) {
				s = strings.ReplaceAll(s, secret, Redacted)
			}
		}
	}
	return Text(s)
}

// Value returns a copy of v, a value as JSON decodes it (a
// map[string]any of tool arguments, say), with its secrets replaced: the
// value of a key that names a secret ({"token": "…"}, {"Authorization":
// "Bearer …"}) and the secrets in every string. Redacting before the
// value is encoded sees the text as it is, not as JSON escapes it (json.Marshal writes & as \u0026).
// Other Go values are taken as their JSON form.
func (r *Redactor) Value(v any) any {
	switch v := v.(type) {
	case nil, bool, float64, json.Number, int, int64:
		return v
	case string:
		return r.Redact(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = r.Value(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[r.Redact(k)] = r.redactEntry(k, x)
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var generic any
	if json.Unmarshal(b, &generic) != nil {
		return v
	}
	return r.Value(generic)
}

// redactEntry redacts the value x of key k in a map.
func (r *Redactor) redactEntry(k string, x any) any {
	lower := strings.ToLower(k)
	s, isString := x.(string)
	switch {
	case isString && (lower == "authorization" || lower == "proxy-authorization"):
		scheme, cred, ok := strings.Cut(strings.TrimSpace(s), " ")
		if !ok || !authSchemes[strings.ToLower(scheme)] {
			scheme, cred = "", s
		}
		if exempt(strings.TrimSpace(cred)) {
			return r.Redact(s)
		}
		return strings.TrimLeft(scheme+" "+Redacted, " ")
	case isString && (lower == "cookie" || lower == "set-cookie"):
		if exempt(s) {
			return s
		}
		return Redacted
	}
	switch kind := classify(splitWords(k), false); {
	case kind == notSecret:
	case isString:
		if !exempt(s) && (kind == anySecret || !strings.ContainsAny(s, " \t\r\n")) {
			return Redacted
		}
	default:
		switch x.(type) {
		case float64, json.Number, int, int64:
			return Redacted // a numeric password or PIN
		}
	}
	return r.Value(x)
}

// Text returns s with what is shaped like a secret replaced by
// [Redacted]:
//   - passwords in URLs (scheme://user:password@host);
//   - values of names that say they are secret (token, secret, password,
//     passcode, api_key, X-Auth-Token, AWS_SECRET_ACCESS_KEY,
//     client_secret, sig, X-Amz-Signature, COOKIE, BEARER, JWT, GH_PAT,
//     *_CRED, SESSION, PRIVATE, SENTRY_DSN, SLACK_WEBHOOK_URL…) in query
//     strings and forms (?key=…, &token=…, also
//     written \u0026token=… as JSON escapes it), environment assignments
//     (NAME=…), JSON and YAML (name: …, "name": "…", a quoted value
//     whole), HTTP headers and command-line flags (--password …,
//     --api-key=…);
//   - Authorization and Cookie header values and bearer tokens;
//   - curl -u user:password and mysql -pPASSWORD;
//   - JSON Web Tokens, PEM private keys, and API keys of well-known
//     shapes (sk-…, AIza…, ghp_…, xoxb-…, AKIA…, hf_…).
//
// It spares ordinary text: a name alone before a colon ("Token: a unit of
// text") counts only when its value ends the line, a value with spaces
// only when quoted after a password's or secret's name, and values such
// as true, none, ${VAR} or <your-key> are kept. It cannot know every
// secret: give the ones in use to [New] too.
func Text(s string) string {
	found := triggers.find(s)
	for i, rule := range rules {
		if found&(1<<i) != 0 {
			s = rule.apply(s)
		}
	}
	return s
}

// triggerIndex finds in one pass over a text which rules may match it:
// those with one of their words in it, in any case.
type triggerIndex struct {
	// pairs has a bit set for the first two bytes, lower-cased, of each
	// word: most positions of most texts are passed over on one look.
	pairs [1 << 16 / 64]uint64
	words map[uint16][]trigger
}

// trigger is a word and the rules it may start.
type trigger struct {
	word  string
	rules uint64 // a bit for each rule
}

// triggers indexes the words of rules.
var triggers = func() *triggerIndex {
	t := &triggerIndex{words: map[uint16][]trigger{}}
	for i, r := range rules {
		for _, w := range r.words {
			key := uint16(w[0])<<8 | uint16(w[1])
			t.pairs[key/64] |= 1 << (key % 64)
			list := t.words[key]
			j := slices.IndexFunc(list, func(tr trigger) bool { return tr.word == w })
			if j < 0 {
				list, j = append(list, trigger{word: w}), len(list)
			}
			list[j].rules |= 1 << i
			t.words[key] = list
		}
	}
	return t
}()

// find returns a bit for each rule whose words s holds.
func (t *triggerIndex) find(s string) uint64 {
	var found uint64
	for i := 0; i+1 < len(s); i++ {
		key := uint16(lowerByte(s[i]))<<8 | uint16(lowerByte(s[i+1]))
		if t.pairs[key/64]&(1<<(key%64)) == 0 {
			continue
		}
		for _, tr := range t.words[key] {
			if found&tr.rules != tr.rules && len(s)-i >= len(tr.word) && strings.EqualFold(s[i:i+len(tr.word)], tr.word) {
				found |= tr.rules
			}
		}
	}
	return found
}

// lowerByte lower-cases an ASCII letter.
func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// rule finds one shape of secret.
type rule struct {
	// words are lower-case strings one of which the text must hold for
	// the rule to match: a cheap test that spares most text the regular
	// expression.
	words []string
	re    *regexp.Regexp
	// secret returns the span of match m of s (as
	// FindStringSubmatchIndex gives it) that is secret, and what to write
	// instead; ok is false when the match holds no secret.
	secret func(s string, m []int) (start, end int, with string, ok bool)
	// resume is the group after which the search goes on when a match
	// holds no secret; 0 means after the match.
	resume int
	// scan, when set, replaces the regular expression: it returns s with
	// the secrets it finds replaced.
	scan func(s string) string
}

// apply replaces every secret the rule finds in s. After a match that is
// no secret the search goes on inside it, so that a value holding a
// secret ("key": "token=…") is searched too.
func (r rule) apply(s string) string {
	if r.scan != nil {
		return r.scan(s)
	}
	var b strings.Builder
	done, pos := 0, 0
	for pos < len(s) {
		m := r.re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		start, end, with, ok := r.secret(s, m)
		if !ok || start < done {
			pos = max(m[0]+1, m[2*r.resume+1])
			continue
		}
		b.WriteString(s[done:start])
		b.WriteString(with)
		done, pos = end, max(end, m[0]+1)
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// group returns a rule's secret function that takes group n of a match
// as the secret, unless it is a value to keep (see exempt); quoted
// values lose their quotes first.
func group(n int) func(s string, m []int) (int, int, string, bool) {
	return func(s string, m []int) (int, int, string, bool) {
		start, end := m[2*n], m[2*n+1]
		if start < 0 {
			return 0, 0, "", false
		}
		start, end = unquote(s, start, end)
		return start, end, Redacted, !exempt(s[start:end])
	}
}

var rules = []rule{
	// PEM private keys: the body, between its BEGIN and END lines (or the
	// end of the text, when it was cut).
	{[]string{"private key-----"},
		regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`),
		group(1), 0, nil},
	// JSON Web Tokens: two base64url JSON objects ({" is eyJ) and a
	// signature.
	{[]string{"eyj"},
		regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
		group(0), 0, nil},
	// Keys by their well-known shapes: OpenAI and Anthropic (sk-…),
	// Stripe (sk_live_…), Google (AIza…), GitHub (ghp_…, github_pat_…),
	// GitLab (glpat-…), Slack (xoxb-…), AWS (AKIA…, ASIA…), Hugging Face
	// (hf_…), npm (npm_…).
	{[]string{"sk-", "sk_", "rk_", "aiza", "gh", "glpat-", "xox", "akia", "asia", "hf_", "npm_"},
		regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{16,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_-]{30,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}\b|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36})`),
		func(s string, m []int) (int, int, string, bool) {
			// sk-learn-is-a-library is no key: a short match must hold
			// a digit.
			key := s[m[0]:m[1]]
			return m[0], m[1], Redacted, len(key) >= 32 || strings.ContainsAny(key, "0123456789")
		}, 0, nil},
	// The password of a URL: scheme://user:password@host.
	{[]string{"://"},
		regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"'\\]*:([^/\s@"'\\]+)@`),
		group(1), 0, nil},
	// Authorization headers, with their scheme kept: "Authorization:
	// Bearer …", "authorization": "Basic …". Without a scheme the value
	// must end the line, or be quoted: "Authorization: the act of…" is
	// prose.
	{[]string{"authorization"},
		regexp.MustCompile(`(?i)\b(?:proxy-)?authorization(\\?["'])?[ \t]*[:=][ \t]*(\\?["'])?((?:bearer|basic|token|digest|negotiate|apikey|key|hmac)[ \t]+)?([^\s"'\\,]+)`),
		func(s string, m []int) (int, int, string, bool) {
			start, end := m[8], m[9]
			if m[6] < 0 && (authSchemes[strings.ToLower(s[start:end])] || m[4] < 0 && !endsLine(s, end)) {
				return 0, 0, "", false // a scheme with no credential, or prose
			}
			return start, end, Redacted, !exempt(s[start:end])
		}, 0, nil},
	// A bearer token anywhere: random-looking, not "the bearer
	// instrument".
	{[]string{"bearer"},
		regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})`),
		func(s string, m []int) (int, int, string, bool) {
			tok := s[m[2]:m[3]]
			return m[2], m[3], Redacted, looksRandom(tok) && !exempt(tok)
		}, 0, nil},
	// Cookie headers: name=value pairs, to the end of the header.
	{[]string{"cookie"},
		regexp.MustCompile(`(?i)\b(?:set-)?cookie(?:\\?["'])?[ \t]*:[ \t]*(?:\\?["'])?([^"'\\\r\n]*=[^"'\\\r\n]*)`),
		group(1), 0, nil},
	// curl -u user:password, --user, --proxy-user (a user and group such
	// as docker's -u 1000:1000 are kept).
	{[]string{"-u"}, // also in --user and --proxy-user
		regexp.MustCompile(`(?:^|\s)(?:-u[ \t]*|--(?:proxy-)?user(?:[ \t]+|=))['"]?[^\s:'"@]+:([^\s'"]+)`),
		func(s string, m []int) (int, int, string, bool) {
			pw := s[m[2]:m[3]]
			return m[2], m[3], Redacted, strings.Trim(pw, "0123456789") != "" && !exempt(pw)
		}, 0, nil},
	// mysql -pPASSWORD: the password joined to -p (with a space it is
	// the database's name), on a MySQL or MariaDB command line.
	{[]string{"mysql", "mariadb"},
		regexp.MustCompile(`\b(?i:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mariadb|mariadb-dump|mariadb-admin)\b[^\n|;&]*?[ \t]-p('[^'\n]*'|"[^"\n]*"|[^\s'"]+)`),
		group(1), 0, nil},
	// A name that says it is secret, and its value: in a query string
	// or a form (?key=…, &sig=…, \u0026token=…), an assignment
	// (AWS_SECRET_ACCESS_KEY=…, password = "…"), JSON, YAML or a Python
	// dict ("token": "…", password: …), an HTTP header (X-Auth-Token: …),
	// a command-line flag (--password …, --api-key=…).
	{words: secretWords, scan: redactNamed},
}

// secretWords are the parts of a name that may make it secret; a name
// without one is never looked at (see classify for what makes it so).
var secretWords = []string{"pass", "pwd", "secret", "token", "key", "auth", "sig", "cred",
	"cookie", "bearer", "jwt", "pat", "session", "private", "dsn", "webhook"}

// redactNamed replaces the values of the names in s that say they are
// secret. It reads s once: each name is found by a secret word in it,
// classified, and only then is its value read.
func redactNamed(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		w := secretWordAt(s, i)
		if w == 0 {
			i++
			continue
		}
		start, end := i, i+w
		for start > done && isNameByte(s[start-1]) {
			start--
		}
		for end < len(s) && isNameByte(s[end]) {
			end++
		}
		i = end
		if v0, v1, with, ok := namedValue(s, start, end); ok {
			b.WriteString(s[done:v0])
			b.WriteString(with)
			done, i = v1, max(i, v1)
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// secretWordAt returns the length of the secret word at s[i:], in any
// case, or 0.
func secretWordAt(s string, i int) int {
	switch lowerByte(s[i]) {
	case 'p', 's', 't', 'k', 'a', 'c', 'b', 'j', 'd', 'w':
		for _, w := range secretWords {
			if len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
				return len(w)
			}
		}
	}
	return 0
}

// isNameByte reports whether c may be part of a name: ASCII letters,
// digits, _ . and -.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// namedValue reads the separator and value after the name s[start:end]
// and returns the span of its value and what to write instead, when the
// name says it is secret and the value is one.
func namedValue(s string, start, end int) (v0, v1 int, with string, ok bool) {
	// A JSON escape before the name is not part of it: \npassword: …,
	// \u0026token=….
	pre := byte(' ')
	query := false
	if start > 0 {
		pre = s[start-1]
	}
	if pre == '\\' && end-start > 1 {
		switch name := s[start:end]; {
		case len(name) > 5 && name[0] == 'u' && isHex(name[1:5]):
			query = name[1:5] == "0026" // &
			start += 5
		case strings.IndexByte("ntrbf", name[0]) >= 0:
			start++
		}
		pre = ' '
	}
	if start >= end {
		return 0, 0, "", false
	}
	query = query || pre == '?' || pre == '&' || pre == ';'
	// Quotes around the name: "token":, 'token':, \"token\":.
	quote := ""
	switch {
	case start >= 2 && s[start-2:start] == `\"`:
		quote = `\"`
	case pre == '"' || pre == '\'':
		quote = string(pre)
	}
	j := end
	if quote != "" && strings.HasPrefix(s[j:], quote) {
		j += len(quote)
	}
	// The separator.
	k := skipBlanks(s, j)
	blankBefore := k > j
	colon, flag := false, false
	switch {
	case k < len(s) && s[k] == ':' && !strings.HasPrefix(s[k:], "::") && !strings.HasPrefix(s[k:], ":="):
		colon = true
		k++
	case strings.HasPrefix(s[k:], "=>"):
		colon = true // PHP: 'password' => '…'
		k += 2
	case strings.HasPrefix(s[k:], ":="):
		blankBefore = true // Go: token := …, code like "token = …"
		k += 2
	case k < len(s) && s[k] == '=' && !strings.HasPrefix(s[k:], "=="):
		k++
	case s[start] == '-' && blankBefore && quote == "" && (pre == ' ' || pre == '\t' || pre == '\n' || start == 0):
		flag = true // --password hunter2
	default:
		return 0, 0, "", false
	}
	v := skipBlanks(s, k)
	spaced := blankBefore || v > k
	query = query && !colon && !spaced && quote == ""
	words := splitWords(s[start:end])
	kind := classify(words, query)
	if kind == notSecret || v >= len(s) {
		return 0, 0, "", false
	}
	// The value: quoted, or bare.
	v0, v1, quoted := quotedValue(s, v)
	switch {
	case quoted:
	case flag && s[v] == '-', strings.IndexByte("{[(", s[v]) >= 0:
		return 0, 0, "", false // another flag, or a structure whose names are read one by one
	case spaced && !colon && !flag:
		return 0, 0, "", false // code: token = tokenizer.encode(text)
	default:
		v0, v1 = v, v
		for v1 < len(s) && strings.IndexByte(" \t\r\n\"'\\&<>", s[v1]) < 0 {
			if colon && strings.IndexByte(",}])", s[v1]) >= 0 {
				break // a YAML flow mapping, a Python dict
			}
			v1++
		}
		for v1 > v0 && strings.IndexByte(".,;:)]}", s[v1-1]) >= 0 {
			v1--
		}
		// "Token: a unit of text" is prose; "password: hunter2" alone
		// on its line is not.
		if colon && quote == "" && len(words) == 1 && !endsLine(s, v1) {
			return 0, 0, "", false
		}
	}
	value := s[v0:v1]
	if exempt(value) || kind == oneToken && strings.ContainsAny(value, " \t") {
		return 0, 0, "", false
	}
	if quote == `"` && !quoted && colon {
		return v0, v1, `"` + Redacted + `"`, true // a JSON number stays JSON
	}
	return v0, v1, Redacted, true
}

// quotedValue returns the span inside the quotes of a value quoted at
// s[i:], as JSON writes it inside a JSON string (\"…\"), or with " or ',
// on one line.
func quotedValue(s string, i int) (v0, v1 int, ok bool) {
	switch {
	case strings.HasPrefix(s[i:], `\"`):
		if n := strings.Index(s[i+2:], `\"`); n >= 0 && !strings.Contains(s[i+2:i+2+n], "\n") {
			return i + 2, i + 2 + n, true
		}
	case s[i] == '"':
		for k := i + 1; k < len(s) && s[k] != '\n'; k++ {
			switch s[k] {
			case '\\':
				k++
			case '"':
				return i + 1, k, true
			}
		}
	case s[i] == '\'':
		if n := strings.IndexAny(s[i+1:], "'\n"); n >= 0 && s[i+1+n] == '\'' {
			return i + 1, i + 1 + n, true
		}
	}
	return 0, 0, false
}

// skipBlanks returns the index of the first byte at or after i that is
// not a space or a tab.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// isHex reports whether s is made of hexadecimal digits.
func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

// unquote returns the span of a value without its quotes, when it has
// them: "…", '…' or \"…\".
func unquote(s string, start, end int) (int, int) {
	v := s[start:end]
	switch {
	case len(v) >= 4 && strings.HasPrefix(v, `\"`) && strings.HasSuffix(v, `\"`):
		return start + 2, end - 2
	case len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0]:
		return start + 1, end - 1
	}
	return start, end
}

// endsLine reports whether only spaces, or a comma or closing bracket,
// follow position i on its line.
func endsLine(s string, i int) bool {
	i = skipBlanks(s, i)
	return i == len(s) || strings.IndexByte("\r\n,;}])", s[i]) >= 0
}

// looksRandom reports whether a token looks generated rather than a word:
// it holds a digit or a symbol, mixes cases after its first letter, or is
// long.
func looksRandom(tok string) bool {
	if len(tok) >= 20 || strings.ContainsAny(tok, "0123456789._~+/=-") {
		return true
	}
	rest := tok[1:]
	return strings.ToLower(rest) != rest && strings.ToUpper(rest) != rest
}

// placeholders are values that hold no secret.
var placeholders = map[string]bool{
	"true": true, "false": true, "null": true, "nil": true, "none": true, "undefined": true,
	"yes": true, "no": true, "on": true, "off": true, "required": true, "optional": true,
	"str": true, "string": true, "bytes": true, "int": true, "bool": true, "any": true, "secretstr": true,
	"|": true, "|-": true, ">": true, ">-": true, "...": true, "…": true,
	strings.ToLower(Redacted): true, "[redacted]": true, "<redacted>": true, "xxxxx": true,
}

// envReference matches a reference to an environment variable: $NAME,
// ${NAME}, %NAME%.
var envReference = regexp.MustCompile(`^(?:\$\{?[A-Za-z_][A-Za-z0-9_:-]*\}?|%[A-Za-z_][A-Za-z0-9_]*%)$`)

// exempt reports whether v, a value found after a secret's name, is no
// secret: empty, a word such as true or none, a reference to a variable,
// a placeholder (<your-key>, ***), or the start of a structure.
func exempt(v string) bool {
	v = strings.TrimSpace(v)
	switch {
	case v == "" || placeholders[strings.ToLower(v)] || envReference.MatchString(v):
		return true
	case strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">"), strings.HasPrefix(v, "{{"):
		return true
	case strings.Trim(v, "*") == "", len(v) >= 3 && strings.Trim(v, "xX") == "":
		return true
	case v[0] == '{' || v[0] == '[' || v[0] == '(':
		return true
	}
	return false
}

// How secret a name is.
type secrecy int

const (
	notSecret secrecy = iota
	oneToken          // its value is secret when it is one token: no spaces
	anySecret         // its value is secret, spaces and all when quoted
)

// splitWords splits a name into its words, lower-cased: at _ - . and
// between camelCase humps (apiKey, XAuthToken, APIKey).
func splitWords(name string) []string {
	var words []string
	start := -1
	flush := func(i int) {
		if start >= 0 && i > start {
			words = append(words, strings.ToLower(name[start:i]))
		}
		start = -1
	}
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case !isUpper(c) && !isLower(c) && c < 0x80:
			flush(i)
			continue
		case start >= 0 && isUpper(c) && (isLower(name[i-1]) || i+1 < len(name) && isLower(name[i+1]) && isUpper(name[i-1])):
			flush(i)
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(name))
	return words
}

// Words that classify a name's secrecy.
var (
	// strongWords make a name secret wherever they are in it.
	strongWords = map[string]secrecy{
		"password": anySecret, "passwd": anySecret, "passphrase": anySecret, "secret": anySecret,
		"token": oneToken, "apikey": oneToken, "credential": oneToken, "credentials": oneToken,
		"privatekey": oneToken, "secretkey": anySecret, "accesskey": oneToken,
		"passcode": anySecret, "cookie": anySecret, "bearer": oneToken,
	}
	// strongSuffixes make a word that ends with one secret: dbpassword,
	// authtoken, xapikey.
	strongSuffixes = []string{"password", "passwd", "secret", "token", "apikey"}
	// lastWords make a name secret when they end it: db_pass, sig,
	// X-Amz-Signature, auth, GH_PAT, SENTRY_DSN, SLACK_WEBHOOK.
	lastWords = map[string]secrecy{
		"pass": anySecret, "pwd": anySecret, "sig": oneToken, "signature": oneToken, "auth": oneToken,
		"jwt": oneToken, "pat": oneToken, "cred": oneToken, "creds": oneToken, "session": oneToken,
		"private": oneToken, "dsn": anySecret, "webhook": oneToken,
	}
	// alone are the lastWords that are secret only after another word or
	// in a query string: a lone pass is a test's result, pwd the working
	// directory, pat a name.
	alone = toSet("pass", "pwd", "pat")
	// keyQualifiers make a name ending in "key" secret: api_key,
	// x-api-key, secret_key, encryption_key. A key alone is secret only
	// in a query string (Google's ?key=…).
	keyQualifiers = map[string]bool{
		"api": true, "access": true, "secret": true, "private": true, "client": true, "auth": true,
		"master": true, "subscription": true, "encryption": true, "signing": true, "license": true,
		"app": true, "application": true, "consumer": true, "account": true, "storage": true,
		"service": true, "admin": true, "session": true, "shared": true, "hmac": true, "webhook": true,
	}
	// referenceWords end names whose value is about a secret, not the
	// secret itself: token_type, password_file, api_key_env, max_tokens.
	referenceWords = toSet("file", "files", "path", "paths", "dir", "directory", "folder", "url", "uri", "urls",
		"endpoint", "host", "name", "names", "type", "types", "kind", "length", "len", "count", "size", "id", "ids",
		"env", "var", "variable", "ttl", "expiry", "expires", "expiration", "exp", "lifetime", "timeout", "header",
		"field", "policy", "hint", "prompt", "required", "enabled", "method", "methods", "mode", "scheme", "provider",
		"format", "version", "algorithm", "alg", "limit", "limits", "label", "ref", "location", "source", "store",
		"manager", "option", "options", "usage", "budget", "rate", "used", "remaining", "index", "position", "prefix",
		"suffix", "schema", "helper", "command", "cmd", "script", "program", "rotation", "strength", "regex",
		"pattern", "validation", "changed", "updated", "created", "at", "date", "time", "visible", "placeholder",
		"description", "desc", "help", "title", "fingerprint", "min", "max", "chars", "characters", "strategy",
		"backend", "class", "in", "out", "estimate", "counter", "jar")
	// flagWords start names that switch something about a secret on or
	// off, rather than give it: no_password, ask-pass, use_token.
	flagWords = toSet("no", "ask", "prompt", "show", "hide", "use", "with", "without", "require", "requires",
		"skip", "disable", "enable", "allow", "is", "has", "forgot", "check", "min", "max", "num")
	// tokenKinds are tokens of a tokenizer or a paged list, not
	// credentials: eos_token, pad_token, next_page_token.
	tokenKinds = toSet("eos", "bos", "pad", "unk", "stop", "sep", "cls", "mask", "special", "page", "next",
		"continuation", "start", "end", "bad", "added", "sync", "cancellation", "cancel")
)

func toSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// classify says how secret a name of these words is; query says the name
// is that of a query-string parameter, where a key alone is secret.
func classify(words []string, query bool) secrecy {
	if len(words) == 0 {
		return notSecret
	}
	last := words[len(words)-1]
	if len(words) > 1 && (last == "url" || last == "uri") && words[len(words)-2] == "webhook" {
		return oneToken // SLACK_WEBHOOK_URL: the URL is the credential
	}
	if referenceWords[last] || len(words) > 1 && flagWords[words[0]] {
		return notSecret
	}
	if query && len(words) == 1 && last == "key" {
		return anySecret
	}
	found := notSecret
	for _, w := range words {
		kind := strongWords[w]
		for _, suffix := range strongSuffixes {
			if kind == notSecret && len(w) > len(suffix) && strings.HasSuffix(w, suffix) {
				kind = oneToken
				if suffix != "token" && suffix != "apikey" {
					kind = anySecret
				}
			}
		}
		if w == "pwd" && len(words) > 1 {
			kind = anySecret // DB_PWD; PWD alone is the working directory
		}
		if kind == oneToken && strings.HasSuffix(w, "token") {
			for _, other := range words {
				if tokenKinds[other] {
					kind = notSecret
				}
			}
		}
		found = max(found, kind)
	}
	// A lone pass or pwd is a test's result or the working directory,
	// except in a query string.
	if kind, ok := lastWords[last]; ok && (len(words) > 1 || query || !alone[last]) {
		found = max(found, kind)
	}
	if last == "key" && len(words) > 1 && keyQualifiers[words[len(words)-2]] {
		found = max(found, oneToken)
	}
	return found
}

// authSchemes are the schemes an Authorization header's value starts
// with.
var authSchemes = toSet("bearer", "basic", "token", "digest", "negotiate", "apikey", "key", "hmac")

// redactedError is an error whose message has its secrets removed; it
// still matches what it wraps with errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Error returns err with a message that holds none of secrets, nor
// anything shaped like a secret; the error it returns still matches err
// with errors.Is and errors.As.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := New(secrets...).Redact(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}
