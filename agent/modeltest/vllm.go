package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// NewVLLM starts a fake vLLM server: an OpenAI-compatible server (see
// [NewOpenAI]) whose /v1/models names vLLM as the owner, and which checks
// a request's response_format as vLLM does: a structural tag needs its
// structures (each with a begin, a schema and an end) and its triggers,
// each the start of a structure's begin; one that does not is refused
// with vLLM's 400. [NoStructuralTags] makes it a vLLM from before
// structural tags, which refuses the type.
// The caller must Close the server.
func NewVLLM(replies []string, opts ...Option) *Server {
	return newTagServer("vllm", replies, opts)
}

// NewSGLang starts a fake SGLang server, which takes structural tags as
// [NewVLLM]'s does and names SGLang as the owner of its models.
// The caller must Close the server.
func NewSGLang(replies []string, opts ...Option) *Server {
	return newTagServer("sglang", replies, opts)
}

// NoStructuralTags makes a vLLM or SGLang server refuse response_format
// of type structural_tag with a 400, as versions before it did.
func NoStructuralTags() Option {
	return func(c *config) { c.noTags = true }
}

func newTagServer(owner string, replies []string, opts []Option) *Server {
	return newServer(openai{}, replies, opts, func(s *Server, mux *http.ServeMux) {
		mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var req map[string]any
			if err := json.Unmarshal(body, &req); err == nil {
				if msg := s.formatProblem(req["response_format"]); msg != "" {
					s.record(req)
					writeJSON(w, http.StatusBadRequest, map[string]any{"object": "error", "message": msg,
						"type": "BadRequestError", "param": nil, "code": http.StatusBadRequest})
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			s.chat(w, r)
		})
		mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
			name := s.cfg.model
			if name == "" {
				name = "Qwen/Qwen2.5-7B-Instruct"
			}
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{
				"id": name, "object": "model", "created": 0, "owned_by": owner, "root": name, "max_model_len": 32768}}})
		})
	})
}

// formatProblem returns the server's message for a response_format it
// refuses, or "".
func (s *Server) formatProblem(v any) string {
	rf, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	typ, _ := rf["type"].(string)
	switch typ {
	case "text", "json_object", "json_schema":
		return ""
	case "structural_tag":
		if s.cfg.noTags {
			break
		}
		structures, _ := rf["structures"].([]any)
		triggers, _ := rf["triggers"].([]any)
		if len(structures) == 0 || len(triggers) == 0 {
			return "1 validation error: structural_tag needs structures and triggers"
		}
		var begins []string
		for _, st := range structures {
			m, _ := st.(map[string]any)
			begin, ok1 := m["begin"].(string)
			_, ok2 := m["end"].(string)
			if _, ok3 := m["schema"].(map[string]any); !ok1 || !ok2 || !ok3 {
				return "Invalid structural tag specification."
			}
			begins = append(begins, begin)
		}
		for _, t := range triggers {
			trigger, _ := t.(string)
			found := false
			for _, b := range begins {
				found = found || strings.HasPrefix(b, trigger) && trigger != ""
			}
			if !found {
				return "Invalid structural tag specification."
			}
		}
		return ""
	}
	return fmt.Sprintf("1 validation error for ChatCompletionRequest\nresponse_format.type\n  Input should be 'text', 'json_object' or 'json_schema' [type=literal_error, input_value='%s']", typ)
}
