package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"a short text is unchanged", "hello", 10, "hello"},
		{"a text of exactly max bytes is unchanged", "hello", 5, "hello"},
		{"no limit keeps everything", "hello", 0, "hello"},
		{"a long text is cut with a marker", "hello world", 5, "hello\n[truncated: 6 bytes omitted]"},
		{"a cut never splits a character", "aé", 2, "a\n[truncated: 2 bytes omitted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Truncate(tt.in, tt.max); got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestTruncateKeepsAtMostMaxBytesOfContent(t *testing.T) {
	in := strings.Repeat("x", 100_000)
	got := Truncate(in, 8<<10)
	content, marker, ok := strings.Cut(got, "\n[truncated: ")
	if !ok {
		t.Fatalf("no marker in %q…", got[:40])
	}
	if len(content) != 8<<10 {
		t.Errorf("kept %d bytes, want %d", len(content), 8<<10)
	}
	if marker != "91808 bytes omitted]" {
		t.Errorf("marker ends %q", marker)
	}
}

// checkObservation checks what a tool call gave: an error starting with
// wantErr when that is set, or else an observation holding every string
// of want and none of notWant.
func checkObservation(t *testing.T, got string, err error, wantErr string, want, notWant []string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
			t.Fatalf("error = %v, want prefix %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("observation lacks %q:\n%s", w, got)
		}
	}
	for _, w := range notWant {
		if strings.Contains(got, w) {
			t.Errorf("observation has %q:\n%s", w, got)
		}
	}
}

func TestTruncateKeepsTheToolsOwnCutNotes(t *testing.T) {
	out := strings.Repeat("x", 1000) + "\n[response body cut at 2097152 bytes; the rest was not read]"
	got := Truncate(out, 100)
	want := strings.Repeat("x", 100) + "\n[truncated: more than 900 bytes omitted]\n[response body cut at 2097152 bytes; the rest was not read]"
	if got != want {
		t.Fatalf("Truncate = %q, want %q", got[90:], want[90:])
	}
}

// TestTruncateCountsWhatTheToolLeftOut cuts observations that a tool had
// cut already: the marker counts every byte of the output that is
// missing, those the tool's own notes name included, and says "more than"
// where a note cannot say how much.
func TestTruncateCountsWhatTheToolLeftOut(t *testing.T) {
	shell := "stdout:\n" + strings.Repeat("y", 500) + "\n[stdout cut: 12345 bytes omitted]\nstderr:\nboom"
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"the shell's note adds the bytes it left out", shell, 50,
			fmt.Sprintf("[truncated: %d bytes omitted]", len(shell)-50-len("\n[stdout cut: 12345 bytes omitted]\n")+12345)},
		{"a marker cut again adds its count", "abcdef\n[truncated: 1000 bytes omitted]", 3,
			"abc\n[truncated: 1003 bytes omitted]"},
		{"a marker that says more than says so again", "abcdef\n[truncated: more than 1000 bytes omitted]", 3,
			"abc\n[truncated: more than 1003 bytes omitted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.in, tt.max)
			if !strings.HasSuffix(got, tt.want) {
				t.Errorf("Truncate = %q, want it to end %q", got, tt.want)
			}
			if strings.Contains(got, "[stdout cut") {
				t.Errorf("Truncate = %q: a note whose count the marker adds is not repeated", got)
			}
		})
	}
}
