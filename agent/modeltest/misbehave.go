package modeltest

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/react-agent/react-agent/agent/model"
)

// A Misbehaviour is a way a broken or hostile server answers a chat call.
type Misbehaviour int

// The misbehaviours of [Misbehave]. [Hang] is the server that never sends
// its headers.
const (
	// EndlessBody sends a JSON reply whose content never ends.
	EndlessBody Misbehaviour = iota + 1
	// EndlessStream streams pieces of a reply that never ends.
	EndlessStream
	// HangAfterHeaders sends its headers, then nothing, until the client
	// gives up.
	HangAfterHeaders
	// TruncatedStream streams the first half of the reply, then ends the
	// response cleanly, without the end marker ("done": true, or
	// finish_reason and data: [DONE]).
	TruncatedStream
	// HugeLine streams the reply as one line of more than a megabyte (an
	// Ollama message, an OpenAI event), then ends the stream as it should:
	// only the length of the line is wrong, past the bound a client of
	// package model sets on a line (model.MaxLineBytes).
	HugeLine
	// LongLine is HugeLine with a line a few KiB short of the bound a
	// client of package model sets on a line: long, and within it.
	LongLine
	// ErrorInStream streams the first half of the reply, then the error
	// the real server writes into a stream that fails once it has begun,
	// and ends it: llama.cpp's data: {"error": {"code": 500, …}} (as for a
	// reply that is not valid UTF-8), Ollama's {"error": "…"} line (as
	// for a runner that died).
	ErrorInStream
	// RepeatLimit answers as Ollama (v0.24.0) does when the model writes
	// one token more than 30 times in a row: the first piece of the reply
	// 31 times, then the end of the response, with neither the end marker
	// nor an error. Streamed, that is 31 messages (or events) and a clean
	// end; whole, a reply of the 31 pieces with "done": false (or a null
	// finish_reason and no usage). Only Ollama's debug log names it, as
	// "prediction aborted, token repeat limit reached".
	RepeatLimit
	// DroppedConnection streams the first half of the reply, then drops
	// the connection without ending the response, as a server that dies
	// mid-reply does.
	DroppedConnection
)

// repeatLimit is how many times in a row Ollama lets a model write one
// token: it ends the reply at the next.
const repeatLimit = 30

// Misbehave makes every chat call misbehave as m says, after it is
// recorded.
func Misbehave(m Misbehaviour) Option {
	return func(c *config) { c.misbehave = m }
}

// misbehave answers a chat call, req, in the wire protocol d, as
// s.cfg.misbehave says.
func (s *Server) misbehave(d dialect, w http.ResponseWriter, r *http.Request, req map[string]any, name, text string) {
	_, isOllama := d.(ollama)
	piece := func(content string) {
		d.piece(w, name, content)
		w.(http.Flusher).Flush()
	}
	stream := "text/event-stream"
	if isOllama {
		stream = "application/x-ndjson"
	}
	switch s.cfg.misbehave {
	case EndlessBody:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"model":%q,"message":{"role":"assistant","content":"`, name)
		s.endless(w, r, func() { w.Write([]byte(strings.Repeat("a", 32<<10))) })
	case EndlessStream:
		w.Header().Set("Content-Type", stream)
		s.endless(w, r, func() { piece(strings.Repeat("tok ", 64)) })
	case HangAfterHeaders:
		w.Header().Set("Content-Type", stream)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
	case TruncatedStream:
		w.Header().Set("Content-Type", stream)
		piece(text[:len(text)/2])
	case ErrorInStream:
		w.Header().Set("Content-Type", stream)
		piece(text[:len(text)/2])
		d.streamError(w, d.failure(http.StatusInternalServerError))
		w.(http.Flusher).Flush()
	case HugeLine, LongLine:
		w.Header().Set("Content-Type", stream)
		size := 1 << 20
		if s.cfg.misbehave == LongLine {
			size = model.MaxLineBytes - 4<<10
		}
		piece(text + strings.Repeat(" ", size))
		d.answer(w, map[string]any{"stream": true}, name, reply{pieces: piecesOf(0)}, func() bool { return true })
	case RepeatLimit:
		token := piecesOf(s.cfg.piece)(text)[0]
		streamed, _ := req["stream"].(bool)
		if _, set := req["stream"]; isOllama && !set {
			streamed = true // Ollama streams unless told not to
		}
		if !streamed {
			writeJSON(w, http.StatusOK, unfinished(d, name, strings.Repeat(token, repeatLimit+1)))
			return
		}
		w.Header().Set("Content-Type", stream)
		for range repeatLimit + 1 {
			piece(token)
		}
	case DroppedConnection:
		w.Header().Set("Content-Type", stream)
		piece(text[:len(text)/2])
		panic(http.ErrAbortHandler)
	}
}

// unfinished is the whole reply, content, that Ollama sends when it
// stopped the model before the end: its last message, "done": false, on
// its own API; a null finish_reason and no usage on its OpenAI-compatible
// endpoint.
func unfinished(d dialect, name, content string) map[string]any {
	if _, ok := d.(ollama); ok {
		return map[string]any{"model": name, "created_at": time.Now(), "done": false,
			"message": map[string]any{"role": "assistant", "content": content}}
	}
	return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": name,
		"system_fingerprint": "fp_ollama",
		"choices": []any{map[string]any{"index": 0, "finish_reason": nil,
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}
}

// endless calls write until the client hangs up or the server is closed.
func (s *Server) endless(w http.ResponseWriter, r *http.Request, write func()) {
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		default:
			write()
			w.(http.Flusher).Flush()
		}
	}
}
