package bounded

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestNewReader(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int64
		wantErr  bool
	}{
		{"an input shorter than the limit is read whole", "abc", 5, false},
		{"an input at the limit is read whole", "abcde", 5, false},
		{"an input one byte past the limit fails", "abcdef", 5, true},
		{"an empty input with no room is read", "", 0, false},
		{"one byte with no room fails", "a", 0, true},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				got, err := io.ReadAll(NewReader(r, "the input", tt.limit))
				if tt.wantErr {
					var tl *TooLargeError
					if !errors.As(err, &tl) || tl.Limit != tt.limit || int64(len(got)) != tt.limit {
						t.Errorf("read %q, %v; want %d bytes and a TooLargeError", got, err, tt.limit)
					}
					return
				}
				if err != nil || string(got) != tt.in {
					t.Errorf("read %q, %v; want %q", got, err, tt.in)
				}
			})
		}
	}
}
