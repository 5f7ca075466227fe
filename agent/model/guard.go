package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Sentinel causes of a reply the transport refused to take, for errors.Is.
var (
	// ErrReplyTooLarge means a reply grew past Config.MaxReplyBytes.
	ErrReplyTooLarge = errors.New("the reply is larger than allowed")
	// ErrIncomplete means a streamed reply ended before the server said
	// it was complete: the connection dropped, or the server stopped
	// mid-reply. Such a call is retried like any transient failure.
	ErrIncomplete = errors.New("the reply ended before the server finished it")
	// ErrIdle means the server sent nothing for Config.IdleTimeout, before
	// its headers or in the middle of a reply.
	ErrIdle = errors.New("the server sent nothing for too long")
	// ErrRepeatLimit means Ollama ended a reply without saying it was
	// done, as it does (v0.24.0) when the model writes one token more
	// than 30 times in a row: only its debug log says why ("token repeat
	// limit reached"). It matches ErrIncomplete too. A model that looped
	// at temperature 0 loops again on the same prompt, so such a call is
	// worth one more try at most.
	ErrRepeatLimit = fmt.Errorf("%w: Ollama stopped it, as it does when the model writes one token more than 30 times in a row", ErrIncomplete)
)

// Defaults of the bounds on a model call.
const (
	// DefaultMaxReplyBytes bounds the bytes of one response body.
	DefaultMaxReplyBytes = 4 << 20
	// DefaultIdleTimeout bounds the time without a byte from the server.
	// It is long, because a server that does not stream sends nothing
	// until the whole reply is written.
	DefaultIdleTimeout = 5 * time.Minute
	// connectTimeout bounds making the connection.
	connectTimeout = 15 * time.Second
	// maxOllamaLine is the longest line langchaingo's Ollama client reads;
	// it drops the rest of a reply, silently, at a longer one.
	maxOllamaLine = 512 * 1000
	// maxOpenAIEvent is the longest line of an event stream langchaingo's
	// OpenAI client reads (a bufio.Scanner's default bound); it fails
	// with "token too long" at a longer one, which says nothing of why.
	maxOpenAIEvent = bufio.MaxScanTokenSize
)

// watchKey is the context key of a call's watch.
type watchKey struct{}

// watch collects what the transport found wrong with a call's response,
// for clients that drop the errors of their reads (langchaingo's Ollama
// client ends a stream without a word when its reader fails).
type watch struct {
	mu       sync.Mutex
	err      error
	thinking strings.Builder // Ollama's "thinking", which its client drops
	// onThink, when set, is passed each piece of thinking as it is read,
	// on the goroutine that reads the response.
	onThink func(string)
	done    string // Ollama's "done_reason", which its client drops too
}

// doneReason keeps why the server said the reply ended.
func (w *watch) doneReason(reason string) {
	if w == nil || reason == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = reason
}

// StopReason returns why the server said the reply ended, when the
// client dropped it: Ollama's done_reason ("stop", "length").
func (w *watch) StopReason() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

// think adds a piece of the reasoning a server sent apart from the reply.
func (w *watch) think(s string) {
	if w == nil || s == "" {
		return
	}
	w.mu.Lock()
	w.thinking.WriteString(s)
	onThink := w.onThink
	w.mu.Unlock()
	if onThink != nil {
		onThink(s)
	}
}

// Thinking returns the reasoning the server sent apart from the reply.
func (w *watch) Thinking() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.thinking.String()
}

// withWatch returns ctx with a new watch for the call made with it.
func withWatch(ctx context.Context) (context.Context, *watch) {
	w := &watch{}
	return context.WithValue(ctx, watchKey{}, w), w
}

func (w *watch) fail(err error) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// Err returns the first problem found, or nil.
func (w *watch) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// bounds are the limits the transport puts on every call.
type bounds struct {
	maxReply int64
	idle     time.Duration
	maxLine  int      // the longest line the client reads, or 0 for no limit
	maxEvent int      // the longest line of an event stream the client reads, or 0
	ollama   bool     // the server is Ollama (see ErrRepeatLimit)
	drop     *dropped // the parameters the server refused
}

// guard starts watching a request: it ends it when the server is idle for
// too long, and returns the request to send and a function to call when
// the call is over.
func (b bounds) guard(req *http.Request) (*http.Request, *idleTimer) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w, _ := req.Context().Value(watchKey{}).(*watch)
	it := &idleTimer{cancel: cancel, watch: w, idle: b.idle}
	it.timer = time.AfterFunc(b.idle, it.fire)
	return req.WithContext(ctx), it
}

// idleTimer ends a request that has been idle for too long.
type idleTimer struct {
	timer  *time.Timer
	cancel context.CancelCauseFunc
	watch  *watch
	idle   time.Duration
}

func (it *idleTimer) fire() {
	err := fmt.Errorf("%w (%s)", ErrIdle, it.idle)
	it.watch.fail(err)
	it.cancel(err)
}

// touch restarts the idle time after bytes arrived.
func (it *idleTimer) touch() { it.timer.Reset(it.idle) }

// stop ends the watch of a finished call.
func (it *idleTimer) stop() {
	it.timer.Stop()
	it.cancel(nil)
}

// guardedBody is a response body read within the bounds: at most maxReply
// bytes, never idle for longer than the idle time, and, for a stream,
// complete only when the server said so.
type guardedBody struct {
	rc       io.ReadCloser
	ctx      context.Context // the request's: ended when the call is given up
	idle     *idleTimer
	watch    *watch
	max, n   int64 // the bytes allowed, and read
	stream   streamKind
	ollama   bool // the server is Ollama, which ends a looping reply without its end marker
	done     bool // the stream's end was seen
	lines    int  // the lines of the stream that held something
	line     int  // bytes since the last line end
	maxLine  int  // the longest line the client reads, or 0
	tail     []byte
	finished bool
	pending  []byte // an NDJSON line not yet ended, when it may hold thinking
}

// streamKind says how a streamed response marks its end.
type streamKind int

const (
	notStream        streamKind = iota
	sseStream                   // OpenAI: data: [DONE], or a finish_reason
	ndjsonStream                // Ollama: "done":true
	completionStream            // llama.cpp's /completion: "stop":true
	// wholeCompletion is an OpenAI chat completion sent whole by Ollama,
	// which leaves its finish_reason null when it stopped the model (see
	// ErrRepeatLimit): it is read as a stream of one event.
	wholeCompletion
)

func streamOf(resp *http.Response) streamKind {
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	switch {
	case strings.Contains(ct, "text/event-stream"):
		return sseStream
	case strings.Contains(ct, "ndjson"):
		return ndjsonStream
	}
	return notStream
}

func (g *guardedBody) Read(p []byte) (int, error) {
	if g.finished {
		return 0, io.EOF
	}
	n, err := g.rc.Read(p)
	if n > 0 {
		g.idle.touch()
		g.n += int64(n)
		if g.n > g.max {
			return g.failRead(fmt.Errorf("%w: more than %d bytes", ErrReplyTooLarge, g.max))
		}
		if lerr := g.scan(p[:n]); lerr != nil {
			return g.failRead(lerr)
		}
	}
	switch {
	case err == nil, g.stream == notStream, g.done:
	case errors.Is(err, io.EOF) && g.ollama && g.lines > 0:
		// The response ended as it should, but for its end marker:
		// Ollama ends a reply so only at its token repeat limit (an
		// error it would have said, and a server that died cuts the
		// response short).
		return g.failRead(ErrRepeatLimit)
	case errors.Is(err, io.EOF):
		return g.failRead(fmt.Errorf("%w: the stream stopped without its end marker", ErrIncomplete))
	case g.ctx.Err() == nil:
		// The connection dropped mid-reply, which some clients take
		// for the end of the reply, without a word.
		return g.failRead(fmt.Errorf("%w: %w", ErrIncomplete, err))
	}
	return n, err
}

// failRead records err for the call and ends the body with it.
func (g *guardedBody) failRead(err error) (int, error) {
	g.watch.fail(err)
	g.finished = true
	return 0, err
}

// scan looks through a piece of a stream for its end marker and, in
// NDJSON, for a line longer than the client reads.
func (g *guardedBody) scan(b []byte) error {
	if g.maxLine > 0 {
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			g.line = len(b) - i - 1
		} else {
			g.line += len(b)
		}
		if g.line >= g.maxLine {
			// The client stops reading here, and may say nothing.
			return fmt.Errorf("%w: a line of the reply is longer than the %d bytes the client reads", ErrReplyTooLarge, g.maxLine)
		}
	}
	if g.stream == notStream {
		return nil
	}
	g.scanMarker(b)
	return g.scanLines(b)
}

// maxThinkingLine bounds the line kept to read a thinking field, or an
// error, from.
const maxThinkingLine = 1 << 20

// scanLines reads the lines of a stream as they end: an error the server
// sent in the middle of it (llama-server's `data: {"error": …}`, Ollama's
// `{"error": …}`), which ends the body, and in Ollama's NDJSON what
// langchaingo's client drops (see readOllama).
func (g *guardedBody) scanLines(b []byte) error {
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		piece := b
		if nl >= 0 {
			piece = b[:nl]
		}
		if len(g.pending)+len(piece) <= maxThinkingLine {
			g.pending = append(g.pending, piece...)
		}
		if nl < 0 {
			return nil
		}
		line := bytes.TrimSpace(g.pending)
		if len(line) > 0 {
			g.lines++
		}
		if err := streamError(line); err != nil {
			return err
		}
		if g.stream == ndjsonStream {
			g.readOllama(line)
		}
		g.pending = g.pending[:0]
		b = b[nl+1:]
	}
	return nil
}

// readOllama reads what langchaingo's client drops from one of Ollama's
// NDJSON messages: the "thinking", so that the reasoning is shown, and the
// "done_reason", so that a reply cut at the token limit is known.
func (g *guardedBody) readOllama(line []byte) {
	if !bytes.Contains(line, []byte(`"thinking"`)) && !bytes.Contains(line, []byte(`"done_reason"`)) {
		return
	}
	var m struct {
		Message struct {
			Thinking string `json:"thinking"`
		} `json:"message"`
		DoneReason string `json:"done_reason"`
	}
	if json.Unmarshal(line, &m) == nil {
		g.watch.think(m.Message.Thinking)
		g.watch.doneReason(m.DoneReason)
	}
}

// streamError returns the error that a line of a stream carries, or nil:
// an event `data: {"error": {"code", "message", "type"}}` (llama-server,
// on /completion and /v1 alike), a line `{"error": "…"}` (Ollama), or a
// line `error: …`.
func streamError(line []byte) error {
	data, sse := bytes.CutPrefix(line, []byte("data:"))
	data = bytes.TrimSpace(data)
	if msg, ok := bytes.CutPrefix(line, []byte("error:")); ok {
		return &httpStatusError{code: http.StatusInternalServerError, msg: errorMessage(bytes.TrimSpace(msg)), inStream: true}
	}
	if !bytes.HasPrefix(data, []byte(`{"error"`)) && !(sse && bytes.HasPrefix(data, []byte(`{ "error"`))) {
		return nil
	}
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.Error) == 0 || string(v.Error) == "null" {
		return nil
	}
	var code struct {
		Code int `json:"code"`
	}
	json.Unmarshal(v.Error, &code)
	if code.Code < 400 || code.Code > 599 {
		code.Code = http.StatusInternalServerError
	}
	return &httpStatusError{code: code.Code, msg: errorMessage(data), detail: errorDetails(data), inStream: true}
}

// scanMarker looks for the stream's end marker in b, and in the few bytes
// before it, where a marker may have begun.
func (g *guardedBody) scanMarker(b []byte) {
	if g.done {
		return
	}
	buf := append(g.tail, b...)
	switch g.stream {
	case sseStream:
		g.done = bytes.Contains(buf, []byte("[DONE]")) || finishReason(buf)
	case ndjsonStream:
		g.done = bytes.Contains(buf, []byte(`"done":true`)) || bytes.Contains(buf, []byte(`"done": true`))
	case completionStream:
		g.done = bytes.Contains(buf, []byte(`"stop":true`))
	case wholeCompletion:
		g.done = finishReason(buf)
	}
	g.tail = append(g.tail[:0], buf[max(0, len(buf)-32):]...)
}

// finishReason reports whether b holds a finish_reason that is not null.
func finishReason(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`"finish_reason":`))
		if i < 0 {
			return false
		}
		rest := bytes.TrimLeft(b[i+len(`"finish_reason":`):], " ")
		if len(rest) > 0 && rest[0] == '"' {
			return true
		}
		b = rest
	}
}

func (g *guardedBody) Close() error {
	g.idle.stop()
	return g.rc.Close()
}
