//go:build !race

package fuzz

// raceDetector says that the race detector is on (see race_test.go).
const raceDetector = false
