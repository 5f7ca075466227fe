package modeltest_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// stream is the raw body of a streamed chat call, line by line.
type stream struct {
	status int
	lines  []string
	end    error // how the body ended: io.EOF when the response was whole
}

// longest returns the length of the longest line.
func (s stream) longest() int {
	n := 0
	for _, l := range s.lines {
		n = max(n, len(l))
	}
	return n
}

// marked reports whether the stream holds its end marker: Ollama's done
// message, or OpenAI's data: [DONE].
func (s stream) marked() bool {
	for _, l := range s.lines {
		if strings.Contains(l, `"done":true`) || l == "data: [DONE]" {
			return true
		}
	}
	return false
}

// rawChat makes a streamed chat call to srv in its dialect and reads the
// body as it comes, lines of any length.
func rawChat(t *testing.T, srv *modeltest.Server, dialect string) stream {
	t.Helper()
	path := "/v1/chat/completions"
	if dialect == "ollama" {
		path = "/api/chat"
	}
	resp, err := srv.Client().Post(srv.URL+path, "application/json",
		strings.NewReader(`{"model": "m", "stream": true, "messages": [{"role": "user", "content": "q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := stream{status: resp.StatusCode}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimRight(line, "\n"); line != "" {
			out.lines = append(out.lines, line)
		}
		if err != nil {
			out.end = err
			return out
		}
	}
}

// content returns the text of the reply an Ollama message or an OpenAI
// event holds.
func content(t *testing.T, line string) string {
	t.Helper()
	var m struct {
		Message *struct{ Content string }
		Choices []struct{ Delta struct{ Content string } }
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if m.Message != nil {
		return m.Message.Content
	}
	if len(m.Choices) != 1 {
		t.Fatalf("%q: not one choice", line)
	}
	return m.Choices[0].Delta.Content
}

func TestHugeLineIsOneLongLineOfAWholeStream(t *testing.T) {
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			srv := start(dialect, []string{"Final Answer: x"}, modeltest.Misbehave(modeltest.HugeLine))
			defer srv.Close()
			got := rawChat(t, srv, dialect)
			if got.status != http.StatusOK || !errors.Is(got.end, io.EOF) || !got.marked() {
				t.Errorf("status %d, body ended with %v, end marker %v: want 200, a whole body and the marker", got.status, got.end, got.marked())
			}
			if n := got.longest(); n <= 1<<20 {
				t.Errorf("the longest line has %d bytes, want more than a megabyte", n)
			}
		})
	}
}

func TestRepeatLimitEndsTheStreamCleanlyWithoutItsMarker(t *testing.T) {
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			srv := start(dialect, []string{"Final Answer: x"}, modeltest.Misbehave(modeltest.RepeatLimit))
			defer srv.Close()
			got := rawChat(t, srv, dialect)
			if got.status != http.StatusOK || !errors.Is(got.end, io.EOF) || got.marked() || len(got.lines) != 31 {
				t.Errorf("status %d, body ended with %v, end marker %v, %d lines: want 200, a whole body without the marker, 31 lines",
					got.status, got.end, got.marked(), len(got.lines))
			}
			for _, l := range got.lines {
				if c := content(t, l); c != "Final " {
					t.Errorf("a piece of the reply is %q, want the first, %q, each time", c, "Final ")
				}
			}
		})
	}
}

func TestDroppedConnectionEndsTheBodyMidway(t *testing.T) {
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			srv := start(dialect, []string{"Final Answer: forty-two"}, modeltest.Misbehave(modeltest.DroppedConnection))
			defer srv.Close()
			got := rawChat(t, srv, dialect)
			if got.status != http.StatusOK || !errors.Is(got.end, io.ErrUnexpectedEOF) || got.marked() || len(got.lines) == 0 {
				t.Errorf("status %d, body ended with %v, end marker %v, %d lines: want 200, part of the reply, then an unexpected EOF",
					got.status, got.end, got.marked(), len(got.lines))
			}
		})
	}
}
