package modeltest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Server is a fake model server listening on loopback. Its URL, from the
// embedded httptest.Server, is the base URL to give a client: an Ollama
// client takes it as it is, and an OpenAI client takes it with "/v1"
// appended.
type Server struct {
	*httptest.Server

	cfg     config
	replies []string
	dialect dialect
	// refusesTools makes the server refuse tools with a 400 when its
	// model's template has none ([NoTools]), as Ollama does; llama.cpp
	// ignores them.
	refusesTools bool

	closed  chan struct{} // closed by Close, to release hanging calls
	closing sync.Once

	mu          sync.Mutex
	requests    []map[string]any // the body of every chat call, in order
	sent        map[int]int      // streamed pieces written, by call number from 1
	served      int              // the replies used up
	arrived     []Arrival        // every request, of any path
	connections int              // the connections clients opened
}

// An Arrival is a request that reached a Server, on any path: what a test
// checks of what a client sent, the key above all.
type Arrival struct {
	// Method and Path are the request's, as "POST" and "/api/chat".
	Method, Path string
	// Header is the request's headers, Authorization included.
	Header http.Header
}

// A dialect is the wire protocol of one kind of server.
type dialect interface {
	// stops returns the stop sequences of a chat request.
	stops(req map[string]any) []string
	// answer writes a successful reply to a chat request.
	answer(w http.ResponseWriter, req map[string]any, model string, r reply, pace func() bool)
	// error writes an error response with the real server's body.
	error(w http.ResponseWriter, status int, message string)
	// failure is the real server's message for a call failing with status.
	failure(status int) string
	// unknownModel is the real server's message for a model it lacks.
	unknownModel(model string) string
	// piece writes one streamed piece of a reply's text.
	piece(w http.ResponseWriter, model, content string)
	// streamError writes the error the real server writes into a stream
	// that fails after it began.
	streamError(w http.ResponseWriter, message string)
}

func newServer(d dialect, replies []string, opts []Option, routes func(*Server, *http.ServeMux)) *Server {
	s := &Server{replies: slices.Clone(replies), dialect: d, closed: make(chan struct{}), sent: map[int]int{}}
	for _, opt := range opts {
		opt(&s.cfg)
	}
	mux := http.NewServeMux()
	routes(s, mux)
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.arrived = append(s.arrived, Arrival{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()})
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.mu.Lock()
			s.connections++
			s.mu.Unlock()
		}
	}
	s.Start()
	return s
}

// Arrived returns every request that reached the server so far, of any
// path, in the order they arrived.
func (s *Server) Arrived() []Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.arrived)
}

// Connections returns the number of connections clients opened to the
// server so far: a client that keeps its connections for the calls after
// opens few.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// Close shuts the server down and blocks until all its requests have been
// answered. Calls that [Hang] keeps waiting are cut off first, their
// connections dropped without a response.
func (s *Server) Close() {
	s.closing.Do(func() { close(s.closed) })
	s.Server.Close()
}

// Calls returns the number of chat calls the server has received so far,
// the failed and rejected ones included.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Request returns the decoded JSON body of chat call n, counted from 0, so
// that a test can check what the client sent: the model, the stop
// sequences, the sampling options. It returns nil if there was no call n.
func (s *Server) Request(n int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < 0 || n >= len(s.requests) {
		return nil
	}
	return s.requests[n]
}

// record keeps a chat request and returns its call number, from 1.
func (s *Server) record(req map[string]any) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	return len(s.requests)
}

// take uses up the next reply of the script and returns it.
func (s *Server) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.served
	s.served++
	switch {
	case n < len(s.replies):
		return s.replies[n]
	case s.cfg.repeat && len(s.replies) > 0:
		return s.replies[n%len(s.replies)]
	}
	return OutOfScript
}

// authorized reports whether r carries the API key the server requires.
func (s *Server) authorized(r *http.Request) bool {
	return s.cfg.apiKey == "" || r.Header.Get("Authorization") == "Bearer "+s.cfg.apiKey
}

// chat answers a chat call: it records the request, then hangs, rejects,
// fails or answers it as the options say.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) { s.chatIn(s.dialect, w, r) }

// chatIn answers a chat call in the wire protocol d.
func (s *Server) chatIn(d dialect, w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		d.error(w, http.StatusBadRequest, err.Error())
		return
	}
	n := s.record(req)
	if s.cfg.hang {
		select {
		case <-r.Context().Done():
			return
		case <-s.closed:
			panic(http.ErrAbortHandler) // drop the connection, as a server going away does
		}
	}
	if !s.authorized(r) {
		d.error(w, http.StatusUnauthorized, incorrectKey)
		return
	}
	if p := s.cfg.reject; p != "" {
		opts, _ := req["options"].(map[string]any)
		if _, top := req[p]; top || opts[p] != nil {
			d.error(w, http.StatusBadRequest, fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", p))
			return
		}
	}
	if status := s.cfg.fail[n]; status != 0 {
		if s.cfg.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(s.cfg.retryAfter))
		}
		d.error(w, status, d.failure(status))
		return
	}
	model, _ := req["model"].(string)
	if !s.serves(d, model) {
		d.error(w, http.StatusNotFound, d.unknownModel(model))
		return
	}
	if tools, _ := req["tools"].([]any); s.cfg.noTools && s.refusesTools && len(tools) > 0 {
		d.error(w, http.StatusBadRequest, noTools(model))
		return
	}
	if s.cfg.misbehave != 0 {
		s.misbehave(d, w, r, req, model, s.take())
		return
	}
	content, calls := splitCalls(s.take())
	thinking := ""
	if s.cfg.thinking {
		thinking, content = splitThinking(content)
	}
	if !s.cfg.noStops {
		content = stopAt(content, d.stops(req))
	}
	content, cut := atTokenLimit(content, tokenLimit(req))
	// The fake counts 100 tokens of prompt and 20 of reply. A prompt
	// longer than the window Ollama cuts to it without a word, or refuses
	// when asked not to cut it; a reply that fills the rest it ends there
	// when asked not to shift the window, and counts both.
	prompt, generated := 100, 0
	_, ownAPI := d.(ollama)
	if window := s.window(d, req); window > 0 {
		switch n := promptTokens(req); {
		case n > window && ownAPI && req["truncate"] == false:
			d.error(w, http.StatusBadRequest, "the input length exceeds the context length")
			return
		case n > window:
			prompt = window
		case ownAPI && req["shift"] == false:
			if text, full := atTokenLimit(content, window-n); full {
				content, cut, prompt, generated = text, true, n, window-n
			}
		}
	}
	d.answer(w, req, model, reply{content: content, thinking: thinking, calls: calls, pieces: piecesOf(s.cfg.piece), cut: cut,
		promptTokens: prompt, generated: generated}, s.pace(r, n))
}

// window returns the context window a chat request to d has, in the
// fake's tokens, or 0 for none: the model's ([ContextSize]), or on
// Ollama's own API the request's num_ctx within it, as Ollama loads the
// model with the window asked.
func (s *Server) window(d dialect, req map[string]any) int {
	window := s.cfg.contextSize
	if _, ownAPI := d.(ollama); ownAPI && window > 0 {
		opts, _ := req["options"].(map[string]any)
		if n, ok := opts["num_ctx"].(float64); ok && n > 0 {
			window = min(window, int(n))
		}
	}
	return window
}

// pace is called before each streamed piece of the reply to call n: it
// counts the piece, waits as Slow says, and reports whether the client is
// still there.
func (s *Server) pace(r *http.Request, n int) func() bool {
	return func() bool {
		if s.cfg.pause > 0 {
			select {
			case <-r.Context().Done():
				return false
			case <-s.closed:
				return false
			case <-time.After(s.cfg.pause):
			}
		}
		if r.Context().Err() != nil {
			return false
		}
		s.mu.Lock()
		s.sent[n]++
		s.mu.Unlock()
		return true
	}
}

// Sent returns how many streamed pieces of its reply the server wrote for
// chat call n, counted from 0, before the reply ended or the client hung
// up. A reply sent whole, unstreamed, counts as none.
func (s *Server) Sent(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[n+1]
}

// models lists the models the server knows: the one given with [Model],
// or none when it accepts any.
// latestOf reports whether an Ollama server (d, on either of its APIs)
// reads name as model: a name without a tag is its :latest.
func latestOf(d dialect, name, model string) bool {
	switch d.(type) {
	case ollama, ollamaOpenAI:
		return !strings.Contains(name, ":") && name+":latest" == model
	}
	return false
}

func (s *Server) models() []string {
	if s.cfg.model == "" {
		return []string{}
	}
	return append([]string{s.cfg.model}, s.cfg.others...)
}

// serves reports whether the server, speaking d, serves the model called
// name: any, without Model or Models.
func (s *Server) serves(d dialect, name string) bool {
	if s.cfg.model == "" {
		return true
	}
	for _, m := range s.models() {
		if name == m || latestOf(d, name, m) {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
