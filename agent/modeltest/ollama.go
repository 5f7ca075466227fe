package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// NewOllama starts a fake Ollama server that answers POST /api/chat with
// the replies in order. It streams each reply as NDJSON, a few bytes a
// message, unless the request says "stream": false, and ends with a done
// message that counts the tokens; it cuts replies at the request's
// options.stop, and at its options.num_predict (a token is a streamed
// piece) with the done_reason "length". Like the real server it also answers GET /api/tags with
// the models it knows and GET / with "Ollama is running".
// The caller must Close the server.
func NewOllama(replies []string, opts ...Option) *Server {
	opts = append(slices.Clone(opts), APIKey("")) // Ollama has no keys
	return newServer(ollama{}, replies, opts, func(s *Server, mux *http.ServeMux) {
		mux.HandleFunc("POST /api/chat", s.chat)
		// Ollama's OpenAI-compatible endpoint, which tool calls go through.
		mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.chatIn(openai{}, w, r) })
		mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
			models := []any{}
			for _, m := range s.models() {
				models = append(models, map[string]any{"name": m, "model": m, "modified_at": time.Now(),
					"size": 0, "digest": "", "details": map[string]any{"format": "gguf"}})
			}
			writeJSON(w, http.StatusOK, map[string]any{"models": models})
		})
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "Ollama is running")
		})
	})
}

// ollama is the wire protocol of Ollama's /api/chat.
type ollama struct{}

func (ollama) stops(req map[string]any) []string {
	opts, _ := req["options"].(map[string]any)
	return stopsOf(opts["stop"])
}

func (ollama) answer(w http.ResponseWriter, req map[string]any, name string, rp reply, pace func() bool) {
	reply, calls, thinking := rp.content, rp.calls, rp.thinking
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	var tcs []any
	for _, c := range calls {
		args := c.Arguments
		if s, ok := args.(string); ok {
			var obj any
			if json.Unmarshal([]byte(s), &obj) == nil {
				args = obj
			}
		}
		tcs = append(tcs, map[string]any{"function": map[string]any{"name": c.Name, "arguments": args}})
	}
	if stream, ok := req["stream"].(bool); !ok || stream { // Ollama streams unless told not to
		for _, c := range rp.pieces(thinking) {
			if !pace() {
				return
			}
			enc.Encode(map[string]any{"model": name, "created_at": time.Now(), "done": false,
				"message": map[string]any{"role": "assistant", "content": "", "thinking": c}})
			w.(http.Flusher).Flush()
		}
		thinking = ""
		for _, c := range rp.pieces(reply) {
			if !pace() {
				return
			}
			enc.Encode(map[string]any{"model": name, "created_at": time.Now(), "done": false,
				"message": map[string]any{"role": "assistant", "content": c}})
			w.(http.Flusher).Flush()
		}
		if len(tcs) > 0 {
			// Ollama streams a tool call whole, in a message of its own.
			enc.Encode(map[string]any{"model": name, "created_at": time.Now(), "done": false,
				"message": map[string]any{"role": "assistant", "content": "", "tool_calls": tcs}})
			tcs = nil
		}
		reply = ""
	}
	msg := map[string]any{"role": "assistant", "content": reply}
	if thinking != "" {
		msg["thinking"] = thinking
	}
	if len(tcs) > 0 {
		msg["tool_calls"] = tcs
	}
	done := "stop"
	if rp.cut {
		done = "length"
	}
	enc.Encode(map[string]any{"model": name, "created_at": time.Now(), "done": true, "done_reason": done,
		"message": msg, "prompt_eval_count": 100, "eval_count": 20})
}

func (ollama) error(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"error": message})
}

func (ollama) failure(status int) string {
	if status == http.StatusServiceUnavailable {
		return "server busy, please try again.  maximum pending requests exceeded"
	}
	return strings.ToLower(http.StatusText(status))
}

func (ollama) unknownModel(model string) string {
	return fmt.Sprintf("model %q not found, try pulling it first", model)
}
