package modeltest

import (
	"github.com/react-agent/react-agent/agent/model"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// NewLlamaCpp starts a fake llama.cpp llama-server that answers its own
// endpoints as the real one does: POST /apply-template renders the
// messages with a ChatML template, POST /completion streams the replies in
// order as server-sent events ({"content", "stop": false} a piece, then
// {"stop": true} with the token counts) or answers with one JSON object
// when the request says "stream": false, cut at the request's "stop"
// strings; GET /props gives the context window (ContextSize, 4096 unless
// told), POST /tokenize counts a token every four bytes, and GET
// /v1/models names llama.cpp as the owner. Like the real server it
// refuses, with a 400 and its message, a lazy grammar with no trigger and
// a trigger of an unknown type; [Server.Request] holds the /completion
// bodies.
// The caller must Close the server.
func NewLlamaCpp(replies []string, opts ...Option) *Server {
	return newServer(llamacpp{}, replies, opts, func(s *Server, mux *http.ServeMux) {
		mux.HandleFunc("POST /completion", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var req map[string]any
			if err := json.Unmarshal(body, &req); err == nil {
				if msg := grammarProblem(req); msg != "" {
					s.record(req)
					llamacpp{}.error(w, http.StatusBadRequest, msg)
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			s.chat(w, r)
		})
		mux.HandleFunc("POST /apply-template", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
				llamacpp{}.error(w, http.StatusBadRequest, "'messages' is required")
				return
			}
			var b strings.Builder
			for _, m := range req.Messages {
				fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
			}
			b.WriteString("<|im_start|>assistant\n" + s.cfg.templateTail)
			writeJSON(w, http.StatusOK, map[string]any{"prompt": b.String()})
		})
		mux.HandleFunc("GET /props", func(w http.ResponseWriter, r *http.Request) {
			n := s.cfg.contextSize
			if n == 0 {
				n = 4096
			}
			writeJSON(w, http.StatusOK, map[string]any{
				"default_generation_settings": map[string]any{"n_ctx": n, "params": map[string]any{"grammar": ""}},
				"total_slots":                 1, "model_path": "models/modeltest.gguf", "build_info": "b0-modeltest"})
		})
		mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Content string `json:"content"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			tokens := []int{}
			for i := 0; i < len(req.Content); i += 4 {
				tokens = append(tokens, 1000+i/4)
			}
			writeJSON(w, http.StatusOK, map[string]any{"tokens": tokens})
		})
		mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
				map[string]any{"id": "modeltest.gguf", "object": "model", "created": 0, "owned_by": "llamacpp"}}})
		})
	})
}

// ContextSize makes a llama.cpp server report n tokens of context in its
// /props.
func ContextSize(n int) Option {
	return func(c *config) { c.contextSize = n }
}

// OpenThinking makes a llama.cpp server's chat template end the prompt
// inside a reasoning block it opens, "<think>\n", as the templates of
// thinking models do.
func OpenThinking() Option {
	return func(c *config) { c.templateTail = "<think>\n" }
}

// grammarProblem returns llama.cpp's message for the grammar fields of a
// /completion request that it refuses, or "".
func grammarProblem(req map[string]any) string {
	triggers, _ := req["grammar_triggers"].([]any)
	for _, t := range triggers {
		m, _ := t.(map[string]any)
		typ, ok := m["type"].(float64)
		if _, hasValue := m["value"].(string); !ok || !hasValue {
			return "[json.exception.out_of_range.403] key 'value' not found"
		}
		if typ < 0 || typ > 3 {
			return "Unknown grammar trigger type"
		}
	}
	if lazy, _ := req["grammar_lazy"].(bool); lazy && len(triggers) == 0 {
		return "Error: no triggers set for lazy grammar!"
	}
	return ""
}

// llamacpp is the wire protocol of llama-server's /completion.
type llamacpp struct{}

func (llamacpp) stops(req map[string]any) []string { return stopsOf(req["stop"]) }

func (llamacpp) answer(w http.ResponseWriter, req map[string]any, _ string, rp reply, pace func() bool) {
	content := rp.content
	if rp.thinking != "" {
		content = "<think>" + rp.thinking + "</think>\n" + content
	}
	prompt, _ := req["prompt"].(string)
	final := map[string]any{"content": "", "stop": true, "stop_type": "eos", "stopping_word": "",
		"tokens_predicted": 20, "tokens_evaluated": 100, "tokens_cached": 0, "truncated": false,
		"timings": map[string]any{"prompt_n": 100, "predicted_n": 20}, "model": "modeltest.gguf", "prompt": prompt}
	if stream, _ := req["stream"].(bool); !stream {
		final["content"] = content
		writeJSON(w, http.StatusOK, final)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	for _, c := range model.Chunks(content) {
		if !pace() {
			return
		}
		send(map[string]any{"content": c, "stop": false, "tokens": []int{}})
	}
	send(final)
}

func (llamacpp) error(w http.ResponseWriter, status int, message string) {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusNotFound:
		typ = "not_found_error"
	case status >= 500:
		typ = "server_error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": message, "type": typ}})
}

func (llamacpp) failure(status int) string {
	if status == http.StatusServiceUnavailable {
		return "Loading model"
	}
	return http.StatusText(status)
}

func (llamacpp) unknownModel(model string) string {
	return fmt.Sprintf("model '%s' not found", model)
}
