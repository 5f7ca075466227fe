package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// OutOfScript is the reply to calls past the end of a script when the
// server was not told to [Repeat] it: a final answer, so that an agent
// that asks once too often stops rather than loops.
const OutOfScript = "Thought: I know it now.\nFinal Answer: out of script"

// LoadReplies reads the scripted replies of a fixture: a JSON object whose
// "replies" are the model's replies in order and whose "note" says what
// the script is for. It is an error for the script to have no replies or
// fields other than these two.
func LoadReplies(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("modeltest: %w", err)
	}
	var script struct {
		Note    string   `json:"note"`
		Replies []string `json:"replies"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&script); err != nil {
		return nil, fmt.Errorf("modeltest: %s: %w", path, err)
	}
	if len(script.Replies) == 0 {
		return nil, fmt.Errorf("modeltest: %s: the script has no replies", path)
	}
	return script.Replies, nil
}

// stopAt cuts text at the first of the stop sequences, as a server does.
func stopAt(text string, stops []string) string {
	for _, s := range stops {
		if i := strings.Index(text, s); i >= 0 {
			text = text[:i]
		}
	}
	return text
}

// stopsOf returns the stop sequences of a decoded request field: a list
// of strings, or one string as OpenAI also accepts.
func stopsOf(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		if s, ok := s.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
