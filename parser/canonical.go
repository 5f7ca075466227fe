package parser

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// Most replies are written as the protocol asks: a thought, an action of
// a registered tool and its input, or a thought and a final answer, each
// label as the protocol spells it. canonical reads those at once, with
// the same pieces the tolerant reading uses, and leaves every other reply
// to it: the short way gives what the tolerant reading gives, or nothing.

// maxCanonical bounds the replies canonical reads: a usual step is a few
// hundred bytes, and a longer reply gains nothing from the short way.
const maxCanonical = 1 << 10

// canonicalStops are the bytes that send a reply to the tolerant reading
// at once: a carriage return, and the markup of reasoning tags,
// chat-template tokens, calls written as tags and code fences.
const canonicalStops = "\r<`"

// canonical reads text when it is a step written in the protocol's own
// labels: "Thought:" (optional), then "Action:" with a registered tool's
// name and "Action Input:" with the input up to the end, or "Final
// Answer:" with the answer up to the end. ok is false for any other
// reply.
func (p *Parser) canonical(text string) (rd reading, ok bool) {
	if len(text) > maxCanonical {
		return reading{}, false
	}
	body := strings.TrimSpace(text)
	var lt *labelSet
	line := func(start int) (m mark, end int, ok bool) {
		end = strings.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		if m, ok = plainLabel(body, start, end); !ok {
			return mark{}, 0, false
		}
		if lt == nil {
			lt = labelTables()
		}
		if v := skipRepeatedLabel(lt, body, m, end); v != m.value {
			return mark{}, 0, false
		}
		return m, end, true
	}
	m, end, ok := line(0)
	if !ok || end == len(body) {
		return reading{}, false // one line: perhaps with its breaks escaped ("\n")
	}
	var thought mark // the Thought label, when there is one
	thoughtEnd := 0
	if m.kind == labelThought {
		thought, thoughtEnd = m, end
		if m, end, ok = line(end + 1); !ok {
			return reading{}, false
		}
	}
	// The thought's line, and the whole text, are read last: most
	// replies that are no canonical step show it sooner.
	plain := func() bool {
		return (thoughtEnd == 0 || noInlineLabel(lt, body, thought, thoughtEnd, false)) && plainText(text)
	}
	thoughtText := func() string {
		if thoughtEnd == 0 {
			return ""
		}
		return cleanText(body[thought.value:thoughtEnd])
	}
	switch m.kind {
	case labelFinal:
		if !noLabelFrom(body, end) || !plain() {
			return reading{}, false
		}
		answer := cleanText(body[m.value:])
		if answer == "" {
			return reading{err: p.errEmptyAnswer()}, true
		}
		st, err := p.answer(thoughtText(), answer)
		return reading{st, err}, true
	case labelAction:
		name := strings.TrimRight(body[m.value:end], " \t")
		info := p.registered(name)
		if info == nil || !noInlineLabel(lt, body, m, end, false) || end == len(body) {
			return reading{}, false
		}
		if m, end, ok = line(end + 1); !ok || m.kind != labelInput || !noInlineLabel(lt, body, m, end, true) || !noLabelFrom(body, end) || !plain() {
			return reading{}, false
		}
		input := body[m.value:]
		if obj, ok := decodeFlat(input); ok {
			// A flat JSON object, the usual input: read as call reads
			// it, without looking for the forms it is not.
			return reading{step: Step{Kind: KindAction, Thought: thoughtText(), Action: info.name, Args: info.adaptArgs(obj)}}, true
		}
		st, err := p.call(thoughtText(), name, input, asWritten)
		return reading{st, err}, true
	}
	return reading{}, false
}

// plainText reports whether text holds nothing that the tolerant reading
// changes before it reads labels (see normalize and SplitReasoning):
// none of canonicalStops, no invalid UTF-8, no full-width colon. It is
// asked last, once the labels have shown a canonical step: each is
// looked for in the whole text, at memchr speed.
func plainText(text string) bool {
	for i := 0; i < len(canonicalStops); i++ {
		if strings.IndexByte(text, canonicalStops[i]) >= 0 {
			return false
		}
	}
	return isASCII(text) || utf8.ValidString(text) && !strings.Contains(text, "：")
}

// noInlineLabel reports whether the line of label m, which ends at end,
// holds no other label after it, as the label scanner reads them. A colon
// right after a quote, as in a JSON object's keys (json), ends no label:
// the line is read whole only when another colon stands in it.
func noInlineLabel(lt *labelSet, body string, m mark, end int, json bool) bool {
	for i := m.value; i < end; i++ {
		k := strings.IndexByte(body[i:end], ':')
		if k < 0 {
			return true
		}
		i += k
		if !json || i == m.value || body[i-1] != '"' {
			c := newColons(body, false)
			_, found := nextInlineLabel(lt, body, m, end, &c)
			return !found
		}
	}
	return true
}

// noLabelFrom reports whether no line of body after offset end (the end
// of a line) holds a label.
func noLabelFrom(body string, end int) bool {
	if end == len(body) {
		return true
	}
	s := labelScanner{text: body, pos: end + 1}
	var buf [maxLineMarks + 1]mark
	_, found := s.next(buf[:0])
	return !found
}

// registered returns the registered tool that name names as the tool
// index holds it, when name reads as nothing else: not a blob, markup or
// a name with junk at its ends. It returns nil otherwise.
func (p *Parser) registered(name string) *toolInfo {
	if name == "" || startsBlob(name) || name[0] == '<' {
		return nil
	}
	// cleanName trims only the ends: a name whose first and last letters
	// are no junk is its own clean name.
	first, _ := utf8.DecodeRuneInString(name)
	last, _ := utf8.DecodeLastRuneInString(name)
	if isNameJunk(first) || isNameJunk(last) {
		return nil
	}
	return p.tools.byName[name]
}

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
