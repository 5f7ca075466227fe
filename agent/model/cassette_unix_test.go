//go:build unix

package model

import (
	"context"
	"errors"
	"testing"

	"github.com/react-agent/react-agent/tools/bounded/boundedtest"
)

// TestNewReplayReadsWithABound points --replay at what was once read
// without end (/dev/zero reached 19 GB), waited on forever or read whole
// however large: each is refused at once, and the error names the bound.
func TestNewReplayReadsWithABound(t *testing.T) {
	boundedtest.ReadsWithABound(t, "NewReplay", func(path string) error {
		_, err := NewReplay(path)
		return err
	}, MaxCassette, "256 MiB")
}

// TestNewReplayStopsWhenTheContextEnds reads a cassette with a context
// that ended: a Ctrl-C or SIGTERM while a large cassette is read stops
// the read between two lines, rather than after the whole file.
func TestNewReplayStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newReplay(ctx, "../../testdata/agent/demo.jsonl")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("newReplay = %v, want context.Canceled", err)
	}
	if _, err := newReplay(context.Background(), "../../testdata/agent/demo.jsonl"); err != nil {
		t.Fatal(err)
	}
}
