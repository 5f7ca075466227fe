package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/react-agent/react-agent/tools/bounded"
)

// maxChatLine is the longest line a chat reads from a pipe or a file as a
// question or a command: a longer one is left out, with a word, and the
// session goes on.
const maxChatLine = 1 << 20

// errLineTooLong is the error of a line past maxChatLine.
var errLineTooLong = fmt.Errorf("the line is longer than %s, the most a chat reads of one, and was left out; put a long text in a file and ask about it with react-agent ask -a FILE", bounded.Size(maxChatLine))

// lineReader reads lines of at most max bytes: a longer one is read to
// its end and dropped, not kept whole, so that memory stays bounded.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line break; io.EOF once there is
// none; errLineTooLong for a line past the bound, which it skipped.
func (l *lineReader) next() (string, error) {
	var line []byte
	long := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !long {
			line = append(line, chunk...)
			long = len(line) > l.max+2 // more than the line and its break
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && (len(line) > 0 || long):
			// The last line, without a line break.
		case err != nil:
			return "", err
		}
		text := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if long || len(text) > l.max {
			return "", errLineTooLong
		}
		return string(text), nil
	}
}
