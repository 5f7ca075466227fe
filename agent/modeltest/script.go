package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/react-agent/react-agent/agent/model"
)

// OutOfScript is the reply to calls past the end of a script when the
// server was not told to [Repeat] it: a final answer, so that an agent
// that asks once too often stops rather than loops.
const OutOfScript = "Thought: I know it now.\nFinal Answer: out of script"

// LoadReplies reads the scripted replies of a fixture: a JSON object whose
// "replies" are the model's replies in order and whose "note" says what
// the script is for. It is an error for the script to have no replies or
// fields other than these two.
func LoadReplies(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("modeltest: %w", err)
	}
	var script struct {
		Note    string   `json:"note"`
		Replies []string `json:"replies"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&script); err != nil {
		return nil, fmt.Errorf("modeltest: %s: %w", path, err)
	}
	if len(script.Replies) == 0 {
		return nil, fmt.Errorf("modeltest: %s: the script has no replies", path)
	}
	return script.Replies, nil
}

// Call is a tool call that a scripted reply makes in the tool-call field
// of the response, as models with native tool calling do.
type Call struct {
	Name string
	// Arguments is the arguments object; a string is sent as it is, so a
	// script can send arguments that are not valid JSON.
	Arguments any
}

// callsMarker starts a scripted reply made with Calls.
const callsMarker = "\x00calls:"

// Calls returns a scripted reply that holds tool calls: the server sends
// content as the reply's text (often empty) and the calls in the tool-call
// field, several of them at once when given several (parallel calls). A
// server asked to stream sends the calls as the real one does: OpenAI's
// in fragments by index, Ollama's whole.
func Calls(content string, calls ...Call) string {
	b, _ := json.Marshal(struct {
		Content string `json:"content"`
		Calls   []Call `json:"calls"`
	}{content, calls})
	return callsMarker + string(b)
}

// splitCalls reads a reply made with Calls; a plain reply has no calls.
func splitCalls(reply string) (content string, calls []Call) {
	rest, ok := strings.CutPrefix(reply, callsMarker)
	if !ok {
		return reply, nil
	}
	var v struct {
		Content string `json:"content"`
		Calls   []Call `json:"calls"`
	}
	json.Unmarshal([]byte(rest), &v)
	return v.Content, v.Calls
}

// argumentsJSON is a call's arguments as the JSON string OpenAI sends.
func (c Call) argumentsJSON() string {
	if s, ok := c.Arguments.(string); ok {
		return s
	}
	b, _ := json.Marshal(c.Arguments)
	return string(b)
}

// reply is what a server sends for one call: the text, the reasoning
// sent apart from it, and the tool calls, and how a stream cuts the text
// into pieces.
type reply struct {
	content  string
	thinking string
	calls    []Call
	pieces   func(string) []string
	cut      bool // the reply stopped at the request's token limit
	// promptTokens is the prompt's length in tokens, as the server counts
	// it (see promptTokens); generated the reply's, or 0 for the fake's
	// usual count.
	promptTokens, generated int
}

// finishReason is the OpenAI finish_reason of the reply: "length" when it
// was cut at the token limit, "tool_calls" when it calls tools, or
// "stop".
func (rp reply) finishReason() string {
	switch {
	case rp.cut:
		return "length"
	case len(rp.calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// piecesOf returns the function that cuts streamed text into pieces of
// size bytes (on character boundaries), or model.Chunks for size 0.
func piecesOf(size int) func(string) []string {
	if size <= 0 {
		return model.Chunks
	}
	return func(text string) []string {
		var out []string
		for len(text) > 0 {
			n := min(len(text), size)
			for n < len(text) && !utf8.RuneStart(text[n]) {
				n++
			}
			out = append(out, text[:n])
			text = text[n:]
		}
		return out
	}
}

// tokenLimit returns the most tokens a request lets the reply have:
// OpenAI's max_tokens or max_completion_tokens, Ollama's
// options.num_predict, llama.cpp's n_predict; 0 for no limit.
func tokenLimit(req map[string]any) int {
	opts, _ := req["options"].(map[string]any)
	for _, v := range []any{req["max_completion_tokens"], req["max_tokens"], opts["num_predict"], req["n_predict"]} {
		if n, ok := v.(float64); ok && n > 0 {
			return int(n)
		}
	}
	return 0
}

// atTokenLimit cuts text after limit tokens, as a server does, and says
// whether it did. A token is one of the pieces a reply is streamed in
// (model.Chunks); a limit of 0 is none.
func atTokenLimit(text string, limit int) (string, bool) {
	if limit <= 0 {
		return text, false
	}
	pieces := model.Chunks(text)
	if len(pieces) <= limit {
		return text, false
	}
	return strings.Join(pieces[:limit], ""), true
}

// splitThinking takes the reasoning in <think>…</think> that opens text
// out of it.
func splitThinking(text string) (thinking, rest string) {
	body, ok := strings.CutPrefix(strings.TrimLeft(text, " \n"), "<think>")
	if !ok {
		return "", text
	}
	thinking, rest, ok = strings.Cut(body, "</think>")
	if !ok {
		return body, ""
	}
	return thinking, strings.TrimLeft(rest, "\n")
}

// stopAt cuts text at the first of the stop sequences, as a server does.
func stopAt(text string, stops []string) string {
	for _, s := range stops {
		if i := strings.Index(text, s); i >= 0 {
			text = text[:i]
		}
	}
	return text
}

// stopsOf returns the stop sequences of a decoded request field: a list
// of strings, or one string as OpenAI also accepts.
func stopsOf(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		if s, ok := s.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// promptTokens counts the tokens of a request's prompt as the fakes do,
// a token every four bytes (see NewLlamaCpp's /tokenize): the text of
// its messages, or its prompt.
func promptTokens(req map[string]any) int {
	n := 0
	if p, ok := req["prompt"].(string); ok {
		n += len(p)
	}
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		switch c := m["content"].(type) {
		case string:
			n += len(c)
		case []any:
			for _, part := range c {
				part, _ := part.(map[string]any)
				text, _ := part["text"].(string)
				n += len(text)
			}
		}
	}
	return max(1, (n+3)/4)
}
