package modeltest

import (
	"fmt"
	"net/http"
	"strings"
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
	// only the length of the line is wrong.
	HugeLine
	// ErrorInStream streams the first half of the reply, then the error
	// the real server writes into a stream that fails once it has begun,
	// and ends it: llama.cpp's data: {"error": {"code": 500, …}} (as for a
	// reply that is not valid UTF-8), Ollama's {"error": "…"} line (as
	// for a runner that died).
	ErrorInStream
)

// Misbehave makes every chat call misbehave as m says, after it is
// recorded.
func Misbehave(m Misbehaviour) Option {
	return func(c *config) { c.misbehave = m }
}

// misbehave answers a chat call as s.cfg.misbehave says.
func (s *Server) misbehave(w http.ResponseWriter, r *http.Request, name, text string) {
	_, isOllama := s.dialect.(ollama)
	piece := func(content string) {
		s.dialect.piece(w, name, content)
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
		s.dialect.streamError(w, s.dialect.failure(http.StatusInternalServerError))
		w.(http.Flusher).Flush()
	case HugeLine:
		w.Header().Set("Content-Type", stream)
		piece(text + strings.Repeat(" ", 1<<20))
		s.dialect.answer(w, map[string]any{"stream": true}, name, reply{pieces: piecesOf(0)}, func() bool { return true })
	}
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
