package cli

import "strings"

// secretFlags are the flags whose values hold secrets: the API key whole,
// and in the others the password of a server's URL (in eval's --models,
// of each model's server).
var secretFlags = map[string]bool{"api-key": true, "base-url": true, "search-url": true, "models": true}

// argSecret is where a secret lies in a command line: args[arg][start:end].
type argSecret struct{ arg, start, end int }

// argSecrets returns where the secrets of the command line args lie: the
// value of --api-key, and the password of a URL in the value of
// --base-url, --search-url and --models, given as the flag's next
// argument or after "=". Nothing after "--" is a flag's.
func argSecrets(args []string) []argSecret {
	var found []argSecret
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, eq := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !secretFlags[name] {
			continue
		}
		at := len(a) - len(value)
		if !eq {
			if i+1 == len(args) {
				break
			}
			i++
			value, at = args[i], 0
		}
		if name == "api-key" {
			found = append(found, argSecret{i, at, at + len(value)})
			continue
		}
		for _, span := range urlPasswords(value) {
			found = append(found, argSecret{i, at + span[0], at + span[1]})
		}
	}
	return found
}

// urlPasswords returns where the passwords of the URLs in s lie, as
// [start, end) byte offsets: of each "scheme://user:password@host" in s,
// whose authority ends at the first "/", "?" or "#" after "://", as Go's
// URL parser reads it, and whose user information ends at the last "@"
// of the authority. In a list of models with their servers
// ("openai:m@http://bob:pw@h,ollama:q@http://h2"), where a URL without a
// path runs into the next, a span may take more than the password.
func urlPasswords(s string) [][2]int {
	var spans [][2]int
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return spans
		}
		start := i + j + len("://")
		end := start
		for end < len(s) && !strings.ContainsRune("/?#", rune(s[end])) {
			end++
		}
		authority := s[start:end]
		if at := strings.LastIndex(authority, "@"); at >= 0 {
			if colon := strings.IndexByte(authority[:at], ':'); colon >= 0 && colon+1 < at {
				spans = append(spans, [2]int{start + colon + 1, start + at})
			}
		}
		i = start
	}
}
