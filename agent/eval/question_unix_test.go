//go:build unix

package eval

import (
	"testing"

	"github.com/react-agent/react-agent/tools/bounded/boundedtest"
)

// TestLoadQuestionsReadsWithABound points eval at a question set that was
// once read without end, waited on forever or read whole however large:
// each is refused at once, and the error names the bound.
func TestLoadQuestionsReadsWithABound(t *testing.T) {
	boundedtest.ReadsWithABound(t, "LoadQuestions", func(path string) error {
		_, err := LoadQuestions(path)
		return err
	}, MaxQuestionSet, "16 MiB")
}
