package logs

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrNoWords is returned by [Store.List] for a search text that holds no
// letter and no digit, such as "?" or "+": the index holds words and
// numbers only.
var ErrNoWords = errors.New("the search holds no word or number to look for")

// ErrSearchTooLong is matched (with errors.Is) by the error [Store.List]
// returns for a search text longer than [MaxSearchText] bytes, or of more
// than [MaxSearchWords] different words.
var ErrSearchTooLong = errors.New("the search is too long")

// Bounds of a search text: each word costs a look through the index, and
// a word of a script written without spaces a look through all the text
// of the log. A word typed twice counts once.
const (
	MaxSearchWords = 16
	MaxSearchText  = 1 << 10
)

// search is a text to search for, as the full-text index and SQL read it.
type search struct {
	// match is an FTS5 query that requires each term; empty when there
	// is none.
	match string
	// within are terms of scripts written without spaces between words
	// (Chinese, Japanese, Thai…), lower-cased, looked for as parts of
	// the text: the index holds such text as whole runs of characters, in
	// which it finds only what a run starts with.
	within []string
}

// parseSearch reads text as people type it into a search box. Each word
// must appear, in any order and any column, and matches the words it
// starts (tok finds Tokyo); case and accents do not count. Words in
// double quotes must appear together, in that order ("new york"). That is
// all the syntax there is: everything else is text, so qwen2.5, gpt-4o,
// 2+2, 17*23, e-mail, don't, http://x, AND, OR, NOT, a lone quote or
// parentheses search for themselves. Punctuation inside a word is taken
// as the index takes it, as a break between words that follow one
// another: 2+2 finds "2+2" and "2 + 2".
func parseSearch(text string) (search, error) {
	var s search
	if len(text) > MaxSearchText {
		return s, fmt.Errorf("%w: it is %d bytes long, and a search holds at most %d; search for a few words of it", ErrSearchTooLong, len(text), MaxSearchText)
	}
	var terms []string
	seen := map[term]bool{}
	for _, t := range splitTerms(text) {
		key := term{text: strings.ToLower(t.text), phrase: t.phrase}
		switch {
		case !strings.ContainsFunc(t.text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }):
			continue // nothing the index holds
		case seen[key]:
			continue // the same word again finds the same runs
		}
		seen[key] = true
		if len(seen) > MaxSearchWords {
			return s, fmt.Errorf("%w: it holds more than %d different words, the most a search holds; keep those that matter most", ErrSearchTooLong, MaxSearchWords)
		}
		switch {
		case strings.ContainsFunc(t.text, unspaced):
			s.within = append(s.within, strings.ToLower(t.text))
			continue
		}
		// A string in double quotes is taken by FTS5 as text, its
		// tokens as a phrase; "" is a quote inside it.
		term := `"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
		if !t.phrase {
			term += "*" // the last word may go on: tok finds Tokyo
		}
		terms = append(terms, term)
	}
	if len(terms) == 0 && len(s.within) == 0 && strings.TrimSpace(text) != "" {
		return s, ErrNoWords
	}
	s.match = strings.Join(terms, " ")
	return s, nil
}

// term is a word or, in double quotes, a phrase of a search text.
type term struct {
	text   string
	phrase bool
}

// splitTerms splits text at spaces into words, and takes the text
// between a double quote and the next as one phrase. A quote with no
// other after it is text.
func splitTerms(text string) []term {
	var terms []term
	for text != "" {
		text = strings.TrimLeftFunc(text, unicode.IsSpace)
		if text == "" {
			break
		}
		if text[0] == '"' {
			if end := strings.IndexByte(text[1:], '"'); end >= 0 {
				terms = append(terms, term{text: text[1 : 1+end], phrase: true})
				text = text[2+end:]
				continue
			}
		}
		end := strings.IndexFunc(text, unicode.IsSpace)
		if end < 0 {
			end = len(text)
		}
		terms = append(terms, term{text: text[:end]})
		text = text[end:]
	}
	return terms
}

// unspaced reports whether r belongs to a script written without spaces
// between words.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
