package cli

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Bounds of the model settings that take numbers.
const (
	// maxTemperature is the highest temperature taken: what OpenAI's and
	// Google's APIs take, and past which local models write noise. It
	// refuses 70 written for 0.7, and NaN, which no JSON can carry.
	maxTemperature = 2.0
)

// A flag's value may know more of itself than pflag asks. flagProblem and
// setFlag say what a flag takes with its describe, and completion offers
// its completions: the facts about a flag stay with its value, not in a
// switch on its name.
type (
	// describedValue says in words what its flag takes, for an error
	// about it: "a protocol: text, native or auto".
	describedValue interface{ describe() string }
	// completedValue lists what completion offers for its flag.
	completedValue interface{ completions() []string }
)

// temperature is the value of --temperature: a number from 0 to
// maxTemperature, from every source (the flag, its variable, the config
// file, settings set, chat's /set parameter).
func temperature(v *float64) *floatIn {
	return &floatIn{v: v, min: 0, max: maxTemperature, like: "0.7"}
}

// floatIn is a float64 flag that takes finite numbers from min to max.
type floatIn struct {
	v        *float64
	min, max float64
	like     string // a value to show as an example
}

// errOutOfRange is the error of a value past a flag's bounds; its
// describe says what the flag takes.
var errOutOfRange = errors.New("out of range")

func (f *floatIn) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || x < f.min || x > f.max {
		return errOutOfRange
	}
	*f.v = x
	return nil
}

func (f *floatIn) String() string { return strconv.FormatFloat(*f.v, 'g', -1, 64) }
func (f *floatIn) Type() string   { return "float64" }

func (f *floatIn) describe() string {
	return fmt.Sprintf("a number from %g to %g, like %s", f.min, f.max, f.like)
}

// atLeast is an int flag with default def that takes whole numbers from
// min up, such as like: --num-ctx, whose zero, the default, the model
// package reads as its own default, and which takes nothing below 1.
func atLeast(v *int, def, min, like int) *intFrom {
	*v = def
	return &intFrom{v: v, min: min, like: like}
}

// intFrom is the flag atLeast returns.
type intFrom struct {
	v    *int
	min  int
	like int // an example, for the error that describes what it takes
}

func (f *intFrom) Set(s string) error {
	x, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || x < f.min {
		return errOutOfRange
	}
	*f.v = x
	return nil
}

func (f *intFrom) String() string { return strconv.Itoa(*f.v) }
func (f *intFrom) Type() string   { return "int" }

func (f *intFrom) describe() string {
	return fmt.Sprintf("a whole number, at least %d, like %d", f.min, f.like)
}

// choice is the value of a flag that takes one of a few words, as gh's
// enum flags do: its words are what the flag checks, what completion
// offers and what an error about it lists. A word is taken in any case,
// and kept as it is listed.
type choice struct {
	v     *string
	what  string // what a word names, for messages: "protocol"
	words []string
	// list takes several words, comma-separated.
	list bool
	// hint is said after an unknown word: what else may be done.
	hint string
}

// oneOf is a flag's value that takes one of words, each a what (a
// "protocol"), from def.
func oneOf(v *string, def, what string, words ...string) *choice {
	*v = def
	return &choice{v: v, what: what, words: words}
}

// someOf is oneOf for a flag that takes several of words, comma-separated.
func someOf(v *string, def, what string, words ...string) *choice {
	c := oneOf(v, def, what, words...)
	c.list = true
	return c
}

// choiceError is the error of a word a choice does not take.
type choiceError struct {
	c    *choice
	word string
}

func (e *choiceError) Error() string {
	msg := unknown(e.c.what, e.word, e.c.words)
	if e.c.hint != "" {
		msg += "; " + e.c.hint
	}
	return msg
}

func (c *choice) Set(s string) error {
	parts := []string{s}
	if c.list {
		parts = strings.Split(s, ",")
	}
	var got []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		i := slices.IndexFunc(c.words, func(w string) bool { return strings.EqualFold(w, p) })
		if i < 0 {
			return &choiceError{c: c, word: p}
		}
		got = append(got, c.words[i])
	}
	*c.v = strings.Join(got, ",")
	return nil
}

func (c *choice) String() string { return *c.v }
func (c *choice) Type() string   { return "string" }

func (c *choice) describe() string {
	if c.list {
		return c.what + "s, comma-separated: " + orList(c.words)
	}
	article := "a "
	if strings.ContainsRune("aeiou", rune(c.what[0])) {
		article = "an "
	}
	return article + c.what + ": " + orList(c.words)
}

// completions are the words, and for a flag that takes several, all of
// them together.
func (c *choice) completions() []string {
	if c.list && len(c.words) > 1 {
		return append(slices.Clip(c.words), strings.Join(c.words, ","))
	}
	return c.words
}

// orList writes words as a choice in a sentence: "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
