package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPipedTextAndAttachmentsReachTheModel pipes a text and attaches a
// file to a question: the model gets the question and both texts.
func TestPipedTextAndAttachmentsReachTheModel(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json")
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("Ship on Tuesday.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "-a", notes, "Summarize this"}, stdin: "The meeting moved to Friday.\n"})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	body := fmt.Sprint(s.Request(0))
	for _, want := range []string{"Summarize this", "The meeting moved to Friday.", "Ship on Tuesday.", "--- stdin ---", "--- " + notes + " ---"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model did not get %q:\n%.600s", want, body)
		}
	}
	big := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "Summarize this"}, stdin: strings.Repeat("a", 2<<20)})
	if big.code != 2 || !strings.Contains(big.stderr, "more than the 1048576 bytes") {
		t.Errorf("2 MiB piped: want exit 2 and the limit\n%s", big)
	}
}

// TestAttachmentsThatAreNotText tries what -a should refuse, quickly and
// without hanging: a folder, binary data, endless devices, a FIFO nobody
// writes to, a missing file whose name holds escape sequences, too many
// files, and large files, whose sizes are summed before any is read.
func TestAttachmentsThatAreNotText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	binary := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(binary, append([]byte{0, 1, 2, 3}, make([]byte, 500_000)...), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var many, large []string
	for range 1500 {
		many = append(many, "-a", binary)
	}
	for range 3 {
		large = append(large, "-a", binary)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a folder is a usage error", []string{"-a", dir}, 2, "is a folder"},
		{"binary data is a usage error", []string{"-a", binary}, 2, "is not text but application/octet-stream"},
		{"an endless device is refused before it is read", []string{"-a", "/dev/zero"}, 2, "-a /dev/zero is a character device, not a file"},
		{"an empty device is refused", []string{"-a", "/dev/null"}, 2, "-a /dev/null is a character device, not a file"},
		{"a FIFO nobody writes to does not hang", []string{"-a", fifo}, 1, "cannot reach Ollama"},
		{"a missing file's name is shown escaped", []string{"-a", filepath.Join(dir, "no\x1b]0;pwned\x07")}, 2, `no\x1b]0;pwned\x07: no such file`},
		{"many files fail before reading", many, 2, "-a is given 1500 files, past the 100 a question may carry"},
		{"large files fail before reading", large, 2, "past the 1048576 a question may carry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got := run(t, invocation{args: append(append([]string{"-q", "--provider", "ollama", "--base-url", "http://127.0.0.1:9"}, tt.args...), "Summarize this")})
			if got.code != tt.code || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit %d and %q\n%s", tt.code, tt.want, got)
			}
			if strings.Contains(got.stderr, "\x1b") {
				t.Errorf("an escape sequence reached stderr:\n%q", got.stderr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// TestAnImageIsSentAsAnImage attaches a PNG: Ollama gets it in the
// message's images, and the text names it, instead of its bytes.
func TestAnImageIsSentAsAnImage(t *testing.T) {
	t.Parallel()
	s := ollama(t, "calculator.json")
	img := filepath.Join(t.TempDir(), "chart.png")
	data := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2000)...)
	if err := os.WriteFile(img, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got := run(t, invocation{args: []string{"-q", "--base-url", s.URL, "-a", img, "What does the chart show?"}})
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got)
	}
	msgs, _ := s.Request(0)["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	images, _ := last["images"].([]any)
	if len(images) != 1 || images[0] != base64.StdEncoding.EncodeToString(data) {
		t.Errorf("the question's message carries %d images, want the PNG: %.300v", len(images), last)
	}
	if content, _ := last["content"].(string); !strings.Contains(content, "chart.png: an image (image/png, 2 KB), attached") || strings.Contains(content, "PNG") {
		t.Errorf("the text should name the image, not hold its bytes:\n%.500s", content)
	}
}
