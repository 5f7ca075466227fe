package logs

import (
	"regexp"
	"strings"
)

// Redacted stands in the log for a secret that was removed.
const Redacted = "REDACTED"

// secretPattern is a pattern of secrets, and the words without one of
// which in the lower-cased text it cannot match: a cheap test that spares
// most text the regular expression.
type secretPattern struct {
	re    *regexp.Regexp
	words []string
}

// secretPatterns match secrets in text. Each keeps in its first group
// what comes before the secret and in its second what follows it, and
// none consumes a quote or a backslash, so that redacting JSON leaves it
// valid.
var secretPatterns = []secretPattern{
	// The password of a URL: scheme://user:password@host.
	{regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"'\\]*:)[^/\s@"'\\]+(@)`), []string{"://"}},
	// Credentials in a query string or a form: ?key=..., &api_key=....
	{regexp.MustCompile(`(?i)([?&;](?:key|api[_-]?key|access[_-]?token|refresh[_-]?token|auth|token|password|passwd|pwd|secret|client[_-]?secret|sig|signature)=)[^&#\s"'\\]+`),
		[]string{"key=", "token=", "auth=", "password=", "passwd=", "pwd=", "secret=", "sig=", "signature="}},
	// Authorization headers, with or without their scheme.
	{regexp.MustCompile(`(?i)((?:proxy-)?authorization"?\s*[:=]\s*"?(?:(?:bearer|basic|token|digest)\s+)?)[^\s"'\\,]+`), []string{"authorization"}},
	// A bearer token anywhere.
	{regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}`), []string{"bearer"}},
	// Secrets named in JSON or YAML: "api_key": "...", password: ....
	{regexp.MustCompile(`(?i)((?:api[_-]?key|apikey|access[_-]?token|secret[_-]?key|client[_-]?secret|password|passwd)"?\s*[:=]\s*"?)[^\s"'\\,}]+`),
		[]string{"key", "token", "secret", "passw"}},
	// Keys by their well-known shapes: OpenAI and Anthropic (sk-...),
	// Google (AIza...), GitHub (ghp_...), Slack (xox?-...), AWS (AKIA...).
	{regexp.MustCompile(`()\b(?:sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})`),
		[]string{"sk-", "aiza", "gh", "xox", "akia"}},
}

// Redact returns s with the secrets it can recognise replaced by
// [Redacted]: passwords in URLs (http://user:pw@host), credentials in
// query strings (?key=..., &token=...), Authorization header values,
// bearer tokens, keys and passwords named in JSON or YAML, and API keys
// of well-known shapes (sk-..., AIza..., ghp_...). It cannot know every
// secret: give the ones in use to [WithSecrets] too.
func Redact(s string) string {
	var lower string
	for _, p := range secretPatterns {
		if lower == "" {
			lower = strings.ToLower(s)
		}
		if !containsAny(lower, p.words) {
			continue
		}
		if r := p.re.ReplaceAllString(s, "${1}"+Redacted+"${2}"); r != s {
			s, lower = r, ""
		}
	}
	return s
}

// containsAny reports whether s contains one of words.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// redactor removes the patterns of Redact and some exact strings.
type redactor struct {
	secrets []string
}

func newRedactor() *redactor { return &redactor{} }

// minSecret is the length under which a string given as a secret is
// ignored.
const minSecret = 8

func (r *redactor) add(secrets ...string) {
	for _, s := range secrets {
		if len(s) >= minSecret {
			r.secrets = append(r.secrets, s)
		}
	}
}

// clean returns s without secrets. Most text has none: it is returned
// as it is, without allocating.
func (r *redactor) clean(s string) string {
	if s == "" {
		return s
	}
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	return Redact(s)
}
