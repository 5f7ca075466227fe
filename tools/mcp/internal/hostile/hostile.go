// Package hostile is an MCP server over HTTP that attacks its client, for
// the tests of package mcp and for measuring react-agent against it. It
// speaks just enough of the streamable HTTP transport (and of the older
// SSE transport) for a client to connect and list one tool, flood, whose
// call is the attack.
package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Attack names what the server does wrong.
type Attack string

// The attacks.
const (
	// EndlessJSON answers a call with a JSON body that never ends.
	EndlessJSON Attack = "endless-json"
	// EndlessEvent answers a call with an event stream whose one event
	// never ends.
	EndlessEvent Attack = "endless-event"
	// BigJSON answers a call with a JSON body of Size bytes.
	BigJSON Attack = "big-json"
	// BigEvent answers a call with an event stream whose one event holds
	// Size bytes.
	BigEvent Attack = "big-event"
	// Pages lists its tools in pages of Size bytes, each with a
	// nextCursor, forever.
	Pages Attack = "pages"
	// BigError answers a call with an isError result of Size bytes.
	BigError Attack = "big-error"
	// BigRPCError answers a call with a JSON-RPC error whose message
	// holds Size bytes.
	BigRPCError Attack = "big-rpc-error"
	// EventFlood answers a call with an event stream of notifications of
	// Size bytes each, forever.
	EventFlood Attack = "event-flood"
	// EndlessSSE serves the older SSE transport, and answers a call with
	// an event on its stream that never ends.
	EndlessSSE Attack = "endless-sse"
	// SSEFlood serves the older SSE transport, and answers a call with
	// notifications of Size bytes each on its stream, forever.
	SSEFlood Attack = "sse-flood"
)

// Server is a hostile MCP server. Serve it with net/http.
type Server struct {
	// Attack is what it does wrong.
	Attack Attack
	// Size is the size of a finite attack's reply or page, in bytes.
	Size int

	mu     sync.Mutex
	stream chan []byte // the older SSE transport's replies
}

// message is a JSON-RPC message as the server reads it.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Cursor          string `json:"cursor"`
	} `json:"params"`
}

// ServeHTTP answers one request of the client.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.Attack == EndlessSSE || s.Attack == SSEFlood {
		s.serveSSE(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet:
		http.Error(w, "no stream here", http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		return
	}
	var m message
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	w.Header().Set("Mcp-Session-Id", "hostile")
	if m.Method == "tools/call" {
		s.attack(w, m.ID)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.reply(m))
}

// reply is the answer to a request other than a call.
func (s *Server) reply(m message) []byte {
	var result any
	switch m.Method {
	case "initialize":
		result = map[string]any{
			"protocolVersion": m.Params.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "hostile", "version": "1.0.0"},
		}
	case "tools/list":
		return s.list(m)
	default:
		return frame(m.ID, `"error":{"code":-32601,"message":"no such method"}`)
	}
	b, _ := json.Marshal(result)
	return frame(m.ID, `"result":`+string(b))
}

// tool is the one tool the server lists.
const tool = `{"name":"flood","description":"Answers with more than a client can take.","inputSchema":{"type":"object","properties":{}}}`

// list answers tools/list: the tool flood, or under the attack Pages a
// page of Size bytes of tools that leads to another.
func (s *Server) list(m message) []byte {
	if s.Attack != Pages {
		return frame(m.ID, `"result":{"tools":[`+tool+`]}`)
	}
	page, _ := strconv.Atoi(m.Params.Cursor)
	var b strings.Builder
	b.WriteString(`"result":{"tools":[`)
	for i := 0; i == 0 || b.Len() < s.Size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d_%d","description":"%s","inputSchema":{"type":"object"}}`, page, i, strings.Repeat("x", 4000))
	}
	fmt.Fprintf(&b, `],"nextCursor":"%d"}`, page+1)
	return frame(m.ID, b.String())
}

// frame is a JSON-RPC response with the given id and body.
func frame(id json.RawMessage, body string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,` + body + `}`)
}

// textResult opens a result of one text content, to be followed by the
// text and textEnd.
func textResult(id json.RawMessage, isError bool) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"isError":` + strconv.FormatBool(isError) + `,"content":[{"type":"text","text":"`
}

const textEnd = `"}]}}`

// attack answers a call.
func (s *Server) attack(w http.ResponseWriter, id json.RawMessage) {
	switch s.Attack {
	case EndlessJSON, BigJSON, BigError:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, textResult(id, s.Attack == BigError))
		if s.Attack == EndlessJSON {
			endless(w)
			return
		}
		writeN(w, s.Size)
		io.WriteString(w, textEnd)
	case BigRPCError:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32000,"message":"`)
		writeN(w, s.Size)
		io.WriteString(w, `"}}`)
	case EventFlood:
		w.Header().Set("Content-Type", "text/event-stream")
		flood(w, s.Size)
	case EndlessEvent, BigEvent:
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: "+textResult(id, false))
		if s.Attack == EndlessEvent {
			endless(w)
			return
		}
		writeN(w, s.Size)
		io.WriteString(w, textEnd+"\n\n")
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, textResult(id, false)+"flooded"+textEnd)
	}
}

// flood writes notifications of n bytes as events to w until the client
// goes.
func flood(w io.Writer, n int) {
	event := []byte(`event: message` + "\n" + `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` +
		strings.Repeat("a", n) + `"}}` + "\n\n")
	for {
		if _, err := w.Write(event); err != nil {
			return
		}
	}
}

// chunk is what the attacks write at a time.
var chunk = []byte(strings.Repeat("a", 64<<10))

// endless writes to w until the client goes.
func endless(w io.Writer) {
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// writeN writes n bytes to w.
func writeN(w io.Writer, n int) {
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		n -= k
	}
}

// serveSSE serves the older SSE transport: a GET opens the stream and
// names the endpoint to post to; the replies to the posts go on the
// stream.
func (s *Server) serveSSE(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.stream == nil {
		s.stream = make(chan []byte, 16)
	}
	stream := s.stream
	s.mu.Unlock()
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/event-stream")
		bw := bufio.NewWriter(w)
		fmt.Fprintf(bw, "event: endpoint\ndata: /message\n\n")
		bw.Flush()
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case b := <-stream:
				if b == nil && s.Attack == SSEFlood {
					flood(w, s.Size)
					return
				}
				if b == nil { // the call: an event that never ends
					io.WriteString(w, "event: message\ndata: ")
					endless(w)
					return
				}
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
				w.(http.Flusher).Flush()
			}
		}
	}
	var m message
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	switch {
	case m.ID == nil:
	case m.Method == "tools/call":
		stream <- nil
	default:
		stream <- s.reply(m)
	}
}
