//go:build race

package fuzz

// raceDetector says that the race detector is on: it slows every
// memory access many times over, so that a parse's time says nothing
// about its growth, and FuzzParse does not time the parser.
const raceDetector = true
