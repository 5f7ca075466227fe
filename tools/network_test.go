package tools

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
)

// endless is a reader that never ends and counts what it gave.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += int64(len(p))
	return len(p), nil
}

func TestReadCapped(t *testing.T) {
	tests := []struct {
		name    string
		r       io.Reader
		max     int64
		wantLen int
		wantCut bool
	}{
		{"a short body is read whole", strings.NewReader("hello"), 10, 5, false},
		{"a body of exactly max bytes is not cut", strings.NewReader("hello"), 5, 5, false},
		{"a long body is cut at max", strings.NewReader("hello world"), 5, 5, true},
		{"an endless body is cut at max", &endless{}, 1 << 20, 1 << 20, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, cut, err := readCapped(tt.r, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) != tt.wantLen || cut != tt.wantCut {
				t.Errorf("readCapped = %d bytes, cut %v; want %d, %v", len(data), cut, tt.wantLen, tt.wantCut)
			}
			if e, ok := tt.r.(*endless); ok && e.read > tt.max+64<<10 {
				t.Errorf("read %d bytes from an endless body for a cap of %d", e.read, tt.max)
			}
		})
	}
}

func TestCappedBuffer(t *testing.T) {
	b := cappedBuffer{max: 8}
	for _, s := range []string{"abc", "defgh", "ijk", "l"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; a capped buffer must accept everything", s, n, err)
		}
	}
	if string(b.buf) != "abcdefgh" || b.omitted != 4 {
		t.Errorf("kept %q, omitted %d; want abcdefgh and 4", b.buf, b.omitted)
	}
}

// closedPort returns the address of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestAServerThatCannotBeReachedIsSaidSo calls web_search and http_request
// where nothing listens: the error says which server could not be reached
// and why, for the model in words that say what to do instead, and is an
// *UnreachableError that matches ErrUnreachable, for a program to say
// more to people.
func TestAServerThatCannotBeReachedIsSaidSo(t *testing.T) {
	addr := closedPort(t)
	tests := []struct {
		name, tool string
		opts       Options
		args       map[string]any
		engine     string
		says       string
	}{
		{"a search engine", webSearchName, Options{SearchEngine: EngineSearXNG, SearchURL: "http://" + addr}, map[string]any{"query": "tokyo"}, EngineSearXNG,
			"web_search: the search engine (127.0.0.1) could not be reached (connection refused); searching is not possible now: answer from what you know, and say that you could not search"},
		{"a page", httpRequestName, Options{AllowPrivateNetwork: true}, map[string]any{"url": "http://" + addr + "/page"}, "",
			"http_request: 127.0.0.1 could not be reached (connection refused); check the address, or answer without it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := Builtins(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			_, err = reg.Call(context.Background(), tt.tool, tt.args)
			var ue *UnreachableError
			if !errors.Is(err, ErrUnreachable) || !errors.As(err, &ue) || ue.Engine != tt.engine || ue.Host != "127.0.0.1" ||
				ue.Cause() != "connection refused" || err.Error() != tt.says {
				t.Errorf("error %q (%#v), want %q", err, ue, tt.says)
			}
		})
	}
}
