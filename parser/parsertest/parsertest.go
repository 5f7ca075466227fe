// Package parsertest reads the corpora of replies the parser's tests,
// fuzzers and the stream's tests are held to.
package parsertest

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// Texts returns the replies of the JSON Lines files at paths, in order:
// the "text" field of each line. A file that cannot be read, or a line
// that is no JSON object, fails tb.
func Texts(tb testing.TB, paths ...string) []string {
	tb.Helper()
	var texts []string
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var line struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				f.Close()
				tb.Fatalf("%s: %v", path, err)
			}
			texts = append(texts, line.Text)
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
	}
	return texts
}
