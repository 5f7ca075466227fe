// Package model talks to model servers: it builds a langchaingo model for
// each provider (Ollama, OpenAI-compatible servers, llamafile, Anthropic,
// Google AI, and cassettes), classifies the errors of model calls so that
// callers know whether to retry and what to change, reads token usage, and
// records and replays conversations as JSONL cassettes.
//
//	m, err := model.New(ctx, model.Config{Provider: "ollama", Model: "qwen2.5:7b"})
//
// Errors of model calls are *Error values. Their Fix field, a Setting,
// names the part of Config to change, so that a command line can say which
// of its flags to pass; their message names no flag.
package model
