package model

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// maxTokenBytes is the most bytes a token of a reply is taken to hold, on
// average over the reply: the text a reply bound to n tokens may hold is
// n times as many bytes. Real text averages three to five bytes a token;
// the longest tokens of common vocabularies are about 128.
const maxTokenBytes = 128

// piece is what one line or event of a reply says, as a client decodes it.
type piece struct {
	text, reasoning string
	calls           []callPart
	usage           *Usage
	// stop is why the server ended the reply ("stop", "length", …),
	// once it says.
	stop string
	// end means the server said the reply is complete.
	end bool
	// ollama means the piece came from Ollama (its OpenAI-compatible
	// endpoint names itself in each chunk), which ends a reply without
	// its end marker when the model repeats itself (ErrStreamCut).
	ollama bool
	// err is an error the server sent inside the reply.
	err error
	// model is the model the server says wrote the reply, once it says.
	model string
}

// callPart is a tool call, or a piece of one: OpenAI-compatible servers
// stream its arguments in parts, by index.
type callPart struct {
	index          int
	id, name, args string
	// whole says that the part is a call of its own, not a piece of one
	// (Ollama's tool calls).
	whole bool
}

// reply gathers the pieces of a reply, passing its text and reasoning to
// the caller as they come, in time linear in the reply's length.
type reply struct {
	k               *call
	text, reasoning strings.Builder
	calls           []*toolCall
	byIndex         map[int]*toolCall // the calls streamed in parts, by index
	usage           Usage
	stop            string
	end             bool   // the server said the reply is complete
	done            bool   // the stream's own end marker ("data: [DONE]")
	ollama          bool   // the server is Ollama
	model           string // the model the server says wrote it
	// limit is the bytes of text (reasoning and tool calls included) the
	// reply may hold, from the call's bound on its tokens; 0 for any.
	limit, size int
	// over means the reply passed limit: the client ended it there.
	over   bool
	pieces int
}

// toolCall is a tool call of a reply being read.
type toolCall struct {
	index    int
	id, name string
	args     strings.Builder
}

// newReply returns the reply to k, which the request bound to tokens
// tokens (0 for no bound).
func newReply(k *call, tokens int) *reply {
	return &reply{k: k, limit: max(tokens, 0) * maxTokenBytes}
}

// add takes a piece of the reply: its text and reasoning go to the
// caller's streaming functions, whose error ends the call.
func (r *reply) add(ctx context.Context, p piece) error {
	if p.err != nil {
		return p.err
	}
	r.pieces++
	r.ollama = r.ollama || p.ollama
	if p.usage != nil {
		r.usage = *p.usage
	}
	if p.stop != "" {
		r.stop = p.stop
	}
	if p.model != "" && len(p.model) <= maxServedName {
		r.model = p.model
	}
	r.end = r.end || p.end
	if s := r.bound(p.reasoning); s != "" {
		r.reasoning.WriteString(s)
		if fn := r.k.o.StreamingReasoningFunc; fn != nil {
			if err := fn(ctx, []byte(s), nil); err != nil {
				return err
			}
		}
	}
	if s := r.bound(p.text); s != "" {
		r.text.WriteString(s)
		if fn := r.k.o.StreamingFunc; fn != nil {
			if err := fn(ctx, []byte(s)); err != nil {
				return err
			}
		}
	}
	for _, c := range p.calls {
		tc := r.call(c)
		if tc == nil {
			return fmt.Errorf("%w: a reply of more than %d tool calls", ErrMalformed, maxToolCalls)
		}
		if c.id != "" {
			tc.id = c.id
		}
		if c.name != "" {
			tc.name = c.name
		}
		tc.args.WriteString(r.bound(c.args))
	}
	return nil
}

// bound returns s, cut where the reply passes its limit; past it, the
// reply is over, and cut as a server cuts one at its token limit.
func (r *reply) bound(s string) string {
	if r.limit <= 0 || s == "" {
		return s
	}
	if r.over {
		return ""
	}
	left := r.limit - r.size
	if len(s) > left {
		for left > 0 && !utf8.RuneStart(s[left]) {
			left--
		}
		s, r.over, r.stop = s[:left], true, "length"
	}
	r.size += len(s)
	return s
}

// maxServedName bounds the name of the model a server says wrote a
// reply: a longer one is no name, and is not kept.
const maxServedName = 256

// maxToolCalls bounds the tool calls of a reply: the agent takes one a
// step.
const maxToolCalls = 256

// call returns the tool call c is a part of, or nil when the reply would
// have more than maxToolCalls.
func (r *reply) call(c callPart) *toolCall {
	if tc := r.byIndex[c.index]; tc != nil && !c.whole && (c.id == "" || tc.id == "" || tc.id == c.id) {
		return tc
	}
	if len(r.calls) >= maxToolCalls {
		return nil
	}
	tc := &toolCall{index: c.index}
	r.calls = append(r.calls, tc)
	if !c.whole {
		if r.byIndex == nil {
			r.byIndex = map[int]*toolCall{}
		}
		r.byIndex[c.index] = tc
	}
	return tc
}

// result returns what was read as a Reply.
func (r *reply) result() *Reply {
	out := &Reply{Text: r.text.String(), Reasoning: r.reasoning.String(), Usage: r.usage,
		Finish: Finish(r.stop), FinishWord: r.stop, Model: r.model}
	out.Usage.TotalTokens = r.usage.PromptTokens + r.usage.CompletionTokens
	if r.over {
		out.Finish, out.FinishWord = FinishLength, "" // the client cut it, not the server
	}
	for _, tc := range r.calls {
		args := tc.args.String()
		if args == "" {
			args = "{}"
		}
		out.ToolCalls = append(out.ToolCalls, llms.ToolCall{ID: tc.id, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: tc.name, Arguments: args}})
	}
	return out
}

// post sends body to url as JSON and returns the response, or the error
// of a request that got none to read: the server's error status, read
// from its body, the server unreachable, or a kept-alive connection the
// server closed before it answered (which the call's caller may send
// again at once: the client never does).
func post(ctx context.Context, hc *http.Client, url string, body []byte, header http.Header) (*http.Response, error) {
	traced, reused := reuse(ctx)
	req, err := http.NewRequestWithContext(traced, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		err = sendError(ctx, err)
		var ue *unreachableError
		if errors.As(err, &ue) && reused.Load() {
			return nil, &staleError{err: ue.err}
		}
		return nil, err
	}
	return resp, nil
}

// decoder decodes one line or event of a reply, or a whole reply sent as
// one JSON object, into a piece.
type decoder func(data []byte) (piece, error)

// read reads resp into r, framed as its Content-Type says: server-sent
// events, a JSON object a line, or one JSON object (a whole reply, asked
// for or not), each decoded by decode. It ends when the server ends the
// reply, or r holds all it may.
func read(ctx context.Context, resp *http.Response, decode decoder, r *reply) error {
	defer resp.Body.Close()
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	sse := media == "text/event-stream"
	if !sse && media != "application/x-ndjson" {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return readError(ctx, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return fmt.Errorf("%w: the server sent an empty reply", ErrMalformed)
		}
		if err := readLine(ctx, bytes.TrimSpace(data), false, decode, r); err != nil {
			return err
		}
		if !r.end && !r.over && r.ollama {
			return ErrStreamCut // Ollama's last message, "done": false
		}
		return nil
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	var long []byte
	for !r.done && !r.over {
		line, err := nextLine(br, &long)
		if err != nil && err != io.EOF {
			if r.end && ctx.Err() == nil {
				break // the reply was whole: what was to follow (its usage) is lost
			}
			return readError(ctx, err) // the line is cut short
		}
		if lerr := readLine(ctx, bytes.TrimSpace(line), sse, decode, r); lerr != nil {
			return lerr
		}
		if err == io.EOF {
			break
		}
	}
	switch {
	case r.end, r.done, r.over:
		return nil
	case r.ollama && r.pieces > 0:
		// The response ended as it should, but for its end marker:
		// Ollama ends a reply so at its token repeat limit, and when its
		// runner fails.
		return ErrStreamCut
	}
	return fmt.Errorf("%w: the stream stopped without its end marker", ErrIncomplete)
}

// readLine decodes one line of a reply into r: in an event stream, the
// data of an event, its end marker, or llama.cpp's "error:" line.
func readLine(ctx context.Context, line []byte, sse bool, decode decoder, r *reply) error {
	if len(line) == 0 {
		return nil
	}
	if sse {
		if msg, ok := bytes.CutPrefix(line, []byte("error:")); ok {
			e := newStatusError(http.StatusInternalServerError, bytes.TrimSpace(msg), "")
			e.inStream = true
			return e
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			return nil // a comment (a ping), or a field this reader has no use for
		}
		line = bytes.TrimSpace(data)
		if string(line) == "[DONE]" {
			r.done = true
			return nil
		}
	}
	if bytes.Contains(line, []byte(`"error"`)) {
		if e := streamError(line); e != nil {
			return e
		}
	}
	p, err := decode(line)
	switch {
	case errors.Is(err, ErrWrongServer):
		return err
	case err != nil:
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return r.add(ctx, p)
}

// nextLine returns the next line of br, up to MaxLineBytes long: a line
// longer than br's buffer is gathered in long, which grows as append
// does; a longer one is ErrLineTooLong.
func nextLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	*long = append((*long)[:0], line...)
	for {
		line, err = br.ReadSlice('\n')
		if len(*long)+len(line) > MaxLineBytes {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, MaxLineBytes)
		}
		*long = append(*long, line...)
		if err != bufio.ErrBufferFull {
			return *long, err
		}
	}
}

// readError returns the error of a reply whose reading failed: the bounds
// of the transport, the caller's end of the call, or the connection
// dropped mid-reply.
func readError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, ErrReplyTooLarge), errors.Is(err, ErrIdle), errors.Is(err, ErrLineTooLong):
		return err
	case ctx.Err() != nil:
		return context.Cause(ctx)
	}
	return fmt.Errorf("%w: the connection broke off (%w)", ErrIncomplete, err)
}
