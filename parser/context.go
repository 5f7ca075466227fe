package parser

import (
	"reflect"
	"strings"
)

// What the loop knows of a reply beyond its text (Options): the steps
// before it, which a model may copy before its own, and whether the
// server cut the reply off.

// cut gives what Parse read in body, a reply the server cut off at its
// token limit, as st and err: only an action that was complete before the cut, one
// followed by a label that starts something else or by an observation
// the model made up. An answer, an action that runs to the end of the
// reply, and an error all become ErrTruncated: the rest of the reply is
// missing.
func (p *Parser) cut(body string, st Step, err error) (Step, error) {
	if err == nil && st.Kind == KindAction && (StepEnd(body) >= 0 || ObservationAt(body) >= 0) {
		return st, nil
	}
	return Step{}, p.errTruncated()
}

// afterCopies returns body without the copies of past steps it opens
// with, as models that echo the transcript write them: a thought, an
// action and its input equal to one of past, and an observation that is
// the one that step got; then the reply's own step. Each copy is skipped
// only when something follows it.
func (p *Parser) afterCopies(body string, past []PastStep) string {
	for range past {
		rest, ok := p.afterCopy(body, past)
		if !ok {
			break
		}
		body = rest
	}
	return body
}

// afterCopy returns what follows the copy of a past step that body
// opens with, if it does.
func (p *Parser) afterCopy(body string, past []PastStep) (string, bool) {
	var r reply
	r.init(p, body)
	for i := 0; r.has(i); i++ {
		switch r.marks.at(i).kind {
		case labelFinal:
			return "", false
		case labelAction:
			rd, ok := r.action(i)
			if !ok || rd.err != nil || rd.step.Kind != KindAction || r.end == len(body) {
				return "", false // no call, or no observation after it
			}
			obs, next := observationAt(body, r.end)
			for _, ps := range past {
				if ps.Step.Action != rd.step.Action || !reflect.DeepEqual(ps.Step.Args, rd.step.Args) {
					continue
				}
				if next == len(body) {
					// No label after the observation: the reply's own
					// text, if any, follows the copied observation.
					return splitCopied(obs, ps.Observation)
				}
				if sameObservation(obs, ps.Observation) {
					return body[next:], true
				}
			}
			return "", false
		}
	}
	return "", false
}

// observationAt reads the observation whose label starts at offset at of
// body: its text, and where the label after it starts (len(body) when
// none does).
func observationAt(body string, at int) (obs string, next int) {
	var r reply
	r.init(nil, body[at:])
	r.has(0) // skips the observation, as one echoed first
	eol := strings.IndexByte(body[at:], '\n')
	if eol < 0 {
		eol = len(body) - at
	}
	m, ok := lineLabel(body[at:], 0, eol)
	if !ok || m.kind != labelObservation {
		return "", len(body)
	}
	if r.marks.n == 0 {
		return body[at+m.value:], len(body)
	}
	next = at + r.marks.at(0).line
	return body[at+m.value : next], next
}

// splitCopied splits obs, an observation a model copied with nothing
// after it but text of its own, into the real observation and that text:
// "Observation: 4" then "The sum is 4." on the next line. ok is false
// unless obs opens with real, as written.
func splitCopied(obs, real string) (own string, ok bool) {
	t, r := strings.TrimLeft(obs, " \t"), strings.TrimSpace(real)
	if r == "" || !strings.HasPrefix(t, r) {
		return "", false
	}
	own = strings.TrimSpace(t[len(r):])
	return own, own != ""
}

// minCopied is how much of an observation a copy must hold when it
// holds only its start.
const minCopied = 24

// sameObservation reports whether copied, an observation a model wrote,
// is the real one: the same text once white space is evened out, or the
// start of it (a model may stop copying a long one, with "..." or not),
// or the real one with the notes the loop added after it.
func sameObservation(copied, real string) bool {
	c := strings.Join(strings.Fields(copied), " ")
	c = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(c, "..."), "…"))
	r := strings.Join(strings.Fields(real), " ")
	switch {
	case c == "" || r == "":
		return c == r && strings.TrimSpace(copied) != ""
	case c == r:
		return true
	case strings.HasPrefix(r, c):
		return len(c) >= min(len(r), minCopied)
	}
	return strings.HasPrefix(c, r)
}
