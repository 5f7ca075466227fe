// Package configerr says where in a config file, YAML or JSON, the fault
// its parser found is: the line, and what it holds, so that a person finds
// it at once.
//
// gopkg.in/yaml.v3 names the line where the construct around a fault
// starts, not the fault's own: a list item indented one space too few on
// line 4 is reported on line 1, where the list begins. encoding/json
// names a byte offset. Locate finds the line of either.
package configerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// LineError is a fault of a config file on one line.
type LineError struct {
	// Line is the line of the fault, from 1.
	Line int
	// Text is what the line holds, cut to a readable length.
	Text string
	// Problem is what the parser found wrong, without its own line.
	Problem string
	// Err is the parser's error.
	Err error
}

func (e *LineError) Error() string {
	if strings.TrimSpace(e.Text) == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Problem)
	}
	return fmt.Sprintf("line %d (%s): %s", e.Line, strconv.Quote(e.Text), e.Problem)
}

// Unwrap returns the parser's error.
func (e *LineError) Unwrap() error { return e.Err }

// maxParsed bounds the bytes Locate parses to find a YAML fault's line,
// all the file's beginnings it tries together: past it, the parser's own
// line is said.
const maxParsed = 8 << 20

// yamlLine is how yaml.v3 starts the message of a syntax error.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// typeLine is one error of a yaml.TypeError, and unknownField its message
// for a key a decoder that knows its fields does not know.
var (
	typeLine     = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownField = regexp.MustCompile(`^field (\S+) not found in type .+$`)
)

// Locate returns err, an error of parsing data as YAML (gopkg.in/yaml.v3)
// or JSON (encoding/json), as a *LineError that names the line of the
// fault, or err itself when it is no syntax error of either, or names no
// place. A YAML fault's line is the first line after the longest
// beginning of data that parses: what comes before it is well formed. A
// key unknown to a decoder that knows its fields is said as such, in
// words without Go's types.
func Locate(data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return at(data, lineOf(data, syntax.Offset), err.Error(), err)
	case errors.As(err, &typ):
		return at(data, lineOf(data, typ.Offset), err.Error(), err)
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		// "line 3: field bogus not found in type tools.pluginSpec", of a
		// decoder that knows its fields: the key, without Go's names.
		m := typeLine.FindStringSubmatch(te.Errors[0])
		if m == nil {
			return err
		}
		line, _ := strconv.Atoi(m[1])
		problem := unknownField.ReplaceAllString(m[2], `unknown key "$1"`)
		if n := len(te.Errors) - 1; n > 0 {
			problem += fmt.Sprintf(" (and %d more mistakes after it)", n)
		}
		return at(data, line, problem, err)
	}
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	problem := strings.TrimPrefix(err.Error(), m[0])
	line, _ := strconv.Atoi(m[1])
	lines := bytes.SplitAfter(data, []byte("\n"))
	size, parsed := len(data), 0
	for n := len(lines) - 1; n >= 0; n-- {
		size -= len(lines[n])
		if parsed += size; parsed > maxParsed {
			break // a large file: the parser's line, where its construct starts
		}
		var v yaml.Node
		if yaml.Unmarshal(data[:size], &v) == nil {
			line = n + 1
			break
		}
	}
	return at(data, line, problem, err)
}

// at returns the LineError of a fault on line of data.
func at(data []byte, line int, problem string, err error) *LineError {
	lines := strings.Split(string(data), "\n")
	var text string
	if line >= 1 && line <= len(lines) {
		text = strings.TrimRight(lines[line-1], "\r")
		if r := []rune(text); len(r) > 60 {
			text = string(r[:59]) + "…"
		}
	}
	return &LineError{Line: line, Text: text, Problem: problem, Err: err}
}

// lineOf returns the line, from 1, of the byte at offset in data, or of
// the last byte read when offset is past it.
func lineOf(data []byte, offset int64) int {
	offset = min(max(offset-1, 0), int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}
