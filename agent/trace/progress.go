package trace

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/react-agent/react-agent/tools/escape"
)

// Progress shows how far a batch of runs has come. On a terminal it is a
// line redrawn in place: a bar, the count and what finished last, kept
// within the terminal's width, so that no update leaves a stale line.
// Elsewhere (a file, a pipe) it is a plain line now and then, "12/48 runs,
// 3 failed", no more than one every PlainEvery, and one at the end after
// those: no bar and no escape sequence, for a log that is read later or
// followed with tail -f. A batch done within PlainEvery writes nothing:
// the caller's report, which follows at once, says it all.
type Progress struct {
	w     io.Writer
	tty   bool
	width int
	now   func() time.Time

	last                time.Time // when the last plain line was written, or the progress began
	done, total, failed int       // the last update's
	wrote, said         bool      // a plain line was written; it said the last update
}

// PlainEvery is the least time between two plain lines of a Progress off
// a terminal.
const PlainEvery = 5 * time.Second

// NewProgress returns a progress line on w. With tty, w is a terminal of
// width columns; a width of zero or less means 80. now tells the time of
// the plain lines off a terminal; nil means time.Now.
func NewProgress(w io.Writer, tty bool, width int, now func() time.Time) *Progress {
	if width <= 0 {
		width = 80
	}
	if now == nil {
		now = time.Now
	}
	return &Progress{w: w, tty: tty, width: width, now: now, last: now()}
}

// Update shows that done of total runs have finished, failed of them
// without an answer, the last described by who ran it (a model and its
// server) and what it came to, which come from outside and are shown
// escaped. A description too long for the line is shortened in the
// middle of who first, then of the whole. Off a terminal the description
// is left out, and the count written only when PlainEvery has passed
// since the last line, or since the progress began.
func (p *Progress) Update(done, total, failed int, who, what string) {
	if !p.tty {
		now := p.now()
		p.done, p.total, p.failed, p.said = done, total, failed, false
		if now.Sub(p.last) >= PlainEvery {
			p.plain(now)
		}
		return
	}
	barWidth := min(30, max(p.width/5, 5))
	filled := barWidth * done / max(total, 1)
	head := fmt.Sprintf("[%s%s] %d/%d ", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), done, total)
	room := p.width - 1 - utf8.RuneCountInString(head)
	who, what = escape.Visible(who), escape.Visible(what)
	if over := utf8.RuneCountInString(who) + 1 + utf8.RuneCountInString(what) - room; over > 0 {
		who = ShortenMiddle(who, max(utf8.RuneCountInString(who)-over, 12))
	}
	fmt.Fprintf(p.w, "\r\033[K%s%s", head, ShortenMiddle(who+" "+what, room))
}

// plain writes the count as a plain line.
func (p *Progress) plain(now time.Time) {
	line := fmt.Sprintf("%d/%d runs", p.done, p.total)
	if p.failed > 0 {
		line += fmt.Sprintf(", %d failed", p.failed)
	}
	fmt.Fprintln(p.w, line)
	p.last, p.wrote, p.said = now, true, true
}

// Done erases the line on a terminal; elsewhere, after plain lines, it
// writes the count last updated, unless the last line said it.
func (p *Progress) Done() {
	switch {
	case p.tty:
		fmt.Fprint(p.w, "\r\033[K")
	case p.wrote && !p.said:
		p.plain(p.now())
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
