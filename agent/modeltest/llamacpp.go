package modeltest

import (
	"github.com/react-agent/react-agent/agent/model"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// NewLlamaCpp starts a fake llama.cpp llama-server that answers its own
// endpoints as the real one does: POST /apply-template renders the
// messages with a ChatML template, POST /completion streams the replies in
// order as server-sent events ({"content", "stop": false} a piece, then
// {"stop": true} with the token counts) or answers with one JSON object
// when the request says "stream": false, cut at the request's "stop"
// strings and at its n_predict (stop_type "limit"); GET /props gives the
// context window (ContextSize, 4096 unless told) and whether the chat
// template takes tools ([NoTools]), POST /tokenize counts a token every
// four bytes, GET /v1/models names llama.cpp as the owner, GET /health
// says it is ready, another path is a 404 in llama.cpp's words, and POST
// /v1/chat/completions answers as llama-server's OpenAI-compatible
// endpoint does, ignoring the tools of a template without them. Like the
// real server it refuses, with a 400 and its message, a lazy grammar with
// no trigger, a trigger of an unknown type and a prompt longer than the
// context window (exceed_context_size_error); [Server.Request] holds the
// /completion bodies.
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
				if n, window := promptTokens(req), s.cfg.contextSize; window > 0 && n > window {
					s.record(req)
					writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400,
						"message":         fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", n, window),
						"type":            "exceed_context_size_error",
						"n_prompt_tokens": n, "n_ctx": window}})
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			s.chat(w, r)
		})
		// The OpenAI-compatible endpoint, which tool calls go through.
		mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.chatIn(llamaOpenAI{}, w, r) })
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
			tools := !s.cfg.noTools
			writeJSON(w, http.StatusOK, map[string]any{
				"default_generation_settings": map[string]any{"n_ctx": n, "params": map[string]any{"n_predict": -1, "temperature": 0.8}},
				"total_slots":                 1, "model_path": "models/modeltest.gguf", "build_info": "b0-modeltest",
				"chat_template_caps": map[string]any{"supports_parallel_tool_calls": tools, "supports_preserve_reasoning": false,
					"supports_string_content": true, "supports_system_role": true, "supports_tool_calls": tools,
					"supports_tools": tools, "supports_typed_content": false}})
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
		mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
		})
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			llamacpp{}.error(w, http.StatusNotFound, "File Not Found") // Ollama's /api/version, say
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
	stopType := "eos"
	if rp.cut {
		stopType = "limit"
	}
	final := map[string]any{"content": "", "stop": true, "stop_type": stopType, "stopping_word": "",
		"tokens_predicted": 20, "tokens_evaluated": rp.promptTokens, "tokens_cached": 0, "truncated": false,
		"timings": map[string]any{"prompt_n": rp.promptTokens, "predicted_n": 20}, "model": "modeltest.gguf", "prompt": prompt}
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
	for i, c := range model.Chunks(content) {
		if !pace() {
			return
		}
		send(map[string]any{"index": 0, "content": c, "stop": false, "tokens": []int{}, "id_slot": -1,
			"tokens_predicted": i + 1, "tokens_evaluated": rp.promptTokens})
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

func (llamacpp) piece(w http.ResponseWriter, _, content string) {
	b, _ := json.Marshal(map[string]any{"index": 0, "content": content, "tokens": []int{}, "stop": false,
		"id_slot": -1, "tokens_predicted": 1, "tokens_evaluated": 1})
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// streamError writes llama-server's error event, which ends a stream
// with no final event.
func (llamacpp) streamError(w http.ResponseWriter, message string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 500, "message": message, "type": "server_error"}})
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// llamaOpenAI is llama-server's form of the OpenAI protocol: a first
// chunk with the role and a null content, a tool call's arguments in
// pieces after a chunk with its name, a last chunk with the finish_reason,
// an empty delta and the timings, the usage in a chunk of its own only
// when the request's stream_options ask for it, and llama.cpp's errors.
type llamaOpenAI struct{ llamacpp }

func (llamaOpenAI) stops(req map[string]any) []string { return stopsOf(req["stop"]) }

func (llamaOpenAI) answer(w http.ResponseWriter, req map[string]any, _ string, rp reply, pace func() bool) {
	const name = "modeltest.gguf" // llama-server names the model it loaded, whatever was asked
	usage := map[string]any{"completion_tokens": 20, "prompt_tokens": rp.promptTokens, "total_tokens": rp.promptTokens + 20}
	timings := map[string]any{"prompt_n": rp.promptTokens, "predicted_n": 20}
	created := time.Now().Unix()
	finish := rp.finishReason()
	head := func(object string) map[string]any {
		return map[string]any{"id": "chatcmpl-modeltest", "object": object, "created": created, "model": name,
			"system_fingerprint": "b0-modeltest"}
	}
	if stream, _ := req["stream"].(bool); !stream {
		msg := map[string]any{"role": "assistant", "content": rp.content}
		if rp.thinking != "" {
			msg["reasoning_content"] = rp.thinking
		}
		if len(rp.calls) > 0 {
			var tcs []any
			for i, c := range rp.calls {
				tcs = append(tcs, map[string]any{"type": "function", "id": fmt.Sprintf("call%029d", i+1),
					"function": map[string]any{"name": c.Name, "arguments": c.argumentsJSON()}})
			}
			msg["tool_calls"] = tcs
		}
		body := head("chat.completion")
		body["choices"] = []any{map[string]any{"finish_reason": finish, "index": 0, "message": msg}}
		body["usage"], body["timings"] = usage, timings
		writeJSON(w, http.StatusOK, body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(chunk map[string]any) {
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	delta := func(d map[string]any, finish any) map[string]any {
		c := head("chat.completion.chunk")
		c["choices"] = []any{map[string]any{"finish_reason": finish, "index": 0, "delta": d}}
		return c
	}
	send(delta(map[string]any{"role": "assistant", "content": nil}, nil))
	for _, c := range rp.pieces(rp.thinking) {
		if !pace() {
			return
		}
		send(delta(map[string]any{"reasoning_content": c}, nil))
	}
	for _, c := range rp.pieces(rp.content) {
		if !pace() {
			return
		}
		send(delta(map[string]any{"content": c}, nil))
	}
	for i, c := range rp.calls {
		args := c.argumentsJSON()
		first, rest := args[:min(1, len(args))], args[min(1, len(args)):]
		send(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call%029d", i+1), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": first}}}}, nil))
		for _, piece := range rp.pieces(rest) {
			send(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}, nil))
		}
	}
	last := delta(map[string]any{}, finish)
	opts, _ := req["stream_options"].(map[string]any)
	if opts["include_usage"] != true {
		last["timings"] = timings // else they come with the usage
	}
	send(last)
	if opts["include_usage"] == true {
		c := head("chat.completion.chunk")
		c["choices"], c["usage"], c["timings"] = []any{}, usage, timings
		send(c)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
