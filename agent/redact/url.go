package redact

import (
	"net/url"
	"strings"
)

// HiddenPassword stands in for the password of a URL's user information,
// as net/http's errors write it: http://user:***@host.
const HiddenPassword = "***"

// URL returns raw, a URL, with the password of its user information
// replaced by [HiddenPassword]: "http://bob:hunter2@host/v1" is
// "http://bob:***@host/v1". It hides the password of an address that is
// no valid URL too ("http://bob:hunter2@[::1"), taking the user
// information up to the last "@" of the authority, as Go's URL parser
// does; text without a password comes back as it is.
func URL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		if _, ok := u.User.Password(); !ok {
			return raw
		}
		user := url.User(u.User.Username()).String()
		u.User = url.User(u.User.Username())
		// url.UserPassword would write the stars as %2A.
		return strings.Replace(u.String(), "//"+user+"@", "//"+user+":"+HiddenPassword+"@", 1)
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	user, _, hasPassword := strings.Cut(authority[:at], ":")
	if !hasPassword {
		return raw
	}
	return scheme + "://" + user + ":" + HiddenPassword + rest[at:]
}
