package cli

import (
	"errors"
	"math"
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

// temperature is the value of --temperature: a number from 0 to
// maxTemperature, from every source (the flag, its variable, the config
// file, settings set, chat's /set parameter).
func temperature(v *float64) *floatIn { return &floatIn{v: v, min: 0, max: maxTemperature} }

// floatIn is a float64 flag that takes finite numbers from min to max.
type floatIn struct {
	v        *float64
	min, max float64
}

// errOutOfRange is the error of a value past a flag's bounds; valueKind
// says what the flag takes.
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

// atLeast is an int flag with default def that takes whole numbers from
// min up: --num-ctx, which the model package would otherwise take as its
// default when zero or less, and say nothing.
func atLeast(v *int, def, min int) *intFrom {
	*v = def
	return &intFrom{v: v, min: min}
}

// intFrom is the flag atLeast returns.
type intFrom struct {
	v   *int
	min int
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
