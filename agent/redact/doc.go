// Package redact removes secrets from text before it is shown, sent to a
// model or kept in a log: the exact secrets in use (an API key, a URL's
// password) and anything shaped like one (a bearer token, a key in a
// query string, a value under a name such as "password").
//
//	r := redact.New(apiKey)
//	safe := r.Redact(text)
//
// It imports nothing of this module, so that every layer that shows or
// keeps outside text can use it.
package redact
