package tools

import (
	"io"
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
