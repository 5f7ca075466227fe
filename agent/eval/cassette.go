package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Cassette returns the file name of the cassette that records question q
// asked of target t, in the folder of an evaluation's cassettes. It reads
// as the run it holds (the model without its server's URL, the protocol,
// the question's ID) and ends in a short hash of those three exactly, so
// that IDs which differ in any way (a/1, a_1, a:1; A and a on a file
// system that ignores case) get files of their own. The server's URL is
// left out, so that an evaluation recorded from any server replays under
// the same names offline.
func Cassette(t Target, q Question) string {
	m := withoutURL(t.Model)
	sum := sha256.Sum256([]byte(m + "\x00" + t.Protocol + "\x00" + q.ID))
	return slug(m, 48) + "_" + slug(t.Protocol, 8) + "_" + slug(q.ID, 48) + "_" + hex.EncodeToString(sum[:4]) + ".jsonl"
}

// CheckCassettes returns an error when two runs of targets and qs would
// share a cassette: a question ID given twice, or a model given twice, or
// two that differ only in their server's URL, which cassette names leave
// out.
func CheckCassettes(targets []Target, qs []Question) error {
	ids := map[string]bool{}
	for _, q := range qs {
		if ids[q.ID] {
			return fmt.Errorf("two questions have the id %q; give each question its own", q.ID)
		}
		ids[q.ID] = true
	}
	seen := map[string]Target{}
	for _, t := range targets {
		key := withoutURL(t.Model) + "\x00" + t.Protocol
		prev, dup := seen[key]
		switch {
		case dup && prev.Model == t.Model:
			return fmt.Errorf("the model %q is given twice", t.Model)
		case dup:
			return fmt.Errorf("the models %q and %q differ only in their server's URL, which the names of cassettes leave out; record them apart", prev.Model, t.Model)
		}
		seen[key] = t
	}
	names := map[string]string{}
	for _, t := range targets {
		for _, q := range qs {
			name := Cassette(t, q)
			if other, dup := names[strings.ToLower(name)]; dup {
				return fmt.Errorf("the cassettes %s and %s have one name on a file system that ignores case; change the id of question %q", other, name, q.ID)
			}
			names[strings.ToLower(name)] = name
		}
	}
	return nil
}

// withoutURL returns a model as the user gives it, provider:model@url,
// without its URL (see [ParseModel]), also a URL whose user information
// holds an @ of its own, or a password.
func withoutURL(model string) string {
	m, _ := splitURL(model)
	return m
}

// slug returns s as a part of a file's name: letters, digits, dots and
// hyphens as they are, any run of other characters as one underscore, at
// most n bytes.
func slug(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '-' || r == '.' && b.Len() > 0 || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
		if b.Len() >= n {
			break
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		out = "_"
	}
	return out
}
