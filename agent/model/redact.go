package model

import (
	"regexp"
	"strings"
)

// secretInText finds the shapes secrets take in error messages: key=,
// token= and the like in a query, and the value of an Authorization
// header or a bearer token.
var secretInText = regexp.MustCompile(`(?i)(\b(?:api[_-]?key|key|token|access_token|password)=)[^&\s"']+|(\bbearer\s+)[A-Za-z0-9._~+/=-]{4,}|(\bauthorization"?\s*[:=]\s*"?(?:(?:basic|bearer)\s+)?)[^\s"',}]+`)

// redactText returns s with the given secrets, and anything shaped like
// one, replaced by "xxxxx".
func redactText(s string, secrets ...string) string {
	for _, secret := range secrets {
		if len(secret) >= 4 {
			s = strings.ReplaceAll(s, secret, "xxxxx")
		}
	}
	return secretInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretInText.FindStringSubmatch(m)
		for _, prefix := range sub[1:] {
			if prefix != "" {
				return prefix + "xxxxx"
			}
		}
		return "xxxxx"
	})
}

// redactedError is an error whose message has its secrets removed; it
// still matches what it wraps with errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactError returns err with a message that holds none of secrets.
func redactError(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := redactText(msg, secrets...); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}
