// Package model talks to model servers. New returns a langchaingo
// llms.Model for each provider (Ollama, OpenAI-compatible servers,
// llama.cpp's llama-server, Anthropic, Google AI, and cassettes), whose
// errors say whether to retry and what to change; Resolve works out a
// Config's provider, address, key and model in one place.
//
//	m, err := model.New(ctx, model.Config{Provider: "ollama", Model: "qwen2.5:7b"})
//
// Each wire protocol has one client of its own: Ollama's /api/chat
// (ollama.go), the OpenAI-compatible /v1/chat/completions (openai.go) and
// llama.cpp's /completion (llamacpp.go). Each builds its request body in
// one function, from a call (call.go), and reads the reply once, line by
// line, into typed pieces (wire.go): text, reasoning, tool calls, usage,
// the stop reason, or the server's error, classified where it is read
// from the status and the server's error body (transport.go). The
// transport bounds a response's bytes and the time the server may be
// silent, and adds to a request only the W3C traceparent of the span in
// its context, if any. Anthropic goes through langchaingo's own client.
//
// Errors of model calls are *Error values. Their Fix field, a Setting,
// names the part of Config to change, so that a command line can say which
// of its flags to pass; their message names no flag.
package model
