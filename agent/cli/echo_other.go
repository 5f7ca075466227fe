//go:build !linux

package cli

import "os"

// quietTerminal leaves the terminal's echo as it is where its mode is not
// set here: what is typed while an answer is written shows where the
// cursor is.
func quietTerminal(*os.File) (off, on, flush func()) { return func() {}, func() {}, func() {} }
