//go:build unix

package cassette

import (
	"context"
	"errors"
	"testing"

	"github.com/react-agent/react-agent/tools/bounded/boundedtest"
)

// TestOpenReadsWithABound points --replay at what was once read without
// end (/dev/zero reached 19 GB), waited on forever or read whole however
// large: each is refused at once, and the error names the bound.
func TestOpenReadsWithABound(t *testing.T) {
	boundedtest.ReadsWithABound(t, "Open", func(path string) error {
		_, err := Open(context.Background(), path)
		return err
	}, MaxCassette, "256 MiB")
}

// TestOpenStopsWhenTheContextEnds reads a cassette with a context that
// ended: a Ctrl-C or SIGTERM while a large cassette is read stops the
// read between two lines, rather than after the whole file.
func TestOpenStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Open(ctx, "../../../testdata/agent/demo.jsonl")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Open = %v, want context.Canceled", err)
	}
	if _, err := Open(context.Background(), "../../../testdata/agent/demo.jsonl"); err != nil {
		t.Fatal(err)
	}
}
