//go:build unix

package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// endless is an input that never ends, as /dev/zero piped to stdin is.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// runWithStdin runs r in-process with stdin read from in.
func runWithStdin(t *testing.T, r invocation, in io.Reader) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := testEnv(t, r, &stdout, &stderr)
	e.stdin = in
	code := e.run(r.args)
	return outcome{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// TestEveryInputHasABound points each file and stream the command line
// reads at what would be read without end, or waited on forever: each
// run ends at once with an error that names the input and what is wrong.
func TestEveryInputHasABound(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.yaml")
	os.WriteFile(large, []byte("# "+strings.Repeat("x", 1<<20)+"\n"), 0o600)
	tests := []struct {
		name  string
		args  []string
		stdin io.Reader
		code  int
		want  string
	}{
		{"--config at a device", []string{"settings", "--config", "/dev/zero"}, nil, 2, "/dev/zero is a character device, not a file"},
		{"--config at a FIFO", []string{"settings", "--config", fifo}, nil, 2, "is a named pipe (FIFO), not a file"},
		{"--config past its bound", []string{"settings", "--config", large}, nil, 2, "is larger than 1 MiB"},
		{"--mcp-config at a device", append(append([]string{"ask", "--mcp-config", "/dev/zero"}, demo...), "hi"), nil, 2, "/dev/zero is a character device, not a file"},
		{"--tools-config at a FIFO", append(append([]string{"ask", "--tools-config", fifo}, demo...), "hi"), nil, 2, "is a named pipe (FIFO), not a file"},
		{"parse's stdin without end", []string{"parse"}, endless{}, 1, "standard input is larger than 16 MiB"},
		{"tool's input from stdin without end", []string{"tool", "calculator"}, endless{}, 1, "standard input is larger than 1 MiB"},
		{"parse --jsonl's line without end", []string{"parse", "--jsonl"}, endless{}, 1, "stdin line 1 is longer than 16 MiB"},
		{"parse --tools at a device", []string{"parse", "--tools", "/dev/zero"}, strings.NewReader("Final Answer: 4"), 2, "/dev/zero is a character device, not a file"},
		{"parse --score at a device", []string{"parse", "--score", "/dev/zero"}, nil, 2, "/dev/zero is a character device, not a file"},
		{"parse --score from stdin without end", []string{"parse", "--score", "-"}, endless{}, 1, "standard input is larger than 256 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.stdin
			if in == nil {
				in = strings.NewReader("")
			}
			done := make(chan outcome, 1)
			go func() { done <- runWithStdin(t, invocation{args: tt.args}, in) }()
			select {
			case got := <-done:
				if got.code != tt.code || !strings.Contains(got.stderr, tt.want) {
					t.Fatalf("want exit %d and %q\n%s", tt.code, tt.want, got)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("still reading after a minute")
			}
		})
	}
}

// TestCtrlCStopsToolWaitingForItsInput runs tool with its input piped
// from a pipe nobody closes: Ctrl-C stops the wait, as it stops a run.
func TestCtrlCStopsToolWaitingForItsInput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	sigs := &fakeSignals{}
	done := make(chan outcome, 1)
	go func() { done <- runWithStdin(t, invocation{args: []string{"tool", "calculator"}, signals: sigs}, r) }()
	for deadline := time.Now().Add(10 * time.Second); !sigs.interrupt(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("tool never listened for Ctrl-C")
		}
	}
	select {
	case got := <-done:
		if got.code != exitInterrupted {
			t.Errorf("want exit 130\n%s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still reading stdin after Ctrl-C")
	}
}
