package agent

import (
	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/model/cassette"
	"github.com/react-agent/react-agent/agent/modeltest"

	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/tools"
)

func TestRecordThenReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	inner := scripted(action("add", `{"a": 1, "b": 2}`), final("3"))
	rec, err := cassette.NewRecorder(inner, path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := New(rec, registry(t)).Run(context.Background(), "1+2?")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := bytes.Count(data, []byte("\n")); n != 2 {
		t.Fatalf("the cassette has %d lines, want 2:\n%s", n, data)
	}

	tests := []struct {
		name     string
		question string
		wantErr  string
	}{
		{"the same run replays offline", "1+2?", ""},
		{"a different run is reported as diverging", "1+3?", "call 1 diverges from the cassette"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp, err := cassette.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(rp, registry(t)).Run(context.Background(), tt.question)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, model.ErrDiverged) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || res.Answer != first.Answer || len(res.Steps) != len(first.Steps) {
				t.Fatalf("replay gave %v, %+v", err, res)
			}
		})
	}
}

func TestReplayRunsOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short.jsonl")
	os.WriteFile(path, []byte(`{"response":{"content":"Thought: a\nAction: echo\nAction Input: {\"text\": \"x\"}"}}`+"\n"), 0o644)
	rp, err := cassette.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(rp, registry(t)).Run(context.Background(), "q")
	if err == nil || !strings.Contains(err.Error(), "holds only 1") {
		t.Fatalf("error = %v", err)
	}
}

func TestReplayRecordedErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "errs.jsonl")
	os.WriteFile(path, []byte(
		`{"error":{"message":"HTTP 503: busy","status_code":503,"temporary":true}}`+"\n"+
			`{"response":{"content":"Final Answer: ok"}}`+"\n"), 0o644)
	rp, err := cassette.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(rp, registry(t), fastRetries()).Run(context.Background(), "q")
	if err != nil || res.Answer != "ok" {
		t.Fatalf("got %v, %+v", err, res)
	}
}

func TestNewReplayErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, content, want string }{
		{"a broken line names its number", "{}\n{nope\n", ":1: the line has neither"},
		{"an empty cassette", "\n", "holds no interactions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "c.jsonl")
			os.WriteFile(path, []byte(tt.content), 0o644)
			_, err := cassette.Open(context.Background(), path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := cassette.Open(context.Background(), filepath.Join(dir, "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error = %v, want a missing file", err)
	}
}

func TestReplayStreams(t *testing.T) {
	m, err := cassette.Open(context.Background(), "../testdata/agent/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := tools.Builtins(tools.DefaultOptions())
	var b strings.Builder
	if _, err := New(m, reg, WithStreaming(func(s string) { b.WriteString(s) })).Run(context.Background(), "What is 17*23+4?"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<think>") || !strings.Contains(b.String(), "Final Answer: 17 * 23 + 4 = 395") {
		t.Errorf("streamed %q", b.String())
	}
}

// TestRecordACutStreamThenReplay records a run whose streamed reply the
// agent cut at a made-up observation, against a server that ignores stop
// sequences, and replays it offline to the same answer.
func TestRecordACutStreamThenReplay(t *testing.T) {
	replies, err := modeltest.LoadReplies("../testdata/agent/server/two_steps.json")
	if err != nil {
		t.Fatal(err)
	}
	s := modeltest.NewOllama(replies)
	defer s.Close()
	path := filepath.Join(t.TempDir(), "cut.jsonl")
	m, err := model.New(context.Background(), model.Config{BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cassette.NewRecorder(m, path)
	if err != nil {
		t.Fatal(err)
	}
	opts := []Option{WithStopSequences(), WithStreaming(func(string) {})}
	first, err := New(rec, registry(t, addTool()), opts...).Run(context.Background(), "What is 17 + 25?")
	if err != nil || first.Answer != "17 + 25 = 42" {
		t.Fatalf("the recorded run gave %v, %+v", err, first)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the cassette is %v, %v; want it readable by its owner only", info.Mode(), err)
	}
	rp, err := cassette.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := New(rp, registry(t, addTool()), opts...).Run(context.Background(), "What is 17 + 25?")
	if err != nil || again.Answer != first.Answer || len(again.Steps) != len(first.Steps) || again.Steps[0].Observation != "42" {
		t.Fatalf("the replay gave %v, %+v", err, again)
	}
}
