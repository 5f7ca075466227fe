//go:build unix

package prompt

import (
	"testing"

	"github.com/react-agent/react-agent/tools/bounded/boundedtest"
)

// TestParseFileReadsWithABound points --prompt-file at what was once read
// without end, waited on forever or read whole however large: each is
// refused at once, and the error names the bound.
func TestParseFileReadsWithABound(t *testing.T) {
	boundedtest.ReadsWithABound(t, "ParseFile", func(path string) error {
		_, err := ParseFile(path)
		return err
	}, MaxTemplateFile, "1 MiB")
}
