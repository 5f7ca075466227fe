// Package model talks to model servers. New returns the model of each
// provider (Ollama, OpenAI-compatible servers, llama.cpp's llama-server,
// Anthropic, Google AI): a Generator, whose Generate takes a typed
// Request and gives a typed Reply (the text, reasoning, tool calls,
// usage, why the reply ended, the model that wrote it and the server's
// address), and a langchaingo llms.Model, whose GenerateContent is
// Generate for langchaingo's callers. Resolve works out a Config's
// provider, address, key and model in one place. Package cassette records
// and replays the calls of a model.
//
//	m, err := model.New(ctx, model.Config{Provider: "ollama", Model: "qwen2.5:7b"})
//	reply, err := m.(model.Generator).Generate(ctx, model.Request{Messages: msgs})
//
// Each wire protocol has one client of its own: Ollama's /api/chat
// (ollama.go), the OpenAI-compatible /v1/chat/completions (openai.go) and
// llama.cpp's /completion (llamacpp.go). Each builds its request body in
// one function, from a call (call.go), as a struct of its protocol
// encoded once, and reads the reply once, line by line, into typed pieces
// (wire.go): text, reasoning, tool calls, usage, the stop reason, or the
// server's error, classified where it is read from the status and the
// server's error body (transport.go). The transport bounds a response's
// bytes, a line of it and the time the server may be silent, and adds to
// a request only the W3C traceparent of the span in its context, if any.
// Anthropic goes through langchaingo's own client.
//
// A model makes one attempt a call: it never sends a request again
// itself. Errors of model calls are *Error values. Those worth making
// again are Temporary, with a RetryReason that says why and whether at
// once (a parameter the server refused, now left out; a context window
// now larger; a kept-alive connection the server closed) or after a wait
// (a server that failed, or asked to wait); the caller's policy makes
// the call again, as package agent's does. Their Fix field, a Setting,
// names the part of Config to change, so that a command line can say
// which of its flags to pass; their message names no flag.
package model
