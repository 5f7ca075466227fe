package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// NewOpenAI starts a fake OpenAI-compatible server that answers POST
// /v1/chat/completions with the replies in order: as one JSON response,
// or as server-sent events when the request says "stream": true, a few
// bytes a chunk, then a chunk that counts the tokens and "data: [DONE]".
// It cuts replies at the request's stop sequences, and at its max_tokens
// (a token is a streamed piece) with the finish_reason "length". It also answers GET
// /v1/models with the models it knows.
// The caller must Close the server.
func NewOpenAI(replies []string, opts ...Option) *Server {
	return newServer(openai{}, replies, opts, func(s *Server, mux *http.ServeMux) {
		mux.HandleFunc("POST /v1/chat/completions", s.chat)
		mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
			if !s.authorized(r) {
				openai{}.error(w, http.StatusUnauthorized, incorrectKey)
				return
			}
			data := []any{}
			for _, m := range s.models() {
				data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "modeltest"})
			}
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
		})
	})
}

// incorrectKey is OpenAI's message for a missing or wrong API key.
const incorrectKey = "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."

// openai is the wire protocol of OpenAI's /v1/chat/completions.
type openai struct{}

func (openai) stops(req map[string]any) []string { return stopsOf(req["stop"]) }

func (openai) answer(w http.ResponseWriter, req map[string]any, name string, rp reply, pace func() bool) {
	content, calls := rp.content, rp.calls
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
	created := time.Now().Unix()
	finish := rp.finishReason()
	if stream, _ := req["stream"].(bool); !stream {
		msg := map[string]any{"role": "assistant", "content": content}
		if rp.thinking != "" {
			msg["reasoning_content"] = rp.thinking
		}
		if len(calls) > 0 {
			var tcs []any
			for i, c := range calls {
				tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%d", i+1), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.argumentsJSON()}})
			}
			msg["tool_calls"] = tcs
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": "c1", "object": "chat.completion", "created": created, "model": name,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
			"usage":   usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	chunk := func(choices []any) map[string]any {
		return map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": created, "model": name, "choices": choices}
	}
	for _, c := range rp.pieces(rp.thinking) {
		if !pace() {
			return
		}
		send(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"reasoning_content": c}}}))
	}
	for _, c := range rp.pieces(content) {
		if !pace() {
			return
		}
		send(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"content": c}}}))
	}
	for i, c := range calls {
		// The call's header, then its arguments in pieces, by index.
		send(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": fmt.Sprintf("call_%d", i+1), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}}}))
		for _, piece := range rp.pieces(c.argumentsJSON()) {
			send(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": piece}}}}}}))
		}
	}
	send(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}))
	last := chunk([]any{})
	last["usage"] = usage
	send(last)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (openai) error(w http.ResponseWriter, status int, message string) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusNotFound:
		code = "model_not_found"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}})
}

func (openai) failure(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "Rate limit reached for requests. Please try again later."
	case http.StatusInternalServerError:
		return "The server had an error while processing your request. Sorry about that!"
	case http.StatusServiceUnavailable:
		return "The server is overloaded or not ready yet."
	}
	return http.StatusText(status) + "."
}

func (openai) unknownModel(model string) string {
	return fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)
}

func (openai) piece(w http.ResponseWriter, name, content string) {
	b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": name,
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}}}})
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// streamError writes the error event of llama.cpp's OpenAI-compatible
// server, which ends a stream with no finish_reason and no [DONE].
func (openai) streamError(w http.ResponseWriter, message string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 500, "message": message, "type": "server_error"}})
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// ollamaOpenAI is Ollama's form of the OpenAI protocol: every streamed
// chunk repeats the role and a null finish_reason, a tool call comes whole
// in one chunk, the last chunk carries the finish_reason with an empty
// content, the usage comes in a chunk of its own only when the request's
// stream_options ask for it, and errors have a null code.
type ollamaOpenAI struct{ openai }

func (ollamaOpenAI) answer(w http.ResponseWriter, req map[string]any, name string, rp reply, pace func() bool) {
	content, calls := rp.content, rp.calls
	usage := map[string]any{"prompt_tokens": rp.promptTokens, "completion_tokens": 20, "total_tokens": rp.promptTokens + 20}
	created := time.Now().Unix()
	finish := rp.finishReason()
	var tcs []any
	for i, c := range calls {
		tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%08d", i+1), "index": i, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.argumentsJSON()}})
	}
	head := func(object string) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": object, "created": created, "model": name, "system_fingerprint": "fp_ollama"}
	}
	if stream, _ := req["stream"].(bool); !stream {
		msg := map[string]any{"role": "assistant", "content": content}
		if rp.thinking != "" {
			msg["reasoning"] = rp.thinking
		}
		if len(tcs) > 0 {
			msg["tool_calls"] = tcs
		}
		body := head("chat.completion")
		body["choices"] = []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}
		body["usage"] = usage
		writeJSON(w, http.StatusOK, body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		chunk := head("chat.completion.chunk")
		delta["role"] = "assistant"
		chunk["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	for _, c := range rp.pieces(rp.thinking) {
		if !pace() {
			return
		}
		send(map[string]any{"content": "", "reasoning": c}, nil)
	}
	for _, c := range rp.pieces(content) {
		if !pace() {
			return
		}
		send(map[string]any{"content": c}, nil)
	}
	if len(tcs) > 0 {
		send(map[string]any{"content": "", "tool_calls": tcs}, nil)
	}
	send(map[string]any{"content": ""}, finish)
	if opts, _ := req["stream_options"].(map[string]any); opts["include_usage"] == true {
		chunk := head("chat.completion.chunk")
		chunk["choices"], chunk["usage"] = []any{}, usage
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// piece writes a chunk as Ollama streams one: with the role, and a null
// finish_reason.
func (ollamaOpenAI) piece(w http.ResponseWriter, name, content string) {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": time.Now().Unix(),
		"model": name, "system_fingerprint": "fp_ollama",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": content}, "finish_reason": nil}}})
	fmt.Fprintf(w, "data: %s\n\n", b)
}

func (ollamaOpenAI) error(w http.ResponseWriter, status int, message string) {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusNotFound:
		typ = "not_found_error"
	case status >= 500:
		typ = "api_error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": nil}})
}

func (ollamaOpenAI) failure(status int) string { return ollama{}.failure(status) }

func (ollamaOpenAI) unknownModel(model string) string { return ollama{}.unknownModel(model) }
