package modeltest

import (
	"fmt"
	"time"
)

// An Option changes how a Server answers.
type Option func(*config)

type config struct {
	model      string      // the only model served; empty means any
	others     []string    // more models served, beside model
	apiKey     string      // the key an OpenAI client must send; empty means any or none
	fail       map[int]int // HTTP status by call number, from 1
	hang       bool
	repeat     bool
	misbehave  Misbehaviour
	retryAfter int    // seconds, sent with every failure
	reject     string // a parameter refused with a 400
	noStops    bool   // stop sequences are ignored
	pause      time.Duration
	thinking   bool // reasoning goes in a field of its own

	contextSize  int    // the context window: llama.cpp's n_ctx in /props, Ollama's cut
	noTools      bool   // the model's chat template knows no tools
	templateTail string // what llama.cpp's chat template adds after the assistant's turn opens
	noTags       bool   // structural tags are refused, as before vLLM took them
	piece        int    // the bytes of a streamed piece; 0 for model.Chunks
}

// Pieces makes the server stream replies in pieces of n bytes (on
// character boundaries) instead of the few that model.Chunks cuts: one or
// two for a model that streams a token at a time, thousands for a server
// that sends large pieces.
func Pieces(n int) Option {
	return func(c *config) { c.piece = n }
}

// SeparateThinking makes the server send the reasoning that opens a
// scripted reply, in <think>…</think>, in a field of its own, as reasoning
// models do: Ollama's "thinking", OpenAI-compatible servers' (vLLM,
// llama.cpp) "reasoning_content".
func SeparateThinking() Option {
	return func(c *config) { c.thinking = true }
}

// IgnoreStops makes the server ignore the request's stop sequences, as
// some OpenAI-compatible servers do: a scripted reply that runs on past
// its action (into a made-up observation, the next step, a whole made-up
// conversation) is sent whole, unless the client hangs up.
func IgnoreStops() Option {
	return func(c *config) { c.noStops = true }
}

// Slow makes the server wait d before each streamed piece of a reply, as
// a model generating tokens does; a client that hangs up stops the
// stream. [Server.Sent] tells how many pieces went out.
func Slow(d time.Duration) Option {
	return func(c *config) { c.pause = d }
}

// Model makes name the only model the server knows. Calls for any other
// model get the real server's 404 response. Without Model, the server
// accepts any model and answers in its name.
func Model(name string) Option {
	return func(c *config) { c.model = name }
}

// Models makes an Ollama or OpenAI server serve these models alone, as
// Model does one: each listed, and a call of another refused.
func Models(names ...string) Option {
	return func(c *config) {
		if len(names) > 0 {
			c.model, c.others = names[0], names[1:]
		}
	}
}

// APIKey makes an OpenAI server require the header "Authorization: Bearer
// key"; calls without it get the real server's 401 response. Without
// APIKey, any key or none is accepted. Ollama servers, which have no keys,
// ignore it.
func APIKey(key string) Option {
	return func(c *config) { c.apiKey = key }
}

// Fail makes chat call number call, counted from 1, fail with the HTTP
// status and the real server's error body for it. The failed call uses up
// no reply: the next call gets the reply the failed one would have had.
// Fail panics if call is below 1 or status is not an error status (400 to
// 599).
func Fail(call, status int) Option {
	if call < 1 || status < 400 || status > 599 {
		panic(fmt.Sprintf("modeltest: Fail(%d, %d): calls count from 1 and the status must be from 400 to 599", call, status))
	}
	return func(c *config) {
		if c.fail == nil {
			c.fail = make(map[int]int)
		}
		c.fail[call] = status
	}
}

// Hang makes every chat call wait, unanswered, until the client gives up
// (the request's context ends) or the server is closed, which drops the
// connection. The calls are counted and recorded all the same.
func Hang() Option {
	return func(c *config) { c.hang = true }
}

// Repeat makes the server start again from the first reply after the
// last, so that one server can serve several runs of the same script.
// Without Repeat, calls past the end of the script get [OutOfScript].
func Repeat() Option {
	return func(c *config) { c.repeat = true }
}

// RetryAfter makes every failure of [Fail] carry the header Retry-After
// with the given seconds, as a rate-limiting server's 429 does.
func RetryAfter(seconds int) Option {
	return func(c *config) { c.retryAfter = seconds }
}

// Reject makes the server refuse every call that sends the parameter
// param ("stop" or "temperature", at the top of the request or under
// Ollama's "options") with a 400, as OpenAI's reasoning models do.
func Reject(param string) Option {
	return func(c *config) { c.reject = param }
}

// NoTools makes the server's model one whose chat template knows nothing
// of tools: Ollama refuses a request with tools with its 400 ("… does not
// support tools"), and llama.cpp's /props says supports_tool_calls false
// (its /v1/chat/completions ignores the tools, as the real one does).
func NoTools() Option {
	return func(c *config) { c.noTools = true }
}
