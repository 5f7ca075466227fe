package model

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
)

// Bounds of the context window asked of Ollama: what a model's /api/show
// claims is taken within them, and so is an explicit Config.NumCtx.
const (
	minWindow = 512
	maxWindow = 1 << 20
)

// What a prompt's request body says of its tokens before the server has
// counted one: about a token every 3 bytes, which errs towards more, as
// text in other scripts than English has; surely fewer than a token every
// 4, the most English averages; and never fewer than one every 8, more
// than any prompt has.
const (
	bytesPerToken     = 3
	plausibleBytes    = 4
	mostBytesPerToken = 8
)

// tokens is what is known of a prompt's tokens: at least least, likely
// more than plausible, and about estimate.
type tokens struct{ least, plausible, estimate int }

// replyRoom is the part of a grown window kept for the reply, beyond the
// prompt's tokens, when the call's bound on them is larger or none.
const replyRoom = 1024

// window is the context window asked of Ollama, num_ctx: it grows, once a
// call, to what a prompt that does not fit needs, up to its ceiling: the
// longest context the model takes, as its /api/show claims it (clamped),
// or Config.NumCtx, when given.
type window struct {
	mu sync.Mutex
	// asked is the num_ctx sent with each call.
	asked int
	// ceiling is the most asked may grow to; longest is what the model
	// takes, or 0 when unknown.
	ceiling, longest int
	// explicit says that Config.NumCtx set the window: it never grows.
	explicit bool
	// perToken is the bytes of a request body a prompt token is, as the
	// server's counts of earlier prompts said; 0 before.
	perToken float64
}

// newWindow returns the window of a model whose /api/show claims it takes
// claim tokens (0 when it says nothing), with numCtx the window asked
// for, or 0 for the default.
func newWindow(numCtx int, claim float64) *window {
	w := &window{longest: clampWindow(claim), asked: DefaultNumCtx, explicit: numCtx > 0}
	if w.explicit {
		w.asked = min(numCtx, maxWindow) // what was asked for, never more
	}
	if w.longest > 0 {
		w.asked = min(w.asked, w.longest)
	}
	w.ceiling = w.asked
	if !w.explicit && w.longest > 0 {
		w.ceiling = w.longest
	}
	return w
}

// clampWindow returns n tokens within the bounds of a window, or 0 when n
// is no count at all (zero, negative, not a number).
func clampWindow(n float64) int {
	if !(n > 0) {
		return 0
	}
	return int(math.Min(math.Max(n, minWindow), maxWindow))
}

// now returns the num_ctx to send.
func (w *window) now() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked
}

// learn keeps what the server counted of a prompt whose body was size
// bytes.
func (w *window) learn(size, promptTokens int) {
	if promptTokens < 32 {
		return
	}
	if r := float64(size) / float64(promptTokens); r >= 0.5 && r <= mostBytesPerToken {
		w.mu.Lock()
		w.perToken = r
		w.mu.Unlock()
	}
}

// tokensOf returns what is known of the tokens of a prompt whose request
// body is size bytes: from the server's counts of earlier prompts, or
// from its size alone.
func (w *window) tokensOf(size int) tokens {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.perToken > 0 {
		n := int(float64(size) / w.perToken)
		return tokens{n, n, n}
	}
	return tokens{size / mostBytesPerToken, size / plausibleBytes, size / bytesPerToken}
}

// growth is a window that grew: from and to tokens, for a prompt of
// about prompt tokens; already when another call grew it.
type growth struct {
	from, to, prompt int
	already          bool
}

// fit returns what to do with a prompt of p tokens and a reply of up to
// reply tokens (0 for no bound): grow the window to fit them, leave it, or
// refuse the prompt, with an error that gives the sizes, when it cannot
// fit even the ceiling. Before a call (used 0), a prompt sure not to fit
// the ceiling is refused unsent, and one sure not to fit the window grows
// it. After a call with a window of used tokens that the server found too
// small (it refused the prompt, or cut it, or the reply filled it), the
// window grows, at least to twice that, unless the prompt is likely not
// to fit the ceiling; a window another call grew since is used as it is.
func (w *window) fit(p tokens, reply, used int) (*growth, *Error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	must := used > 0
	switch {
	case p.least > w.ceiling, must && p.plausible > w.ceiling:
		return nil, w.refusal(p.estimate, true, must)
	case must && w.asked > used:
		return &growth{from: used, to: w.asked, prompt: p.estimate, already: true}, nil
	case must && w.asked >= w.ceiling:
		return nil, w.refusal(p.estimate, false, must)
	case !must && (p.least <= w.asked || p.plausible > w.ceiling):
		return nil, nil
	}
	room := replyRoom
	if reply > 0 {
		room = min(reply, room)
	}
	need := min(p.estimate, maxWindow) + room
	if must {
		need = max(need, 2*min(used, maxWindow))
	}
	to := min(ceilPow2(need), w.ceiling)
	if to <= w.asked {
		return nil, nil
	}
	g := &growth{from: w.asked, to: to, prompt: p.estimate}
	w.asked = to
	return g, nil
}

// ceilPow2 returns the least power of two not below n, for n > 0 within
// the bounds of a window.
func ceilPow2(n int) int {
	n = min(n, 2*maxWindow)
	return 1 << bits.Len(uint(n-1))
}

// refusal is the error of a prompt of about prompt tokens that does not
// fit the window, which cannot grow enough: too large for the ceiling by
// its size (sized), or found too long by the server at the ceiling; sent
// or not.
func (w *window) refusal(prompt int, sized, sent bool) *Error {
	e := &Error{PromptTokens: prompt, ContextTokens: w.ceiling}
	if sized {
		e.Err = fmt.Errorf("%w: the prompt is about %d tokens by its size, and the context window can be at most %d", ErrContextOverflow, prompt, w.ceiling)
	} else {
		e.Err = fmt.Errorf("%w: the server found the prompt too long for the context window of %d tokens", ErrContextOverflow, w.asked)
		e.PromptTokens = 0
	}
	if !sent {
		e.Err = fmt.Errorf("%w; it was not sent", e.Err)
	}
	w.explain(e)
	return e
}

// explain says what would make the window larger.
func (w *window) explain(e *Error) {
	e.ContextTokens = max(e.ContextTokens, w.asked)
	switch {
	case w.explicit && (w.longest == 0 || w.longest > w.asked):
		var limit string
		if w.longest > 0 {
			limit = fmt.Sprintf("the model takes up to %d tokens", w.longest)
		}
		overflowed(e, SettingNumCtx, "ask for a larger context window", limit)
	case w.longest > 0:
		overflowed(e, NoSetting, "", fmt.Sprintf("%d tokens is the longest context the model takes", w.longest))
	default:
		overflowed(e, SettingNumCtx, "ask for a larger context window", "")
	}
}

// info returns what is known of the window, and how it can be larger.
func (w *window) info() Window {
	w.mu.Lock()
	defer w.mu.Unlock()
	win := Window{Tokens: w.asked, Max: w.ceiling, Fix: SettingNumCtx, Hint: "ask for a larger context window"}
	switch {
	case w.explicit && w.longest > w.asked:
		win.Detail = fmt.Sprintf("the model takes up to %d tokens", w.longest)
	case w.explicit:
	case w.asked < w.ceiling:
		win.Fix, win.Hint = NoSetting, ""
		win.Detail = fmt.Sprintf("the window grows when a prompt needs more, up to the %d tokens the model takes", w.ceiling)
	case w.longest > 0:
		win.Fix, win.Hint = NoSetting, ""
		win.Detail = fmt.Sprintf("%d tokens is the longest context the model takes", w.longest)
	}
	return win
}
