package model

import "strings"

// AtTokenLimit reports whether a response's stop reason
// (llms.ContentChoice.StopReason) says that the server stopped the reply
// at its token limit, before the model ended it: "length" from OpenAI and
// the servers that speak its protocol, and from Ollama (whose done_reason
// the model reads, since langchaingo's client drops it); "limit" from
// llama.cpp's /completion (its stop_type, and a reply it truncated because
// the context ran out); "max_tokens" from Anthropic; MAX_TOKENS from
// Google.
func AtTokenLimit(stopReason string) bool {
	r := strings.ToLower(strings.TrimSpace(stopReason))
	r = strings.TrimPrefix(strings.NewReplacer("_", "", " ", "", "-", "").Replace(r), "finishreason")
	return r == "length" || r == "maxtokens" || r == "limit"
}
