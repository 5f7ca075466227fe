package trace

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/react-agent/react-agent/tools/escape"
)

// Progress is a line that shows how far a batch of runs has come: a bar,
// the count and what finished last. On a terminal it is redrawn in place
// and kept within the terminal's width, so that no update leaves a
// stale line; elsewhere it writes nothing, and the caller's report says
// it all.
type Progress struct {
	w     io.Writer
	tty   bool
	width int
}

// NewProgress returns a progress line on w. With tty, w is a terminal of
// width columns; a width of zero or less means 80.
func NewProgress(w io.Writer, tty bool, width int) *Progress {
	if width <= 0 {
		width = 80
	}
	return &Progress{w: w, tty: tty, width: width}
}

// Update shows that done of total runs have finished, the last described
// by label, which comes from outside and is shown escaped; a label too
// long for the line is shortened in the middle.
func (p *Progress) Update(done, total int, label string) {
	if !p.tty {
		return
	}
	barWidth := min(30, max(p.width/5, 5))
	filled := barWidth * done / max(total, 1)
	head := fmt.Sprintf("[%s%s] %d/%d ", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), done, total)
	room := p.width - 1 - utf8.RuneCountInString(head)
	fmt.Fprintf(p.w, "\r\033[K%s%s", head, ShortenMiddle(escape.Visible(label), room))
}

// Done erases the line.
func (p *Progress) Done() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// ShortenMiddle returns s in at most n characters: whole when it fits,
// else its start and its end around an ellipsis, which keep what tells
// names apart (a provider and a model's tag, a question's number).
func ShortenMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 2 {
		return string(r[:max(n, 0)])
	}
	tail := (n - 1) / 2
	return string(r[:n-1-tail]) + "…" + string(r[len(r)-tail:])
}
