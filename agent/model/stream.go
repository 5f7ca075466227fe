package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// asksStream reports whether req asks for a streamed reply ("stream":
// true in its JSON body).
func asksStream(req *http.Request) bool {
	if req.GetBody == nil || req.Method != http.MethodPost {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	var v struct {
		Stream bool `json:"stream"`
	}
	return json.NewDecoder(io.LimitReader(body, 64<<20)).Decode(&v) == nil && v.Stream
}

// asStream returns resp, a whole JSON reply to a request that asked for a
// stream (as some proxies send), as the stream the client reads: the reply
// as the one event or line of a stream, in the framing of the endpoint's
// own streams. A reply it cannot read goes as it came. The body is read
// up to max bytes.
func asStream(path string, resp *http.Response, max int64) (*http.Response, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrReplyTooLarge, max)
	}
	var framed []byte
	var contentType string
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		framed, contentType = openaiChunk(body), "text/event-stream"
	case strings.HasSuffix(path, "/completion"):
		var line bytes.Buffer
		if json.Compact(&line, body) == nil {
			framed, contentType = []byte("data: "+line.String()+"\n\n"), "text/event-stream"
		}
	case strings.HasSuffix(path, "/api/chat"):
		var line bytes.Buffer
		if json.Compact(&line, body) == nil {
			framed, contentType = append(line.Bytes(), '\n'), "application/x-ndjson"
		}
	}
	if framed == nil {
		framed = body
	} else {
		resp.Header = resp.Header.Clone()
		resp.Header.Set("Content-Type", contentType)
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	}
	resp.Body = io.NopCloser(bytes.NewReader(framed))
	return resp, nil
}

// openaiChunk returns an OpenAI chat completion as the events of a stream
// of it: one chunk with the whole message as its delta, its finish reason
// and usage, and the end marker; nil when body is no chat completion.
func openaiChunk(body []byte) []byte {
	var c struct {
		ID      string `json:"id"`
		Created int64  `json:"created"`
		Model   string `json:"model"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Role             string            `json:"role"`
				Content          *string           `json:"content"`
				ReasoningContent string            `json:"reasoning_content,omitempty"`
				ToolCalls        []json.RawMessage `json:"tool_calls,omitempty"`
			} `json:"message"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage,omitempty"`
	}
	if json.Unmarshal(body, &c) != nil || len(c.Choices) == 0 {
		return nil
	}
	type delta struct {
		Role             string           `json:"role,omitempty"`
		Content          *string          `json:"content,omitempty"`
		ReasoningContent string           `json:"reasoning_content,omitempty"`
		ToolCalls        []map[string]any `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	chunk := struct {
		ID      string          `json:"id"`
		Object  string          `json:"object"`
		Created int64           `json:"created"`
		Model   string          `json:"model"`
		Choices []choice        `json:"choices"`
		Usage   json.RawMessage `json:"usage,omitempty"`
	}{ID: c.ID, Object: "chat.completion.chunk", Created: c.Created, Model: c.Model, Usage: c.Usage}
	for _, ch := range c.Choices {
		d := delta{Role: ch.Message.Role, Content: ch.Message.Content, ReasoningContent: ch.Message.ReasoningContent}
		for i, raw := range ch.Message.ToolCalls {
			var call map[string]any
			if json.Unmarshal(raw, &call) == nil {
				call["index"] = i
				d.ToolCalls = append(d.ToolCalls, call)
			}
		}
		chunk.Choices = append(chunk.Choices, choice{Index: ch.Index, Delta: d, FinishReason: ch.FinishReason})
	}
	b, err := json.Marshal(chunk)
	if err != nil {
		return nil
	}
	return []byte("data: " + string(b) + "\n\ndata: [DONE]\n\n")
}
