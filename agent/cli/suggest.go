package cli

import (
	"fmt"
	"strings"
)

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// nearest returns the one of choices that word is a slip or two from
// ("olama" for ollama, "calculatr" for calculator), or "" when none is,
// or several are as near. Case does not count.
func nearest(word string, choices []string) string {
	w := strings.ToLower(word)
	best, bestD, tie := "", 3, false
	for _, c := range choices {
		d := editDistance(w, strings.ToLower(c))
		switch {
		case d == 0:
			return c
		case d > 2 || d == 2 && len(w) < 5:
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// didYouMean returns "; did you mean X?" for the one of choices that word
// is a slip from, or "".
func didYouMean(word string, choices []string) string {
	if n := nearest(word, choices); n != "" {
		return fmt.Sprintf("; did you mean %s?", n)
	}
	return ""
}

// unknown says that value is no what, which of choices it may be meant
// for, and what the choices are: `unknown provider "olama"; did you mean
// ollama? The providers are ollama, openai, …`.
func unknown(what, value string, choices []string) string {
	if n := nearest(value, choices); n != "" {
		return fmt.Sprintf("unknown %s %q; did you mean %s? The %ss are %s", what, value, n, what, list(choices))
	}
	return fmt.Sprintf("unknown %s %q; the %ss are %s", what, value, what, list(choices))
}

// list writes items as a sentence does: "a, b and c".
func list(items []string) string {
	switch len(items) {
	case 0:
		return "none"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
