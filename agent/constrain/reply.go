package constrain

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Tags of a reasoning block, which the grammar of a reply leaves free.
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// otherLabels are the spellings of the action label, the bound one first,
// that no free line may start with (after blanks): the parser reads each
// as a call, which would then not be bound. A call is the bound one, or
// none.
var otherLabels = []string{ActionLabel, "Action :", "Action：", "action:", "ACTION:", "**Action", "行动:", "行动：", "动作:", "动作："}

// replyRules adds the rules of a whole reply of the text protocol to g,
// around action, the rule of "Action:" and a call: free text, in which a
// line that starts with "Action:" goes on as a call and ends the reply, a
// line that starts with another spelling of it (otherLabels) is not
// written, and
// a reasoning block at the start, which stays free until it closes. It
// returns the rule of a reply and the rule of a reply that starts inside
// the reasoning block, for a prompt that opened it.
//
// The grammar applies from the reply's first token: llama.cpp needs no
// trigger pattern, which it would match against the whole reply at every
// token (a pattern that must see where the reasoning block ends must read
// the reply from its start, which costs the square of its length and, with
// std::regex, a stack frame a byte).
func (g *grammar) replyRules(action string) (reply, think string) {
	rest := g.add(g.name("rest-of-line"), `[^\n]*`)
	line := g.name("line")
	// A free line may start with blanks, then anything but a label.
	free := g.add(g.name("free-line"), `[ \t]* ( `+notStarting(rest, otherLabels, " \t", true)+` )`)
	g.add(line, action+` | `+free+` ( "\n" `+line+` )?`)
	// A reasoning block's text, as states of matching its closing tag:
	// state i has matched its first i bytes.
	states := make([]string, len(thinkClose))
	for i := range states {
		states[i] = g.name("think-" + string(rune('0'+i)))
	}
	for i, name := range states {
		c := thinkClose[i]
		next := line // the tag is closed: the text protocol's lines
		if i+1 < len(states) {
			next = states[i+1]
		}
		// The empty alternative first: llama.cpp's parser reads past a
		// line break after a last "|".
		if i == 0 {
			g.add(name, `| [^<] `+name+` | "<" `+states[1])
			continue
		}
		g.add(name, `| [^<`+classChar(c)+`] `+states[0]+` | "<" `+states[1]+` | `+literal(string(c))+` `+next)
	}
	first := g.add(g.name("first-line"), notStarting(rest, append([]string{thinkOpen}, otherLabels...), " \t\r\n", false))
	reply = g.add(g.name("reply"), `[ \t\r\n]* ( `+literal(thinkOpen)+` `+states[0]+` | `+action+` | `+first+` ( "\n" `+line+` )? )?`)
	return reply, states[0]
}

// notStarting returns an expression for one line of text (no line
// break) that does not start with any of words: a trie of the words'
// prefixes, each of which may end the line or go on with another
// character than the word's next, then anything. The line's first
// character is none of notFirst either; empty says whether it may be
// empty. It works on characters, as llama.cpp's grammars do.
func notStarting(rest string, words []string, notFirst string, empty bool) string {
	var alts []string
	byFirst := map[rune][]string{}
	for _, w := range words {
		if r, size := utf8.DecodeRuneInString(w); w != "" {
			byFirst[r] = append(byFirst[r], w[size:])
		}
	}
	firsts := make([]rune, 0, len(byFirst))
	for r := range byFirst {
		firsts = append(firsts, r)
	}
	slices.Sort(firsts)
	var class strings.Builder
	for _, r := range firsts {
		class.WriteString(classRune(r))
	}
	for _, r := range notFirst {
		if r != '\n' {
			class.WriteString(classRune(r))
		}
	}
	alts = append(alts, `[^`+class.String()+`\n] `+rest)
	for _, r := range firsts {
		tails := byFirst[r]
		if slicesContainEmpty(tails) {
			continue // r completes a word: no line starts so
		}
		alts = append(alts, literal(string(r))+` ( `+notStarting(rest, tails, "", true)+` )`)
	}
	if empty {
		alts = append(alts, `""`)
	}
	return strings.Join(alts, " | ")
}

// classRune returns r as it is written in a GBNF character class.
func classRune(r rune) string {
	if r < utf8.RuneSelf {
		return classChar(byte(r))
	}
	return string(r)
}

func slicesContainEmpty(xs []string) bool {
	for _, x := range xs {
		if x == "" {
			return true
		}
	}
	return false
}

// classChar returns byte c as it is written in a GBNF character class.
func classChar(c byte) string {
	switch c {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\\', ']', '[', '^', '-':
		return `\` + string(c)
	}
	return string(c)
}
